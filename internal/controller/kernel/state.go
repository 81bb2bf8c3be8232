package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apps "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// State is the current state of a cluster as the API server stores it: workloads, their pods
// and the nodes, for example from `kubectl get deploy,rs,pods -o yaml` or from live get and
// list calls. Objects are already defaulted by the server.
type State struct {
	Deployments  []*apps.Deployment
	ReplicaSets  []*apps.ReplicaSet
	StatefulSets []*apps.StatefulSet
	DaemonSets   []*apps.DaemonSet
	Pods         []*v1.Pod
	Nodes        []*v1.Node
	// ControllerRevisions are the StatefulSets' and DaemonSets' history (kubectl get
	// controllerrevisions): what --undo rolls back to.
	ControllerRevisions []*apps.ControllerRevision
	// Autoscalers are the HorizontalPodAutoscalers of the state (autoscaling/v1 and v2, both
	// read into v2's fields): a workload one of them targets has its replica count set by it.
	Autoscalers []*autoscalingv2.HorizontalPodAutoscaler
	// AutoscalersUnread, when set, says why the state has no autoscalers although it may
	// (the user may not list them).
	AutoscalersUnread string
	// Now is when the state was taken. ParseState estimates it as the latest timestamp in the
	// dump; live mode uses the local clock at the read.
	Now time.Time
	// Source names where the state came from, for messages ("dump.yaml", "cluster").
	Source string
}

// ParseState reads the Deployments, ReplicaSets, StatefulSets, DaemonSets, pods, nodes,
// ControllerRevisions and HorizontalPodAutoscalers of a loaded dump. Other kinds are ignored. An object that does not decode is an error naming its file and document.
func ParseState(set *manifest.Set, source string) (*State, error) {
	s := &State{Source: source}
	for _, o := range set.Objects {
		var target any
		switch o.APIVersion + "/" + o.Kind {
		case "apps/v1/Deployment":
			target = appendNew(&s.Deployments)
		case "apps/v1/ReplicaSet":
			target = appendNew(&s.ReplicaSets)
		case "apps/v1/StatefulSet":
			target = appendNew(&s.StatefulSets)
		case "apps/v1/DaemonSet":
			target = appendNew(&s.DaemonSets)
		case "v1/Pod":
			target = appendNew(&s.Pods)
		case "v1/Node":
			target = appendNew(&s.Nodes)
		case "apps/v1/ControllerRevision":
			target = appendNew(&s.ControllerRevisions)
		case "autoscaling/v2/HorizontalPodAutoscaler", "autoscaling/v1/HorizontalPodAutoscaler":
			// v1's scaleTargetRef, minReplicas, maxReplicas and status counts have v2's names.
			target = appendNew(&s.Autoscalers)
		default:
			continue
		}
		if err := json.Unmarshal(o.JSON, target); err != nil {
			return nil, fmt.Errorf("%s: document %d: decode %s %s: %w", o.File, o.Document, o.Kind, o.Name, err)
		}
	}
	s.Now = s.latestTimestamp()
	return s, nil
}

// appendNew appends a new zero T to list and returns it, for the decoder to fill.
func appendNew[T any](list *[]*T) *T {
	v := new(T)
	*list = append(*list, v)
	return v
}

// latestTimestamp is the latest creation, condition or deletion time in the state: the dump
// was taken no earlier.
func (s *State) latestTimestamp() time.Time {
	var latest time.Time
	see := func(t metav1.Time) {
		if t.After(latest) {
			latest = t.Time
		}
	}
	for _, d := range s.Deployments {
		see(d.CreationTimestamp)
		for _, c := range d.Status.Conditions {
			see(c.LastUpdateTime)
			see(c.LastTransitionTime)
		}
	}
	for _, rs := range s.ReplicaSets {
		see(rs.CreationTimestamp)
	}
	for _, p := range s.Pods {
		see(p.CreationTimestamp)
		for _, c := range p.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	return latest
}

// Deployment returns the Deployment namespace/name of the state, or nil.
func (s *State) Deployment(namespace, name string) *apps.Deployment {
	for _, d := range s.Deployments {
		if d.Name == name && (d.Namespace == namespace || d.Namespace == "" || namespace == "") {
			return d
		}
	}
	return nil
}

// StatefulSet returns the StatefulSet namespace/name of the state, or nil.
func (s *State) StatefulSet(namespace, name string) *apps.StatefulSet {
	for _, o := range s.StatefulSets {
		if o.Name == name && (o.Namespace == namespace || o.Namespace == "" || namespace == "") {
			return o
		}
	}
	return nil
}

// DaemonSet returns the DaemonSet namespace/name of the state, or nil.
func (s *State) DaemonSet(namespace, name string) *apps.DaemonSet {
	for _, o := range s.DaemonSets {
		if o.Name == name && (o.Namespace == namespace || o.Namespace == "" || namespace == "") {
			return o
		}
	}
	return nil
}

// PodsOf returns the pods of the state that owner controls (by UID, or by name in a dump
// without UIDs) or, when none carries a controller reference, that selector matches.
func (s *State) PodsOf(owner metav1.Object, kind string, selector *metav1.LabelSelector) ([]*v1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: selector: %w", kind, owner.GetNamespace(), owner.GetName(), err)
	}
	var out []*v1.Pod
	for _, p := range s.Pods {
		if p.Namespace != owner.GetNamespace() && p.Namespace != "" && owner.GetNamespace() != "" {
			continue
		}
		if ref := metav1.GetControllerOf(p); ref != nil {
			if (owner.GetUID() != "" && ref.UID == owner.GetUID()) || (owner.GetUID() == "" && ref.Kind == kind && ref.Name == owner.GetName()) {
				out = append(out, p)
			}
			continue
		}
		if sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Kind is a kind of object predict reads a state for.
type Kind string

// The kinds predict reads a state for: the rollouts, and the scale-downs.
const (
	KindDeployment            Kind = "Deployment"
	KindStatefulSet           Kind = "StatefulSet"
	KindDaemonSet             Kind = "DaemonSet"
	KindReplicaSet            Kind = "ReplicaSet"
	KindReplicationController Kind = "ReplicationController"
)

// ScaleDown reports whether predict models a scale-down of the kind (which pods go first)
// rather than a rollout.
func (k Kind) ScaleDown() bool { return k == KindReplicaSet || k == KindReplicationController }

// StateReader reads, for one object, the current state a prediction starts from: the object,
// what it owns (ReplicaSets, ControllerRevisions), its pods and, for a DaemonSet, the nodes.
// The live cluster is one (package live).
type StateReader interface {
	// ReadState returns the state of kind namespace/name, or nil without an error when the
	// object does not exist.
	ReadState(ctx context.Context, kind Kind, namespace, name string) (*State, error)
	// Source names where the states come from, for messages: `context "prod"`.
	Source() string
}
