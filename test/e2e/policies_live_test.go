package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
)

// policiesLiveNamespace holds the objects of TestAdmissionPoliciesAgainstLive; its
// bindings select only this namespace, so that no other test meets its policies.
const policiesLiveNamespace = "vap-live"

// policiesLive are the cluster's policies: one that refuses to scale a Deployment down (an
// UPDATE, with oldObject), and one that warns above the replicas a ConfigMap named limits
// in the object's namespace allows (a paramRef by name, the ConfigMap in the cluster only).
const policiesLive = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-no-scale-down
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas >= oldObject.spec.replicas"
    messageExpression: "'replicas may not go down from ' + string(oldObject.spec.replicas) + ' to ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-no-scale-down
spec:
  policyName: e2e-no-scale-down
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: vap-live}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-replicas-limit
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'at most ' + params.data.maxReplicas + ' replicas'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-replicas-limit
spec:
  policyName: e2e-replicas-limit
  paramRef:
    name: limits
    parameterNotFoundAction: Deny
  validationActions: [Warn]
  matchResources:
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: vap-live}
`

// policiesLiveDeployment is a Deployment of policiesLiveNamespace with replicas and name.
func policiesLiveDeployment(name string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  namespace: %s
spec:
  replicas: %d
  selector:
    matchLabels: {app: %s}
  template:
    metadata:
      labels: {app: %s}
    spec:
      containers:
      - name: web
        image: registry.example/web:1.0
`, name, policiesLiveNamespace, replicas, name, name)
}

// TestAdmissionPoliciesAgainstLive: the cluster holds a Deployment with 5 replicas, a
// ConfigMap of params, and two policies with their bindings. For each file, kubectl apply
// --dry-run=server as the administrator and lint --against-live as a read-only user (the
// view role, and get and list on the admission policies) must agree: refused exactly when
// lint reports admission/policy-deny with a message the server's answer holds, and the
// same warnings. The Deployment the cluster holds is admitted as an UPDATE, with the
// stored object as oldObject; the others as a CREATE; the params come from the cluster.
// lint --live warns of the cluster's Deployment above the limit, as kubectl replace
// --dry-run=server of it as it is does. The user sends get and list requests only.
func TestAdmissionPoliciesAgainstLive(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := c.EnsureNamespace(ctx, policiesLiveNamespace); err != nil {
		t.Fatal(err)
	}
	// big is created before the policies, which would warn of it now.
	state := write("state.yaml", policiesLiveDeployment("web", 5)+"---\n"+policiesLiveDeployment("big", 8)+`---
apiVersion: v1
kind: ConfigMap
metadata:
  name: limits
  namespace: `+policiesLiveNamespace+`
data:
  maxReplicas: "6"
`)
	if out, err := c.Kubectl(ctx, "apply", "-f", state); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", state, err, out)
	}
	policies := write("policies.yaml", policiesLive)
	if out, err := c.Kubectl(ctx, "apply", "-f", policies); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", policies, err, out)
	}
	// The policies stay in the shared cluster (their bindings select only namespace
	// vap-live). Deleting them made the real v1.37.1 API server stop finding ConfigMap
	// params for the ConfigMap-param policies TestDifferentialAdmissionPolicies creates
	// next: its job-parallelism binding (parameterNotFoundAction Allow) still allowed
	// every Job three minutes later, in every run that followed this test.
	rules, err := viewRules(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"admissionregistration.k8s.io"}, Verbs: []string{"get", "list"},
		Resources: []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings"}})
	reader, err := c.CreateUser(ctx, "vap-reader", "vap-reader", rules)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		// refused: the server's verdict, which the test also asserts, so that a policy the
		// server no longer applies fails here rather than passing on both sides.
		refused bool
		warned  bool
	}{
		{name: "scale down: an UPDATE, refused by oldObject", file: policiesLiveDeployment("web", 4), refused: true},
		{name: "scale up above the cluster's limit: warned", file: policiesLiveDeployment("web", 7), warned: true},
		{name: "unchanged", file: policiesLiveDeployment("web", 5)},
		{name: "a new Deployment: a CREATE, no oldObject", file: policiesLiveDeployment("fresh", 2)},
		{name: "a new Deployment above the limit: warned", file: policiesLiveDeployment("fresh", 9), warned: true},
	}
	// The API server's policy informers take a moment to see new policies: wait until the
	// first case is refused.
	first := write("first.yaml", tests[0].file)
	for {
		if _, err := c.Kubectl(ctx, "apply", "--dry-run=server", "-f", first); err != nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the API server never applied the policies: %v", ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
	env := &liveEnv{bin: plugin, dir: dir}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(fmt.Sprintf("case-%d.yaml", i), tt.file)
			out, err := c.Kubectl(ctx, "apply", "--dry-run=server", "-f", path)
			server := string(out)
			if refused := err != nil; refused != tt.refused {
				t.Fatalf("kubectl apply --dry-run=server: refused %v, want %v:\n%s", refused, tt.refused, server)
			}
			var serverWarnings []string
			for _, l := range strings.Split(server, "\n") {
				if w, ok := strings.CutPrefix(l, "Warning: "); ok {
					serverWarnings = append(serverWarnings, w)
				}
			}
			if (len(serverWarnings) > 0) != tt.warned {
				t.Fatalf("kubectl apply --dry-run=server: warnings %q, want warned %v", serverWarnings, tt.warned)
			}
			r := env.run(t, reader.Kubeconfig, "lint", "-o", "json", "--against-live", "-f", path)
			if r.code != 0 && r.code != 1 {
				t.Fatalf("lint exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			var rep struct {
				Findings []lintFinding `json:"findings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("-o json: %v\n%s", err, r.stdout)
			}
			var denied bool
			var warnings []string
			for _, f := range rep.Findings {
				switch f.Rule {
				case "admission/policy-deny":
					denied = true
					// lint's message is the server's status message ("deployments.apps
					// \"web\" is forbidden: ValidatingAdmissionPolicy ..."); a policy
					// whose validation sets no reason answers 422 Invalid, which kubectl
					// prints from the status cause ("The deployments \"web\" is invalid:
					// : ValidatingAdmissionPolicy ..."): the policy's words must match.
					_, words, ok := strings.Cut(f.Message, " is forbidden: ")
					if !ok || !strings.Contains(server, ": "+words) {
						t.Errorf("lint: %s\nis not in the server's answer:\n%s", f.Message, server)
					}
				case "admission/policy-warn":
					warnings = append(warnings, f.Message)
				}
			}
			if denied != tt.refused {
				t.Errorf("lint denied %v, the server refused %v:\nserver: %s\nlint: %s", denied, tt.refused, server, r.stdout)
			}
			if !slices.Equal(sorted(warnings), sorted(serverWarnings)) {
				t.Errorf("lint warned %q, the server %q", warnings, serverWarnings)
			}
		})
	}
	// lint --live: the cluster's policies judge its objects as their next write, a no-op
	// update, which kubectl replace --dry-run=server of the object as it is asks the server.
	t.Run("lint --live: the cluster's objects as their next write", func(t *testing.T) {
		current, err := c.Kubectl(ctx, "get", "deployment", "big", "-n", policiesLiveNamespace, "-o", "yaml")
		if err != nil {
			t.Fatalf("kubectl get deployment big: %v\n%s", err, current)
		}
		out, err := c.Kubectl(ctx, "replace", "--dry-run=server", "-f", write("big.yaml", string(current)))
		if err != nil {
			t.Fatalf("kubectl replace --dry-run=server: %v\n%s", err, out)
		}
		var serverWarnings []string
		for _, l := range strings.Split(string(out), "\n") {
			if w, ok := strings.CutPrefix(l, "Warning: "); ok {
				serverWarnings = append(serverWarnings, w)
			}
		}
		if len(serverWarnings) != 1 {
			t.Fatalf("kubectl replace --dry-run=server of Deployment big: warnings %q, want one", serverWarnings)
		}
		r := env.run(t, reader.Kubeconfig, "lint", "--live", "-n", policiesLiveNamespace, "-o", "json")
		if r.code != 0 && r.code != 1 {
			t.Fatalf("lint --live exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		var rep struct {
			Findings []lintFinding `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("-o json: %v\n%s", err, r.stdout)
		}
		got := map[string][]string{}
		for _, f := range rep.Findings {
			if strings.HasPrefix(f.Rule, "admission/") && f.Object != nil {
				got[f.Object.Name] = append(got[f.Object.Name], f.Rule+": "+f.Message)
			}
		}
		want := map[string][]string{"big": {"admission/policy-warn: " + serverWarnings[0]}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("lint --live admission findings = %q, want %q (the server's warning on big, nothing on web)", got, want)
		}
	})
	events, err := c.AuditEvents(reader.Username)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if !slices.Contains(ReadVerbs, e.Verb) {
			t.Errorf("audit log: %s sent %s %s: want only %v", reader.Username, e.Verb, e.RequestURI, ReadVerbs)
		}
	}
	if len(events) == 0 {
		t.Errorf("audit log: no request from %s (is the audit log read?)", reader.Username)
	}
}
