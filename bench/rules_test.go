package bench

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// ruleCostService is one service of the services shape, as the generator
// writes it: a Deployment whose Service targets a port it declares by name
// and one it does not declare (a metrics port), a budget and an autoscaler.
const ruleCostService = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: catalog-scheduler
  namespace: catalog-scheduler
  labels: {app.kubernetes.io/name: catalog-scheduler, app.kubernetes.io/component: server}
spec:
  replicas: 3
  revisionHistoryLimit: 8
  progressDeadlineSeconds: 600
  minReadySeconds: 5
  selector:
    matchLabels: {app.kubernetes.io/name: catalog-scheduler, app.kubernetes.io/component: server}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}
  template:
    metadata:
      labels: {app.kubernetes.io/name: catalog-scheduler, app.kubernetes.io/component: server}
    spec:
      containers:
      - name: catalog-scheduler
        image: registry.example.com/catalog-scheduler:1.12.3
        ports:
        - {containerPort: 8080, name: http}
        env:
        - {name: PORT, value: "8080"}
        resources:
          requests: {cpu: 50m, memory: 64Mi}
          limits: {memory: 512Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: http}
---
apiVersion: v1
kind: Service
metadata:
  name: catalog-scheduler
  namespace: catalog-scheduler
spec:
  selector: {app.kubernetes.io/name: catalog-scheduler, app.kubernetes.io/component: server}
  ports:
  - {name: http, port: 80, targetPort: http}
  - {name: metrics, port: 9090, targetPort: 9090}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: catalog-scheduler
  namespace: catalog-scheduler
spec:
  minAvailable: 2
  selector:
    matchLabels: {app.kubernetes.io/name: catalog-scheduler}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: catalog-scheduler
  namespace: catalog-scheduler
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: catalog-scheduler}
  minReplicas: 2
  maxReplicas: 6
`

// ruleCostObjects decodes ruleCostService as lint hands it to the rules:
// the JSON as written (manifest.Parse, lint's loader), the typed and
// defaulted object and its JSON from the API tier.
func ruleCostObjects(tb testing.TB) []rules.Object {
	tb.Helper()
	set := manifest.Parse("service.yaml", []byte(ruleCostService))
	if len(set.Problems) > 0 {
		tb.Fatal(set.Problems)
	}
	api := apicheck.New()
	var out []rules.Object
	for _, o := range set.Objects {
		res := api.Check(context.Background(), apicheck.Object{APIVersion: o.APIVersion, Kind: o.Kind,
			Namespace: o.Namespace, Name: o.Name, JSON: o.JSON}, apicheck.Options{})
		if len(res.Issues) > 0 || res.Versioned == nil {
			tb.Fatalf("%s %s: %v", o.Kind, o.Name, res.Issues)
		}
		out = append(out, rules.Object{JSON: o.JSON, Defaulted: res.Versioned, Namespace: o.Namespace, Versioned: res.Versioned})
	}
	return out
}

// BenchmarkRuleCost is the time of the built-in rules on one object of each
// kind of ruleCostService, in each pass: every default rule together
// ("all"), then each rule that reports on the kind alone. The cross-resource
// rules run against the four objects' inventory. It shows where the rules'
// time goes per object (bench/README.md).
func BenchmarkRuleCost(b *testing.B) {
	objects := ruleCostObjects(b)
	entries := make([]*rules.Entry, len(objects))
	for i, o := range objects {
		entries[i] = rules.NewEntry(o)
	}
	index := rules.NewIndex(entries)
	for i, o := range objects {
		e := entries[i]
		for _, cross := range []bool{false, true} {
			pass := "local"
			if cross {
				pass = "cross"
			}
			ids := []string{"all"}
			for _, g := range rules.BuiltinRules() {
				if !g.Meta.OptIn && (g.Cross != nil) == cross && (len(g.Meta.Kinds) == 0 || slices.Contains(g.Meta.Kinds, e.Kind)) {
					ids = append(ids, g.Meta.ID)
				}
			}
			for _, id := range ids {
				run := rules.NewRunner(func(rule string) bool { return rules.OptIn(rule) || (id != "all" && rule != id) })
				b.Run(pass+"/"+e.Kind+"/"+strings.ReplaceAll(id, "/", ":"), func(b *testing.B) {
					var found []rules.Finding
					for b.Loop() {
						if cross {
							found = run.EvalCross(&rules.CrossContext{Self: e, NS: index.Namespace(e.Namespace)})
						} else {
							found = run.Eval(&rules.ObjectContext{Object: o.Versioned, JSON: o.JSON, Kind: e.Kind,
								APIVersion: e.APIVersion, Name: e.Name, Namespace: e.Namespace, Key: e.Key,
								Deployment: rules.DeploymentFactsOf(o.Versioned)})
						}
					}
					b.ReportMetric(float64(len(found)), "findings")
				})
			}
		}
	}
}
