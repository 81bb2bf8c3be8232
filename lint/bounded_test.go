package lint_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// alike is n copies of an application in one namespace, sharing their
// labels: a Deployment, a ReplicaSet, a budget and a bare Pod each.
func alike(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-%02d, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1"}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs-%02d, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1"}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb-%02d, namespace: shop}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: Pod
metadata: {name: pod-%02d, namespace: shop, labels: {app: web}}
spec: {containers: [{name: web, image: "web:1"}]}
`, i, i, i, i)
	}
	return b.String()
}

// TestCrossResourceOutputIsBounded checks that many related objects give one
// finding per object, naming the first five and counting the rest in
// Related, while a few give a finding per pair, as before.
func TestCrossResourceOutputIsBounded(t *testing.T) {
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		copies int
		// per object: findings of each rule, and their Related
		perObject map[string]int
		related   map[string]int
	}{
		// 3 copies: each Pod has 3 adopting ReplicaSets and each controller
		// 5 others, a finding each; each budget shares 9 workloads (with 2
		// other budgets each), one finding.
		{3, map[string]int{"selector/bare-pod-adopted": 3, "selector/overlap": 5, "pdb/overlap": 1}, map[string]int{"pdb/overlap": 9}},
		// 12 copies: one finding each, with the full count.
		{12, map[string]int{"selector/bare-pod-adopted": 1, "selector/overlap": 1, "pdb/overlap": 1},
			map[string]int{"selector/bare-pod-adopted": 12, "selector/overlap": 23, "pdb/overlap": 36}},
	} {
		res := l.Run(context.Background(), lint.Options{Paths: []string{"-"}, Stdin: strings.NewReader(alike(tt.copies))})
		if len(res.Errors) > 0 {
			t.Fatal(res.Errors)
		}
		type key struct{ rule, object string }
		got := map[key]int{}
		for _, f := range res.Findings {
			if _, ok := tt.perObject[f.Rule]; !ok {
				continue
			}
			got[key{f.Rule, f.Object.Kind + "/" + f.Object.Name}]++
			if f.Related != tt.related[f.Rule] {
				t.Errorf("%d copies: %s on %s has related %d, want %d: %s", tt.copies, f.Rule, f.Object.Name, f.Related, tt.related[f.Rule], f.Message)
			}
			if f.Related > 0 && !strings.Contains(f.Message, fmt.Sprintf("and %d more", f.Related-5)) {
				t.Errorf("%d copies: %s on %s does not say how many more: %s", tt.copies, f.Rule, f.Object.Name, f.Message)
			}
		}
		objects := map[string]int{"selector/bare-pod-adopted": tt.copies, "selector/overlap": 2 * tt.copies, "pdb/overlap": tt.copies}
		for rule, n := range objects {
			seen := 0
			for k, c := range got {
				if k.rule != rule {
					continue
				}
				seen++
				if c != tt.perObject[rule] {
					t.Errorf("%d copies: %s has %d %s findings, want %d", tt.copies, k.object, c, rule, tt.perObject[rule])
				}
			}
			if seen != n {
				t.Errorf("%d copies: %d objects have %s findings, want %d", tt.copies, seen, rule, n)
			}
		}
	}
}

// TestReadinessFanOutIsBounded: when n Services send to the same container
// without a readinessProbe, probes/readiness-missing names the first five
// and counts them all in Related (the inventory answers it once for all the
// alike workloads, rules/bounded.go); with five or fewer it names them all.
func TestReadinessFanOutIsBounded(t *testing.T) {
	doc := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-%02d, namespace: shop}
spec:
  replicas: 2
  strategy: {type: Recreate}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1", ports: [{containerPort: 8080}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc-%02d, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`, i, i)
		}
		return b.String()
	}
	for _, tt := range []struct {
		copies, related int
		names           string
	}{
		{3, 0, "Services svc-00, svc-01, svc-02 send connections"},
		{12, 12, "Services svc-00, svc-01, svc-02, svc-03, svc-04 and 7 more send connections"},
	} {
		l, err := lint.New(lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		res := l.Run(context.Background(), lint.Options{Paths: []string{"-"}, Stdin: strings.NewReader(doc(tt.copies)),
			Settings: &config.File{Rules: config.Rules{Enable: []string{"probes/readiness-missing"}}}})
		n := 0
		for _, f := range res.Findings {
			if f.Rule != "probes/readiness-missing" {
				continue
			}
			n++
			if !strings.Contains(f.Message, tt.names) || f.Related != tt.related {
				t.Errorf("%d copies: %s with related %d, want %q and related %d", tt.copies, f.Message, f.Related, tt.names, tt.related)
			}
		}
		if n != tt.copies {
			t.Errorf("%d copies: %d probes/readiness-missing findings, want one per Deployment", tt.copies, n)
		}
	}
}

// TestRepeatedKeyIsLinear: a mapping with one key repeated 200,000 times
// gives a duplicate-key finding per repeat at its own line, in linear time
// (the findings used to look their field up by scanning the mapping: 4·10^10
// comparisons).
func TestRepeatedKeyIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("lints a 1.2 MB mapping")
	}
	const repeats = 200_000
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: y\ndata:\n")
	for range repeats {
		b.WriteString("  k: v\n")
	}
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := l.Run(context.Background(), lint.Options{Paths: []string{"-"}, Stdin: strings.NewReader(b.String())})
	elapsed := time.Since(start)
	n := 0
	for _, f := range res.Findings {
		if f.Rule == lint.RuleDuplicateKey {
			if want := 7 + n + 1; f.Line != want && n < 3 {
				t.Errorf("duplicate %d at line %d, want %d", n, f.Line, want)
			}
			n++
		}
	}
	if n != repeats-1 {
		t.Errorf("%d duplicate-key findings, want %d", n, repeats-1)
	}
	if elapsed > time.Minute {
		t.Errorf("linting %d repeats of a key took %s", repeats, elapsed)
	}
	t.Logf("%d repeats: %s", repeats, elapsed)
}
