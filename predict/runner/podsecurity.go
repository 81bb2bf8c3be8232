package runner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/pod-security-admission/api"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
)

// podSecurityLabelPrefix starts the namespace labels PodSecurity admission reads.
const podSecurityLabelPrefix = "pod-security.kubernetes.io/"

// namespacePolicies are the Pod Security labels of each namespace a run knows: the cluster's
// (Request.NamespaceLabels), replaced by a Namespace of the input files.
func namespacePolicies(req Request, set *manifest.Set) map[string]map[string]string {
	out := map[string]map[string]string{}
	for name, labels := range req.NamespaceLabels {
		out[name] = podSecurityLabels(labels)
	}
	for _, obj := range set.Objects {
		if obj.APIVersion != "v1" || obj.Kind != "Namespace" || obj.Name == "" {
			continue
		}
		var ns struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if json.Unmarshal(obj.JSON, &ns) != nil {
			continue
		}
		out[obj.Name] = podSecurityLabels(ns.Metadata.Labels)
	}
	return out
}

// namespacesOfSet lists, sorted, the namespaces of the set's Deployments, StatefulSets and
// DaemonSets (defaultNS for those that name none).
func namespacesOfSet(set *manifest.Set, defaultNS string) []string {
	seen := map[string]bool{}
	var out []string
	for _, obj := range set.Objects {
		if obj.APIVersion != "apps/v1" || (obj.Kind != "Deployment" && obj.Kind != "StatefulSet" && obj.Kind != "DaemonSet") {
			continue
		}
		ns := obj.Namespace
		if ns == "" {
			ns = defaultNS
		}
		if !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

func podSecurityLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if strings.HasPrefix(k, podSecurityLabelPrefix) {
			out[k] = v
		}
	}
	return out
}

// Refusal is why the namespace refuses every pod of a workload: its Pod Security enforce
// level, which the pod template violates.
type Refusal struct {
	Namespace string
	// Level is the enforce level and version ("restricted:latest").
	Level string
	// Reason is what PodSecurity admission answers each pod creation, after `pods "NAME" is
	// forbidden: ` (the ReplicaSet controller's FailedCreate event): violates PodSecurity
	// "restricted:latest": ....
	Reason string
}

// podSecurityRefusal evaluates the pod template of a Deployment, StatefulSet or DaemonSet (as
// written, JSON) against the enforce level of its namespace's labels, as Admission.EvaluatePod
// (k8s.io/pod-security-admission/admission) does for each pod the controller creates. nil
// when the namespace has no enforce label, or its level allows the pods.
func podSecurityRefusal(policies map[string]map[string]string, namespace, kind string, js []byte) (*Refusal, error) {
	labels, ok := policies[namespace]
	if !ok || len(labels) == 0 {
		return nil, nil
	}
	privileged := api.LevelVersion{Level: api.LevelPrivileged, Version: api.LatestVersion()}
	// An invalid label leaves its mode at the default (privileged), as admission does.
	p, _ := api.PolicyToEvaluate(labels, api.Policy{Enforce: privileged, Audit: privileged, Warn: privileged})
	if p.Enforce.Level == api.LevelPrivileged {
		return nil, nil
	}
	var obj runtime.Object
	switch kind {
	case "Deployment":
		obj = &apps.Deployment{}
	case "StatefulSet":
		obj = &apps.StatefulSet{}
	case "DaemonSet":
		obj = &apps.DaemonSet{}
	default:
		return nil, nil
	}
	if err := json.Unmarshal(js, obj); err != nil {
		return nil, fmt.Errorf("decode for Pod Security: %w", err)
	}
	res, ok, err := podsecurity.Evaluate(obj)
	if err != nil || !ok {
		return nil, err
	}
	d := res.Detail(p.Enforce.Level)
	if d == "" {
		return nil, nil
	}
	return &Refusal{Namespace: namespace, Level: p.Enforce.String(),
		Reason: fmt.Sprintf("violates PodSecurity %q: %s", p.Enforce.String(), d)}, nil
}

// refusedStall marks a plan simulated with the new pods refused (a Deployment's
// Timing.RefuseNew: none is created) or never Ready (Timing.FailNew, for StatefulSets and
// DaemonSets) as refused by the namespace: its stall reason and a note say why no pod is ever
// created.
func refusedStall(p *Prediction, r *Refusal, failNew bool) {
	p.Timing.FailNew = failNew
	p.Timing.Refused = r
	if p.Plan == nil {
		return
	}
	reason := fmt.Sprintf("namespace %s refuses every new pod: %s", r.Namespace, r.Reason)
	if s := &p.Plan.Summary; !s.Completed {
		if s.StallReason != "" {
			reason += "; " + s.StallReason
		}
		s.StallReason = reason
	}
	counted := "no pod of the new revision is created"
	if p.Kind != "Deployment" {
		// The StatefulSet and DaemonSet worlds model the refusal as pods that never turn Ready.
		counted = "the plan counts those pods as never Ready, but none is created"
	}
	p.Plan.Notes = append(p.Plan.Notes, fmt.Sprintf(
		"namespace %s enforces Pod Security %s: each pod the controller creates is refused (a FailedCreate event: pods \"NAME\" is forbidden: violates PodSecurity ...); %s",
		r.Namespace, r.Level, counted))
}
