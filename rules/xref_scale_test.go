package rules_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/lint"
)

// The cross-resource rules whose findings the 10,000-object run checks.
var xrefRules = map[string]bool{
	"selector/overlap":                 true,
	"selector/bare-pod-adopted":        true,
	"job/manual-selector":              true,
	"service/no-matching-workload":     true,
	"statefulset/service-not-headless": true,
	"statefulset/service-missing":      true,
	"pdb/no-matching-workload":         true,
	"pdb/zero-disruptions":             true,
	"hpa/replicas-set":                 true,
	"hpa/target-missing":               true,
}

// Shape of the generated run: per namespace, appsPerNS Deployments, the first
// servicesPerNS of them with a Service and the first pdbsPerNS with a
// PodDisruptionBudget, hpasPerNS autoscalers, a shadow ReplicaSet for every
// hundredth Deployment, one stray Pod, and ConfigMaps up to objectsPerNS.
const (
	xrefNamespaces = 5
	appsPerNS      = 600
	servicesPerNS  = 400
	pdbsPerNS      = 200
	hpasPerNS      = 20
	missingHPAs    = 2
	objectsPerNS   = 2000
)

// xrefRun writes the 10,000-object run into dir and returns the findings of
// the cross-resource rules it was built to raise, one "rule Kind ns/name"
// line per finding, sorted. With hpaNamedLikeTarget the autoscalers are named
// after the Deployments they scale, as kubectl autoscale and most charts name
// them, and hpa/replicas-set finds them by key; otherwise it reads every
// autoscaler of the namespace for each Deployment that sets replicas.
func xrefRun(t testing.TB, dir string, hpaNamedLikeTarget bool) []string {
	t.Helper()
	var want []string
	expect := func(rule, kind, ns, name string) {
		want = append(want, fmt.Sprintf("%s %s %s/%s", rule, kind, ns, name))
	}
	for n := range xrefNamespaces {
		ns := fmt.Sprintf("team-%d", n)
		var deployments, services, pdbs, hpas, others strings.Builder
		objects := 0
		for j := range appsPerNS {
			app := fmt.Sprintf("app-%d", j)
			replicas := 2
			fmt.Fprintf(&deployments, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: %[1]s, tier: web}}
  template:
    metadata: {labels: {app: %[1]s, tier: web}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`, app, ns, replicas)
			objects++
			if j%100 == 0 {
				// A ReplicaSet selecting on app alone overlaps the Deployment
				// in both directions: a finding on each.
				shadow := fmt.Sprintf("shadow-%d", j)
				fmt.Fprintf(&others, `---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[3]s}}
  template:
    metadata: {labels: {app: %[3]s, tier: web, shadow: "yes"}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`, shadow, ns, app)
				objects++
				expect("selector/overlap", "Deployment", ns, app)
				expect("selector/overlap", "ReplicaSet", ns, shadow)
			}
			if j < servicesPerNS {
				tier := "web"
				if j%10 == 9 {
					tier = "api" // every 10th Service matches nothing
					expect("service/no-matching-workload", "Service", ns, "svc-"+app)
				}
				fmt.Fprintf(&services, `---
apiVersion: v1
kind: Service
metadata: {name: svc-%[1]s, namespace: %[2]s}
spec:
  selector: {app: %[1]s, tier: %[3]s}
  ports: [{port: 80}]
`, app, ns, tier)
				objects++
			}
			if j < pdbsPerNS {
				budget := "maxUnavailable: 1"
				selector := fmt.Sprintf("{app: %s}", app)
				switch j % 10 {
				case 3: // minAvailable equal to the Deployment's 2 replicas
					budget = "minAvailable: 2"
					expect("pdb/zero-disruptions", "PodDisruptionBudget", ns, "pdb-"+app)
				case 7: // a label no pod template carries
					selector = fmt.Sprintf("{app: %s, tier: db}", app)
					expect("pdb/no-matching-workload", "PodDisruptionBudget", ns, "pdb-"+app)
				}
				fmt.Fprintf(&pdbs, `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb-%[1]s, namespace: %[2]s}
spec:
  %[3]s
  selector: {matchLabels: %[4]s}
`, app, ns, budget, selector)
				objects++
			}
		}
		for k := range hpasPerNS + missingHPAs {
			target := fmt.Sprintf("app-%d", k*30)
			if k >= hpasPerNS {
				target = fmt.Sprintf("ghost-%d", k)
			}
			name := fmt.Sprintf("hpa-%d", k)
			if hpaNamedLikeTarget {
				name = target
			}
			if k >= hpasPerNS {
				expect("hpa/target-missing", "HorizontalPodAutoscaler", ns, name)
			} else {
				expect("hpa/replicas-set", "Deployment", ns, target)
			}
			fmt.Fprintf(&hpas, `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %[3]s}
  minReplicas: 2
  maxReplicas: 10
`, name, ns, target)
			objects++
		}
		// A bare Pod the shadow ReplicaSet of app-0 adopts.
		fmt.Fprintf(&others, `---
apiVersion: v1
kind: Pod
metadata: {name: stray, namespace: %s, labels: {app: app-0, tier: web}}
spec:
  containers: [{name: app, image: "nginx:1.27"}]
`, ns)
		objects++
		expect("selector/bare-pod-adopted", "Pod", ns, "stray")
		for c := 0; objects < objectsPerNS; c++ {
			fmt.Fprintf(&others, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d, namespace: %s}\ndata: {k: v}\n", c, ns)
			objects++
		}
		for name, b := range map[string]*strings.Builder{"deployments": &deployments, "services": &services, "pdbs": &pdbs, "hpas": &hpas, "others": &others} {
			if err := os.WriteFile(filepath.Join(dir, ns+"-"+name+".yaml"), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	sort.Strings(want)
	return want
}

// TestCrossResource10k lints a 10,000-object run, heavy in Services,
// Deployments and PodDisruptionBudgets, and checks that the cross-resource
// rules find exactly what the run was built with.
func TestCrossResource10k(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 objects")
	}
	dir := t.TempDir()
	want := xrefRun(t, dir, false)
	l, err := lint.New(lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := l.Run(context.Background(), lint.Options{Paths: []string{dir}})
	if len(res.Errors) > 0 {
		t.Fatalf("Run() errors: %v", res.Errors)
	}
	if res.Objects != xrefNamespaces*objectsPerNS {
		t.Fatalf("Run() read %d objects, want %d", res.Objects, xrefNamespaces*objectsPerNS)
	}
	var got []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "api/") && f.Severity == lint.SeverityError || strings.HasPrefix(f.Rule, "input/") {
			t.Fatalf("generated object rejected: %s:%d: %s: %s", f.File, f.Line, f.Rule, f.Message)
		}
		if xrefRules[f.Rule] {
			got = append(got, fmt.Sprintf("%s %s %s/%s", f.Rule, f.Object.Kind, f.Object.Namespace, f.Object.Name))
		}
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cross-resource findings: got %d, want %d\n%s", len(got), len(want), diffLines(got, want))
	}
}

// diffLines lists the lines only in got (+) or only in want (-).
func diffLines(got, want []string) string {
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	for _, w := range want {
		count[w]--
	}
	var out []string
	for line, n := range count {
		for ; n > 0; n-- {
			out = append(out, "+ "+line)
		}
		for ; n < 0; n++ {
			out = append(out, "- "+line)
		}
	}
	sort.Strings(out)
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("... %d more", len(out)-40))
	}
	return strings.Join(out, "\n")
}

// BenchmarkCrossResource10k lints the 10,000-object run of
// TestCrossResource10k, whole: loading, the API tier and every Rego rule.
// The autoscalers are named after their targets, or not (then
// hpa/replicas-set reads the namespace's keys for each Deployment that sets
// replicas).
func BenchmarkCrossResource10k(b *testing.B) {
	for _, named := range []bool{true, false} {
		b.Run(fmt.Sprintf("hpaNamedLikeTarget=%v", named), func(b *testing.B) {
			dir := b.TempDir()
			xrefRun(b, dir, named)
			l, err := lint.New(lint.Config{})
			if err != nil {
				b.Fatal(err)
			}
			objects := 0
			for b.Loop() {
				res := l.Run(context.Background(), lint.Options{Paths: []string{dir}})
				if len(res.Errors) > 0 {
					b.Fatal(res.Errors)
				}
				objects += res.Objects
			}
			b.ReportMetric(float64(objects)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
