package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// policyFixtureDir holds ValidatingAdmissionPolicies with their bindings, params and
// Namespaces (policies.yaml), and the workloads put to them (workloads.yaml).
const policyFixtureDir = "testdata/policies"

// vapWarningPrefix starts every warning of a Warn binding.
const vapWarningPrefix = "Validation failed for ValidatingAdmissionPolicy "

// TestDifferentialAdmissionPolicies creates the policies, bindings, params and Namespaces
// in a real v1.37.1 API server, puts every workload to it as a dry-run create, and to
// `kubectl-workload lint --policies-from`: the verdict (refused, warned, accepted), the
// denial's message and the Warn bindings' warnings must be the server's.
func TestDifferentialAdmissionPolicies(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	policies := filepath.Join(policyFixtureDir, "policies.yaml")
	workloads := filepath.Join(policyFixtureDir, "workloads.yaml")
	if out, err := c.Kubectl(ctx, "apply", "-f", policies); err != nil {
		t.Fatalf("create the policies: %v\n%s", err, out)
	}
	// The cluster is shared: the policies go when the test ends (their bindings select
	// only this test's Namespaces meanwhile).
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, args := range [][]string{
			{"validatingadmissionpolicybindings", "replica-limit-test", "team-label", "registry-warn", "no-latest", "job-parallelism"},
			{"validatingadmissionpolicies", "replica-limit", "team-label", "registry", "no-latest", "job-parallelism"},
		} {
			if out, err := c.Kubectl(ctx, append([]string{"delete", "--ignore-not-found"}, args...)...); err != nil {
				t.Errorf("delete the policies: %v\n%s", err, out)
			}
		}
	})
	// No service account controller runs: a Pod needs its account as in a real cluster.
	for _, ns := range []string{"vap-default", "vap-test", "vap-prod"} {
		if err := c.EnsureNamespace(ctx, ns, "default"); err != nil {
			t.Fatal(err)
		}
	}
	oracle, err := c.NewOracle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(workloads)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := splitYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	// The server's policy source and param informers sync in the background: wait
	// until every binding is in force, seen from an object each one refuses.
	waitStart := time.Now()
	deadline := waitStart.Add(3 * time.Minute)
	defer func() {
		t.Logf("waited %s for the policies to be in force", time.Since(waitStart).Round(time.Millisecond))
	}()
	for _, probe := range []int{1, 11, 14, 16, 20} {
		for {
			v, err := oracle.DryRunCreate(ctx, docs[probe])
			if err != nil {
				t.Fatal(err)
			}
			if v.Rejected {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("document %d of %s is still accepted three minutes after the policies were created", probe, workloads)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	report := lintCustom(t, ctx, plugin, "--policies-from", policies, workloads)
	var denied, warned int
	for i, doc := range docs {
		v, err := oracle.DryRunCreate(ctx, doc)
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		p := report.object(workloads, i)
		var lintDenied []string
		var lintWarned []string
		for _, f := range p.report.Findings {
			switch {
			case f.Rule == "admission/policy-deny":
				lintDenied = append(lintDenied, f.Message)
			case f.Rule == "admission/policy-warn":
				lintWarned = append(lintWarned, f.Message)
			}
		}
		serverWarned := []string{}
		for _, w := range v.Warnings {
			if strings.HasPrefix(w, vapWarningPrefix) {
				serverWarned = append(serverWarned, w)
			}
		}
		switch {
		case v.Rejected && strings.Contains(v.Message, "ValidatingAdmissionPolicy"):
			denied++
			if len(lintDenied) != 1 || lintDenied[0] != v.Message {
				t.Errorf("document %d: server refused: %q; lint: %q", i, v.Message, lintDenied)
			}
		case v.Rejected:
			if !p.rejects() || len(lintDenied) > 0 {
				t.Errorf("document %d: server refused in validation: %q; lint: %s, policies %q", i, v.Message, formatFindings(p.apiErrors), lintDenied)
			}
		default:
			if p.rejects() || len(lintDenied) > 0 {
				t.Errorf("document %d: server accepted; lint: %s, policies %q", i, formatFindings(p.apiErrors), lintDenied)
			}
		}
		if len(serverWarned) > 0 {
			warned++
		}
		if !slices.Equal(sorted(serverWarned), sorted(lintWarned)) {
			t.Errorf("document %d: server warned %q; lint warned %q", i, serverWarned, lintWarned)
		}
	}
	t.Logf("%d workloads: %d refused by a policy, %d warned; lint agreed", len(docs), denied, warned)
	if len(docs) < 20 || denied < 6 || warned < 2 {
		t.Errorf("%d workloads, %d refused, %d warned: the fixtures should exercise Deny and Warn", len(docs), denied, warned)
	}
}
