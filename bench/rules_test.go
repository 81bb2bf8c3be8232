package bench

import (
	"context"
	"encoding/json"
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
// the JSON as written (manifest.Parse, lint's loader), the defaulted JSON
// and the facts from the API tier.
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
		defaulted, err := json.Marshal(res.Versioned)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, rules.Object{JSON: o.JSON, Defaulted: defaulted, Namespace: o.Namespace,
			Facts: rules.Facts(res.Versioned)})
	}
	return out
}

// BenchmarkRuleCost is the Rego time of one object of each kind of
// ruleCostService, in each pass: every default rule together ("all"), then
// each rule that can report on the kind alone. A rule alone also pays what
// it shares with others (the library's helpers, the inventory lookups),
// which "all" pays once, so the parts add up to more than the whole. It
// shows where the Rego tier's time goes per object (bench/README.md).
func BenchmarkRuleCost(b *testing.B) {
	objects := ruleCostObjects(b)
	engine, err := rules.New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	all, err := engine.Rules()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	inv := rules.NewInventory(objects)
	for _, o := range objects {
		in, err := rules.NewInput(o)
		if err != nil {
			b.Fatal(err)
		}
		ci := in.Cross()
		kind := ci.Kind()
		for _, cross := range []bool{false, true} {
			pass := "local"
			if cross {
				pass = "cross"
			}
			ids := []string{"all"}
			for _, r := range all {
				if !engine.OptIn(r.ID) && engine.CrossResource(r.ID) == cross && engine.Evaluates(r.ID, kind) {
					ids = append(ids, r.ID)
				}
			}
			for _, id := range ids {
				off := func(rule string) bool { return engine.OptIn(rule) || (id != "all" && rule != id) }
				b.Run(pass+"/"+kind+"/"+strings.ReplaceAll(id, "/", ":"), func(b *testing.B) {
					var eval func() ([]rules.Finding, error)
					if cross {
						run, err := engine.PrepareCross(ctx, inv, off)
						if err != nil {
							b.Fatal(err)
						}
						eval = func() ([]rules.Finding, error) { return run.EvalCross(ctx, &ci) }
					} else {
						run, err := engine.PrepareLocal(ctx, off)
						if err != nil {
							b.Fatal(err)
						}
						eval = func() ([]rules.Finding, error) { return run.EvalInput(ctx, in) }
					}
					var found []rules.Finding
					for b.Loop() {
						if found, err = eval(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(found)), "findings")
				})
			}
		}
	}
}
