package userpolicy_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
)

// TestUserPoliciesRefused: policies that reach for built-in state, the
// network, the clock or an invalid pattern are refused when compiled, with
// an error naming the file and row.
func TestUserPoliciesRefused(t *testing.T) {
	tests := []struct {
		policy string
		want   []string
	}{
		{"reserved-lib.rego", []string{"reserved-lib.rego:2: package kubectl_workload.lib is reserved for built-in rules"}},
		{"reserved-head.rego", []string{"reserved-head.rego:2: package kubectl_workload is reserved for built-in rules"}},
		{"reads-builtin.rego", []string{"reads-builtin.rego:7: data.kubectl_workload.inventory.namespaces is reserved for built-in rules"}},
		{"schema-ref.rego", []string{"schema-ref.rego:10: json.match_schema is not allowed: a schema's $ref may be fetched from the network or a local file"}},
		{"now.rego", []string{"now.rego:7: time.now_ns is not allowed: its result changes from run to run"}},
		{"template.rego", []string{"template.rego:7: strings.render_template is not allowed"}},
		{"regex-invalid.rego", []string{`regex-invalid.rego:8: regex.match: invalid regular expression "^(nginx"`}},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			_, err := userpolicy.New(userpolicy.Options{Policies: []string{hostilePolicies + tt.policy}})
			if err == nil {
				t.Fatalf("userpolicy.New(%s) error = nil, want %q", tt.policy, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("userpolicy.New(%s) error = %q, want it to contain %q", tt.policy, err, w)
				}
			}
			if strings.Contains(err.Error(), "kubectl_workload_bounded") {
				t.Errorf("userpolicy.New(%s) error = %q names the bounded built-ins' internal name", tt.policy, err)
			}
		})
	}
}

// TestUserPolicySchemaRefsNoNetwork: no schema of a policy is resolved, so
// a local server never hears from one, whether the $ref is in the policy
// or in the manifest.
func TestUserPolicySchemaRefsNoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	for name, call := range map[string]string{"match.rego": "json.match_schema(input, schema)", "verify.rego": "json.verify_schema(schema)"} {
		src := "package main\n\nimport rego.v1\n\ndeny contains \"x\" if {\n\tschema := {\"$ref\": \"" + srv.URL + "/s.json\"}\n\t[ok, _] := " + call + "\n\tnot ok\n}\n"
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := userpolicy.New(userpolicy.Options{Policies: []string{p}}); err == nil || !strings.Contains(err.Error(), "is not allowed") {
			t.Errorf("userpolicy.New(%s) error = %v, want the schema built-in refused", name, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the local server received %d requests, want 0", n)
	}
}

// TestUserPolicyBoundedBuiltins: one built-in call that would allocate far
// past the memory budget, or a pattern that does not compile, is an error
// naming the policy's file and row, at once; the file's other rule still
// reports.
func TestUserPolicyBoundedBuiltins(t *testing.T) {
	tests := []struct {
		policy, want string
		other        bool // the file has a warn rule that must still report
	}{
		{policy: "lsh.rego", want: "lsh.rego:7: eval_builtin_error: bits.lsh: a shift by 1000000000000 bits", other: true},
		{policy: "replace.rego", want: "replace.rego:9: eval_builtin_error: replace: the result would be 1966", other: true},
		{policy: "sprintf-width.rego", want: "sprintf-width.rego:7: eval_builtin_error: sprintf: a width or precision of 999999999"},
		{policy: "regex-dynamic.rego", want: `regex-dynamic.rego:8: eval_builtin_error: regex.match: invalid regular expression "^(c"`},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			start := time.Now()
			first, _, err, _ := evalPolicy(t, userpolicy.Options{Policies: []string{hostilePolicies + tt.policy}, PolicyTimeout: time.Minute})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Eval(%s) error = %v, want it to contain %q", tt.policy, err, tt.want)
			}
			if strings.Contains(err.Error(), "kubectl_workload_bounded") {
				t.Errorf("Eval(%s) error = %q names the bounded built-ins' internal name", tt.policy, err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("Eval(%s) took %s, want a few seconds at most", tt.policy, d)
			}
			if got := strings.Join(userFindings(first), "; "); tt.other && got != "policy/main/warn: team label missing" {
				t.Errorf("Eval(%s) user findings = %q, want the warn rule's", tt.policy, got)
			}
		})
	}
}

// TestUserPolicyBoundedBuiltinsStillWork: the bounded built-ins give OPA's
// answers within their bounds, and OPA's own errors stay undefined.
func TestUserPolicyBoundedBuiltinsStillWork(t *testing.T) {
	src := `package main

import rego.v1

deny contains msg if {
	msg := concat(",", [
		format_int(bits.lsh(3, 4), 10),
		replace("a-b-c", "-", "+"),
		strings.replace_n({"a": "x", "b": "yy"}, "abc"),
		sprintf("%05d|%.2f", [42, 1.5]),
		json.marshal_with_options({"a": 1}, {"indent": "  ", "pretty": true}),
		concat("/", split("a.b.c", ".")),
		regex.replace("a1b22", "[0-9]+", "#"),
		concat("/", regex.split("[,;]", "a,b;c")),
		sprintf("%v", [regex.match("^c$", input.metadata.name)]),
	])
}

deny contains "never" if {
	# OPA's own error (a negative shift): undefined, as before.
	bits.lsh(1, -1)
}
`
	p := filepath.Join(t.TempDir(), "ok.rego")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	first, _, err, _ := evalPolicy(t, userpolicy.Options{Policies: []string{p}})
	if err != nil {
		t.Fatalf("Eval(ok.rego) error = %v", err)
	}
	want := "policy/main/deny: 48,a+b+c,xyyc,00042|1.50,{\n  \"a\": 1\n},a/b/c,a#b#,a/b/c,true"
	if got := strings.Join(userFindings(first), "; "); got != want {
		t.Errorf("Eval(ok.rego) user findings = %q, want %q", got, want)
	}
}

// TestUserPolicyFiles: a policy file that is a FIFO, /dev/zero, a link out
// of its directory or over MaxPolicyFileSize is an error naming it, at once.
func TestUserPolicyFiles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.rego")
	if err := os.WriteFile(outside, []byte("root:x:0:0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.rego"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero.rego": "/dev/zero", "out.rego": outside} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	big := filepath.Join(t.TempDir(), "big.rego")
	if err := os.WriteFile(big, []byte("package main\n"+strings.Repeat("#\n", userpolicy.MaxPolicyFileSize/2)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want []string
	}{
		{dir, []string{"fifo.rego is a named pipe (FIFO), not a regular file", "zero.rego is a symbolic link to /dev/zero, outside " + dir,
			"out.rego is a symbolic link to " + outside + ", outside " + dir}},
		{filepath.Join(dir, "fifo.rego"), []string{"fifo.rego is a named pipe (FIFO), not a regular file"}},
		{"/dev/zero", []string{"/dev/zero is a character device, not a regular file"}},
		{big, []string{"big.rego is 1048589 bytes, more than 1048576"}},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() {
			_, err := userpolicy.New(userpolicy.Options{Policies: []string{tt.path}})
			done <- err
		}()
		select {
		case err := <-done:
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("userpolicy.New(%s) error = %v, want it to contain %q", tt.path, err, w)
				}
			}
			if err != nil && strings.Contains(err.Error(), "root:x") {
				t.Errorf("userpolicy.New(%s) error = %q shows the content of a file outside the policies", tt.path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("userpolicy.New(%s) still running after 10s", tt.path)
		}
	}
}

// TestUserPolicyOwnWorld: a user policy sees nothing of the run's inventory
// or the built-in rules, and cannot change their findings.
func TestUserPolicyOwnWorld(t *testing.T) {
	src := `package main

import rego.v1

deny contains "sees data" if {
	some name in ["kubectl_workload", "inventory", "namespaces"]
	data[name]
}
`
	p := filepath.Join(t.TempDir(), "world.rego")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := userpolicy.New(userpolicy.Options{Policies: []string{p}})
	if err != nil {
		t.Fatalf("userpolicy.New: %v", err)
	}
	run, err := e.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fs, err := run.Eval(context.Background(), sandboxObject)
	if err != nil {
		t.Fatal(err)
	}
	if got := userFindings(fs); len(got) != 0 {
		t.Errorf("Eval user findings = %q, want none (data holds only the policy's own package)", got)
	}
}
