package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// TestInjectedContainerNotJudged: istio's gateway chart writes a placeholder
// container (image auto) that the injector replaces at admission. With every
// rule on, the findings about that container are left out but for the one
// information saying why; the same Deployment without the injection marks
// gets them.
func TestInjectedContainerNotJudged(t *testing.T) {
	const gateway = `apiVersion: apps/v1
kind: Deployment
metadata: {name: istio-ingressgateway}
spec:
  replicas: 1
  selector: {matchLabels: {app: istio-ingressgateway}}
  template:
    metadata:
      annotations: {inject.istio.io/templates: gateway}
      labels: {app: istio-ingressgateway, sidecar.istio.io/inject: "true"}
    spec:
      containers:
      - name: istio-proxy
        image: auto
`
	run := func(doc string) []Finding {
		res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(doc),
			Settings: &config.File{Profile: config.ProfileAll}})
		var out []Finding
		for _, f := range res.Findings {
			if strings.HasPrefix(f.Field, "spec.template.spec.containers[0]") {
				out = append(out, f)
			}
		}
		return out
	}
	got := run(gateway)
	if len(got) != 1 || got[0].Rule != rules.RuleInjected || got[0].Severity != SeverityInfo {
		t.Errorf("findings on the injected container = %+v, want one %s info", got, rules.RuleInjected)
	}
	unmarked := strings.Replace(strings.Replace(gateway, `, sidecar.istio.io/inject: "true"`, "", 1), "{inject.istio.io/templates: gateway}", "{}", 1)
	got = run(unmarked)
	judged := map[string]bool{}
	for _, f := range got {
		judged[f.Rule] = true
	}
	if judged[rules.RuleInjected] || !judged["rollout/mutable-image-tag"] || !judged["resources/requests-missing"] {
		t.Errorf("findings on the unmarked container = %+v, want rollout/mutable-image-tag and resources/requests-missing, no %s", got, rules.RuleInjected)
	}
}

// movedToOptIn are the rules issue 43 moved from the default profile to
// the opt-in one: the tests written for the old default enable them.
var movedToOptIn = []string{"pss/baseline", "resources/memory-limit-missing", "resources/requests-missing",
	"probes/liveness-equals-readiness", "availability/single-replica", "availability/no-spread", "availability/no-pdb",
	"pdb/unhealthy-eviction-policy", "job/onfailure-backoff", "rollout/recreate", "hpa/min-replicas-one",
	"statefulset/service-missing", "probes/readiness-missing"}

// withOldDefaults is f (nil for none) with the rules of the default profile
// before issue 43 enabled.
func withOldDefaults(f *config.File) *config.File {
	out := &config.File{}
	if f != nil {
		c := *f
		out = &c
	}
	out.Rules.Enable = append(append([]string{}, out.Rules.Enable...), movedToOptIn...)
	return out
}
