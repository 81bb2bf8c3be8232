package userpolicy_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// hostilePolicies holds the policies the sandbox must contain.
const hostilePolicies = "../../testdata/hostile/policies/"

var sandboxObject = rules.Object{Namespace: "default", JSON: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)}

func TestSandboxRefusesCapabilities(t *testing.T) {
	tests := []struct {
		name, policy, want string
	}{
		{name: "opa.runtime", policy: "runtime.rego", want: "runtime.rego:7: opa.runtime is not allowed"},
		{name: "net.*", policy: "dns.rego", want: "dns.rego:7: net.lookup_ip_addr is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := userpolicy.New(userpolicy.Options{Policies: []string{hostilePolicies + tt.policy}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("userpolicy.New(%s) error = %v, want it to contain %q", tt.policy, err, tt.want)
			}
		})
	}
}

// evalPolicy evaluates one policy file on sandboxObject, twice, as lint
// would on two objects.
func evalPolicy(t *testing.T, opts userpolicy.Options) (first, second []rules.Finding, errFirst, errSecond error) {
	t.Helper()
	e, err := userpolicy.New(opts)
	if err != nil {
		t.Fatalf("userpolicy.New(%+v): %v", opts, err)
	}
	run, err := e.Prepare(context.Background())
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	first, errFirst = run.Eval(context.Background(), sandboxObject)
	second, errSecond = run.Eval(context.Background(), sandboxObject)
	return first, second, errFirst, errSecond
}

func userFindings(fs []rules.Finding) []string {
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f.RuleID, "policy/") {
			out = append(out, f.RuleID+": "+f.Message)
		}
	}
	return out
}

// TestSandboxMemoryGuard runs a policy whose comprehension is unbounded: it
// must be stopped with an error naming the policy, the heap must come back
// down, and the same file's other rule must still report.
func TestSandboxMemoryGuard(t *testing.T) {
	const budget = 64 << 20
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// The timeout is far beyond what the guard needs: only memory may stop it.
	first, second, err, err2 := evalPolicy(t, userpolicy.Options{Policies: []string{hostilePolicies + "unbounded.rego"},
		PolicyMemory: budget, PolicyTimeout: time.Hour})
	if !errors.Is(err, userpolicy.ErrPolicyMemory) {
		t.Fatalf("Eval() error = %v, want %v", err, userpolicy.ErrPolicyMemory)
	}
	for _, w := range []string{"policy policy/main/deny", "unbounded.rego:7", "used too much memory (over 64 MiB)"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Eval() error = %q, want it to contain %q", err, w)
		}
	}
	want := "policy/main/warn: team label missing"
	if got := userFindings(first); strings.Join(got, "\n") != want {
		t.Errorf("Eval() findings = %q, want %q", got, want)
	}
	// The stopped rule is skipped on the next object: no second error.
	if err2 != nil {
		t.Errorf("second Eval() error = %v, want nil (the stopped policy is skipped)", err2)
	}
	if got := userFindings(second); strings.Join(got, "\n") != want {
		t.Errorf("second Eval() findings = %q, want %q", got, want)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// The guard stops the policy near the budget; whatever it had built
	// must never approach a gigabyte.
	if after.HeapSys > 1<<30 {
		t.Errorf("HeapSys = %d MiB after the policy, want well under 1 GiB", after.HeapSys>>20)
	}
}

// TestSandboxTimeout runs a policy that burns CPU without holding memory.
func TestSandboxTimeout(t *testing.T) {
	_, _, err, err2 := evalPolicy(t, userpolicy.Options{Policies: []string{hostilePolicies + "spin.rego"},
		PolicyTimeout: 200 * time.Millisecond})
	if !errors.Is(err, userpolicy.ErrPolicyTimeout) {
		t.Fatalf("Eval() error = %v, want %v", err, userpolicy.ErrPolicyTimeout)
	}
	for _, w := range []string{"policy policy/main/deny", "spin.rego:7", "timed out (after 200ms)"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Eval() error = %q, want it to contain %q", err, w)
		}
	}
	if err2 != nil {
		t.Errorf("second Eval() error = %v, want nil (the stopped policy is skipped)", err2)
	}
}

// TestSandboxChargesNoOtherWorker evaluates a correct policy, then the unbounded one, while
// two other workers allocate heavily, holding the engine as lint's loaders do (Hold) and
// keeping 1 MiB after another, up to 128 MiB each, far past the 16 MiB budget. The guarded
// evaluations run alone: the correct policy is never stopped, and the unbounded one still is.
// (Without the exclusive hold, the workers' memory is charged to the correct policy.)
func TestSandboxChargesNoOtherWorker(t *testing.T) {
	const budget = 16 << 20
	ctx := context.Background()
	eval := func(policy string, objects int) (found int, err error) {
		e, err := userpolicy.New(userpolicy.Options{Policies: []string{policy}, PolicyMemory: budget, PolicyTimeout: time.Hour})
		if err != nil {
			t.Fatalf("userpolicy.New(%s): %v", policy, err)
		}
		run, err := e.Prepare(ctx)
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				var kept [][]byte
				for {
					select {
					case <-stop:
						return
					default:
					}
					release := e.Hold()
					b := make([]byte, 1<<20)
					for i := range b {
						b[i] = 1
					}
					kept = append(kept, b)
					release()
					if len(kept) == 128 {
						<-stop // keeps its 128 MiB to the end
						return
					}
				}
			})
		}
		defer func() { close(stop); wg.Wait() }()
		for range objects {
			fs, err := run.Eval(ctx, sandboxObject)
			found += len(userFindings(fs))
			if err != nil {
				return found, err
			}
		}
		return found, nil
	}
	if found, err := eval("testdata/policies/busy.rego", 8); err != nil || found != 8 {
		t.Errorf("correct policy on 8 objects while others allocate: %d findings, error %v; want 8 findings, no error", found, err)
	}
	if _, err := eval(hostilePolicies+"unbounded.rego", 1); !errors.Is(err, userpolicy.ErrPolicyMemory) {
		t.Errorf("unbounded policy while others allocate: error %v, want %v", err, userpolicy.ErrPolicyMemory)
	}
}
