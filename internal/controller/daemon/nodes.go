// Package daemon predicts a DaemonSet rollout with the DaemonSet controller's own rules
// (k8s.io/kubernetes v1.37.1, pkg/controller/daemon), in a discrete-event world on an injected
// clock. It never imports cobra and never prints: Simulate takes plain inputs and returns a
// *predict.Plan.
package daemon

import (
	"fmt"
	"sort"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/daemon"
	"sigs.k8s.io/yaml"
)

// ParseNodes reads nodes from a `kubectl get nodes -o yaml` (or JSON) dump: a v1 List or
// NodeList of Nodes, or a single Node. Items of other kinds are an error.
func ParseNodes(data []byte) ([]*v1.Node, error) {
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	var probe metav1.TypeMeta
	if err := yaml.Unmarshal(jsonData, &probe); err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	decoder := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	switch probe.Kind {
	case "Node":
		n := &v1.Node{}
		if _, _, err := decoder.Decode(jsonData, nil, n); err != nil {
			return nil, fmt.Errorf("nodes: decode node: %w", err)
		}
		return []*v1.Node{n}, nil
	case "List", "NodeList":
		var list struct {
			Items []runtime.RawExtension `json:"items"`
		}
		if err := yaml.Unmarshal(jsonData, &list); err != nil {
			return nil, fmt.Errorf("nodes: decode list: %w", err)
		}
		nodes := make([]*v1.Node, 0, len(list.Items))
		for i, item := range list.Items {
			n := &v1.Node{}
			raw := item.Raw
			if probe.Kind == "NodeList" {
				// NodeList items carry no kind.
				if err := yaml.Unmarshal(raw, n); err != nil {
					return nil, fmt.Errorf("nodes: item %d: %w", i, err)
				}
			} else if _, _, err := decoder.Decode(raw, nil, n); err != nil {
				return nil, fmt.Errorf("nodes: item %d: %w", i, err)
			}
			nodes = append(nodes, n)
		}
		return nodes, nil
	}
	return nil, fmt.Errorf("nodes: kind %q, want Node, NodeList or List", probe.Kind)
}

// SyntheticNodes makes n Ready, untainted, schedulable nodes named node-1 … node-n, with the
// kubernetes.io/hostname and kubernetes.io/os=linux labels a kubelet sets: what `--nodes N`
// stands for.
func SyntheticNodes(n int) []*v1.Node {
	nodes := make([]*v1.Node, 0, n)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				v1.LabelHostname: name, v1.LabelOSStable: "linux", v1.LabelArchStable: "amd64"}},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
		})
	}
	return nodes
}

// Eligibility is one node's verdict for a DaemonSet.
type Eligibility struct {
	Node string
	// ShouldRun and ShouldContinueRunning are daemon.NodeShouldRunDaemonPod's answers.
	ShouldRun             bool
	ShouldContinueRunning bool
	// Reason says why a node does not run the DaemonSet; empty when it does.
	Reason string
}

// Eligible evaluates every node with upstream's daemon.NodeShouldRunDaemonPod (nodeName,
// nodeSelector and required node affinity, taints against the template's tolerations plus the
// automatic DaemonSet tolerations of daemonutil.AddOrUpdateDaemonPodTolerations), sorted by node
// name.
func Eligible(ds *apps.DaemonSet, nodes []*v1.Node) []Eligibility {
	logger := klog.Background()
	affinity := nodeaffinity.NewRequiredNodeAffinity(ds.Spec.Template.Spec.NodeSelector, ds.Spec.Template.Spec.Affinity)
	out := make([]Eligibility, 0, len(nodes))
	for _, n := range nodes {
		run, cont := daemon.NodeShouldRunDaemonPod(logger, n, ds)
		e := Eligibility{Node: n.Name, ShouldRun: run, ShouldContinueRunning: cont}
		if !run {
			switch match, _ := affinity.Match(n); {
			case ds.Spec.Template.Spec.NodeName != "" && ds.Spec.Template.Spec.NodeName != n.Name:
				e.Reason = "spec.template.spec.nodeName names another node"
			case !match:
				e.Reason = "does not match the nodeSelector or required node affinity"
			default:
				e.Reason = "has a taint the pods do not tolerate"
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

// plural picks the singular or plural noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
