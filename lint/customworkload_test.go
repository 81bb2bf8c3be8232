package lint

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// TestCustomWorkloads: the pod templates of custom workloads get the pod-level rules and
// the Pod Security checks at their own lines, worded as advice about the pods (the API
// server never checks a custom resource's template); a Rollout with workloadRef has no
// template, an OpenKruise CloneSet is known, a kind of one's own is checked only when the
// configuration names its templates, and a Rollout its CRD rejects is not checked further.
func TestCustomWorkloads(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	const dir = "testdata/customworkload/"
	batches := &config.File{CustomWorkloads: []config.CustomWorkload{
		{APIGroup: "example.com", Kind: "Batch", Templates: []string{"spec.jobs[*].template"}}}}
	clones := []string{
		`workloads.yaml:91:9 warning resources/memory-limit-missing spec.template.spec.containers[0].resources: container "clones" has no memory limit: it may use all the memory of its node, and when the node runs out, other pods are killed or evicted with it`,
		`workloads.yaml:91:9 warning resources/requests-missing spec.template.spec.containers[0].resources: container "clones" requests no cpu and no memory (and sets no limit the API server would default it from): the scheduler places it as if it needed none, and the kubelet evicts it first under memory pressure`,
	}
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{name: "no namespace labels: each failing check",
			opts: Options{Paths: []string{dir + "workloads.yaml"}},
			want: append([]string{
				`workloads.yaml:20:11 warning pss/baseline spec.template.spec.containers[0].securityContext.privileged: privileged (container "web" must not set securityContext.privileged=true): forbidden by the baseline Pod Security Standard (in the pods made from this Rollout's template, which the API server does not check)`,
				`workloads.yaml:21:9 warning resources/memory-limit-missing spec.template.spec.containers[0].resources: container "web" has no memory limit: it may use all the memory of its node, and when the node runs out, other pods are killed or evicted with it`,
				`workloads.yaml:69:9 warning pss/baseline spec.templates[1].template.spec.hostNetwork: host namespaces (hostNetwork=true): forbidden by the baseline Pod Security Standard (in the pods made from this Experiment's template, which the API server does not check)`,
			}, clones...)},
		{name: "enforce label: an error about the pods, not an API rejection",
			opts: Options{Paths: []string{dir + "workloads.yaml", dir + "namespace.yaml"}},
			want: append([]string{
				`workloads.yaml:20:11 error pss/enforce spec.template.spec.containers[0].securityContext.privileged: pods made from this template would violate PodSecurity "baseline:latest": privileged (container "web" must not set securityContext.privileged=true); the API server accepts the Rollout (Pod Security admission does not check custom resources), but namespace shop refuses every pod made from it (enforce=baseline), so its rollout never makes progress`,
				`workloads.yaml:21:9 warning resources/memory-limit-missing spec.template.spec.containers[0].resources: container "web" has no memory limit: it may use all the memory of its node, and when the node runs out, other pods are killed or evicted with it`,
				`workloads.yaml:69:9 error pss/enforce spec.templates[1].template.spec.hostNetwork: pods made from this template would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true); the API server accepts the Experiment (Pod Security admission does not check custom resources), but namespace shop refuses every pod made from it (enforce=baseline), so its rollout never makes progress`,
			}, clones...)},
		{name: "configured Batch template",
			opts: Options{Paths: []string{dir + "workloads.yaml"}, Settings: batches},
			want: append([]string{
				`workloads.yaml:20:11 warning pss/baseline spec.template.spec.containers[0].securityContext.privileged: privileged (container "web" must not set securityContext.privileged=true): forbidden by the baseline Pod Security Standard (in the pods made from this Rollout's template, which the API server does not check)`,
				`workloads.yaml:21:9 warning resources/memory-limit-missing spec.template.spec.containers[0].resources: container "web" has no memory limit: it may use all the memory of its node, and when the node runs out, other pods are killed or evicted with it`,
				`workloads.yaml:69:9 warning pss/baseline spec.templates[1].template.spec.hostNetwork: host namespaces (hostNetwork=true): forbidden by the baseline Pod Security Standard (in the pods made from this Experiment's template, which the API server does not check)`,
			}, append(clones,
				`workloads.yaml:112:15 warning pss/baseline spec.jobs[0].template.spec.containers[0].securityContext.capabilities.add: non-default capabilities (container "step" must not include "NET_ADMIN" in securityContext.capabilities.add): forbidden by the baseline Pod Security Standard (in the pods made from this Batch's template, which the API server does not check)`)...)},
		{name: "a Rollout its CRD rejects",
			opts: Options{Paths: []string{dir + "workloads.yaml"}, CRDPaths: []string{dir + "crd.yaml"}},
			want: append([]string{
				`workloads.yaml:7:3 error api/invalid spec.replicas: spec.replicas: Invalid value: 3: spec.replicas in body should be less than or equal to 2`,
				`workloads.yaml:69:9 warning pss/baseline spec.templates[1].template.spec.hostNetwork: host namespaces (hostNetwork=true): forbidden by the baseline Pod Security Standard (in the pods made from this Experiment's template, which the API server does not check)`,
			}, clones...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Settings = withOldDefaults(opts.Settings)
			res := l.Run(context.Background(), opts)
			if len(res.Errors) > 0 {
				t.Fatalf("Run() errors = %v", res.Errors)
			}
			var got []string
			for _, f := range res.Findings {
				if f.Rule == "api/crd-missing" {
					continue
				}
				got = append(got, fmt.Sprintf("%s:%d:%d %s %s %s: %s", strings.TrimPrefix(f.File, dir), f.Line, f.Column, f.Severity, f.Rule, f.Field, f.Message))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Run() findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestFindTemplates: a template path reaches every item of a list marked [*], and
// nothing where the object has no such field or it holds no object.
func TestFindTemplates(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{
		"template":  map[string]any{"spec": map[string]any{}},
		"templates": []any{map[string]any{"template": map[string]any{}}, map[string]any{"name": "x"}, map[string]any{"template": "text"}, map[string]any{"template": map[string]any{}}},
	}}
	tests := []struct {
		path string
		want string
	}{
		{"spec.template", "spec.template"},
		{"spec.templates[*].template", "spec.templates[0].template spec.templates[3].template"},
		{"spec.missing", ""},
		{"spec.template.spec.containers[*]", ""},
		{"spec[*].template", ""},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range findTemplates(obj, tt.path) {
			got = append(got, p.path)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("findTemplates(%q) = %q, want %q", tt.path, strings.Join(got, " "), tt.want)
		}
	}
}

// TestCustomWorkloadLikeDeployment: a Rollout gets, on its template, exactly the findings
// of the pod-level rules and of Pod Security that a Deployment with the same template gets,
// at the same fields.
func TestCustomWorkloadLikeDeployment(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	template := `  template:
    metadata:
      labels: {app: web}
    spec:
      automountServiceAccountToken: true
      hostNetwork: true
      initContainers:
      - name: init
        image: busybox
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: IfNotPresent
        env:
        - {name: API_TOKEN, value: abc}
        ports: [{containerPort: 80, name: http}]
        livenessProbe: {httpGet: {port: metrics, path: /}}
        readinessProbe: {httpGet: {port: metrics, path: /}}
        resources:
          limits: {cpu: "1"}
        securityContext: {privileged: true, runAsUser: 0}
`
	dir := t.TempDir()
	write := func(name, head string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(head+template), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deployment := write("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n")
	rollout := write("rollout.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n")
	podLevel := map[string]bool{}
	for _, g := range rules.BuiltinRules() {
		if slices.Contains(g.Meta.Kinds, "PodTemplate") {
			podLevel[g.Meta.ID] = true
		}
	}
	settings := &config.File{Rules: config.Rules{Enable: []string{"*"}}}
	lines := func(path string) []string {
		res := l.Run(context.Background(), Options{Paths: []string{path}, Settings: settings})
		if len(res.Errors) > 0 {
			t.Fatalf("Run(%s) errors = %v", path, res.Errors)
		}
		var out []string
		for _, f := range res.Findings {
			if podLevel[f.Rule] || strings.HasPrefix(f.Rule, "pss/") {
				out = append(out, fmt.Sprintf("%d:%d %s %s", f.Line, f.Column, f.Rule, f.Field))
			}
		}
		return out
	}
	want, got := lines(deployment), lines(rollout)
	if len(want) < 8 {
		t.Fatalf("the Deployment has %d pod-level findings, want at least 8: the fixture no longer exercises the rules:\n%s", len(want), strings.Join(want, "\n"))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Rollout findings =\n%s\nwant the Deployment's\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
