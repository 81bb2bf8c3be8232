package runner

import (
	"fmt"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/nearest"
)

// kindOf is the kind a Target names ("" is a Deployment).
func (t Target) kindOf() string {
	if t.Kind == "" {
		return string(kernel.KindDeployment)
	}
	return string(t.Kind)
}

// String names the target as kubectl's TYPE/NAME, with its namespace when one is given.
func (t Target) String() string {
	s := strings.ToLower(t.kindOf()) + "/" + t.Name
	if t.Namespace != "" {
		s += " in namespace " + t.Namespace
	}
	return s
}

// maxListed is how many workloads an error lists; with more it names the nearest instead.
const maxListed = 10

// workloadKind reports whether obj is one of the kinds predict predicts: a TYPE/NAME beside
// -f picks among them.
func workloadKind(obj *manifest.Object) bool {
	switch obj.APIVersion + "/" + obj.Kind {
	case "apps/v1/Deployment", "apps/v1/StatefulSet", "apps/v1/DaemonSet", "apps/v1/ReplicaSet",
		"v1/ReplicationController", "batch/v1/Job", "batch/v1/CronJob":
		return true
	}
	return false
}

// onlyTargets narrows set to the workloads that targets name (TYPE/NAME beside -f, or beside
// --from alone), keeping the Namespaces and HorizontalPodAutoscalers, which predict reads for
// them, and leaving out the other objects, which would only be listed as skipped. A target that
// names no workload of the set is an error listing those there are (up to maxListed; beyond,
// the nearest name as a "did you mean").
func onlyTargets(set *manifest.Set, targets []Target, defaultNS, where string) error {
	if len(targets) == 0 {
		return nil
	}
	found := make([]bool, len(targets))
	var kept []*manifest.Object
	var have, names []string
	for _, obj := range set.Objects {
		if !workloadKind(obj) {
			if isAutoscaler(obj) || (obj.APIVersion == "v1" && obj.Kind == "Namespace") {
				kept = append(kept, obj)
			}
			continue
		}
		ns := obj.Namespace
		if ns == "" {
			ns = defaultNS
		}
		have = append(have, fmt.Sprintf("%s/%s in namespace %s", strings.ToLower(obj.Kind), obj.Name, ns))
		names = append(names, strings.ToLower(obj.Kind)+"/"+obj.Name)
		match := false
		for i, t := range targets {
			if t.kindOf() == obj.Kind && t.Name == obj.Name && (t.Namespace == "" || t.Namespace == ns) {
				found[i], match = true, true
			}
		}
		if match {
			kept = append(kept, obj)
		}
	}
	for i, t := range targets {
		if found[i] {
			continue
		}
		switch {
		case len(have) == 0:
			return fmt.Errorf("%s: %s holds no workload", t, where)
		case len(have) <= maxListed:
			return fmt.Errorf("%s: not in %s, which holds %s", t, where, strings.Join(have, ", "))
		}
		hint := ""
		if n := nearest.Nearest(strings.ToLower(t.kindOf())+"/"+t.Name, names); n != "" {
			hint = "; did you mean " + n + "?"
		}
		return fmt.Errorf("%s: not among the %d workloads of %s%s", t, len(have), where, hint)
	}
	set.Objects = kept
	return nil
}
