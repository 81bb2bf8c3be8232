package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
)

// dottedPod draws exactly one api/warning (its name is not a DNS label), a
// finding that depends on nothing but the API server's code.
func dottedPod(name, annotations, templateless string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n" + annotations +
		"spec:\n  containers:\n  - name: c\n    image: busybox:1.36\n" + templateless
}

func TestIgnoreAnnotations(t *testing.T) {
	l := newTestLinter(t)
	tests := []struct {
		name   string
		doc    string
		noIgn  bool
		want   []string // rule [suppressed-kind]
		reason string
	}{
		{
			name: "ignored with a reason",
			doc:  dottedPod("a.b", "  annotations:\n    kubectl-workload/ignore: api/warning, kind/bare-pod\n    kubectl-workload/ignore-reason: hostname does not matter here\n", ""),
			want: []string{"api/warning [annotation]"}, reason: "hostname does not matter here",
		},
		{
			name: "every rule",
			doc:  dottedPod("a.b", "  annotations:\n    kubectl-workload/ignore: \"*\"\n    kubectl-workload/ignore-reason: scratch pod\n", ""),
			want: []string{"api/warning [annotation]"},
		},
		{
			name: "no reason: nothing is ignored",
			doc:  dottedPod("a.b", "  annotations:\n    kubectl-workload/ignore: api/warning\n", ""),
			want: []string{"api/warning", "ignore/no-reason"},
		},
		{
			name: "unknown rule",
			doc:  dottedPod("a.b", "  annotations:\n    kubectl-workload/ignore: api/warning,no/such-rule\n    kubectl-workload/ignore-reason: x\n", ""),
			want: []string{"api/warning [annotation]", "ignore/unknown-rule"},
		},
		{
			name:  "--no-ignore-annotations",
			doc:   dottedPod("a.b", "  annotations:\n    kubectl-workload/ignore: api/warning\n    kubectl-workload/ignore-reason: x\n", ""),
			noIgn: true,
			want:  []string{"api/warning"},
		},
		{
			// A JSON file may spell the key with escapes: still read.
			name: "escaped key in JSON",
			doc: `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a.b", "annotations": {"kubectl-workload\/ign\u006fre": "api/warning",
  "kubectl-workload/ignore-reason": "x"}}, "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}`,
			want: []string{"api/warning [annotation]"},
		},
		{
			name: "misplaced in the pod template",
			doc: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations:
        kubectl-workload/ignore: rollout/no-readiness-probe
        kubectl-workload/ignore-reason: x
    spec:
      containers: [{name: web, image: "nginx:1.27", readinessProbe: {httpGet: {path: /, port: 80}}}]
`,
			want: []string{"ignore/misplaced"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := l.Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(tt.doc), NoIgnoreAnnotations: tt.noIgn})
			var got []string
			for _, f := range res.Findings {
				if !strings.HasPrefix(f.Rule, "api/") && !strings.HasPrefix(f.Rule, "ignore/") {
					continue // catalogue rules are tested in rules/
				}
				s := f.Rule
				if f.Suppressed != nil {
					s += " [" + f.Suppressed.Kind + "]"
					if tt.reason != "" && f.Suppressed.Reason != tt.reason {
						t.Errorf("reason = %q, want %q", f.Suppressed.Reason, tt.reason)
					}
				}
				if f.Line < 1 {
					t.Errorf("finding %+v has no position", f)
				}
				got = append(got, s)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("findings = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, config.FileName)
	if err := os.WriteFile(cfg, []byte(`rules:
  severity:
    api/warning: error
  disable: [input/duplicate-key]
exclude: ["skip/**"]
exemptions:
  - kind: Pod
    name: "exempt-*"
    rules: [api/*]
    reason: Reviewed in TICKET-7.
`), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"a.yaml":      dottedPod("plain.v1", "", "") + "---\n" + dottedPod("exempt-1.v1", "", ""),
		"dup.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1', a: '2'}\n",
		"skip/x.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: Bad}\n",
	} {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{dir}, Settings: settings})
	if res.Excluded != 1 || res.Files != 3 { // a.yaml, dup.yaml and the configuration file itself (skipped: not Kubernetes)
		t.Errorf("excluded %d, files %d; want 1 and 3", res.Excluded, res.Files)
	}
	var got []string
	for _, f := range res.Findings {
		if !strings.HasPrefix(f.Rule, "api/") && !strings.HasPrefix(f.Rule, "input/") {
			continue
		}
		s := f.Rule + " " + f.Severity.String() + " " + f.Object.Name
		if f.Suppressed != nil {
			s += " [" + f.Suppressed.Kind + ": " + f.Suppressed.Reason + "]"
		}
		got = append(got, s)
	}
	want := []string{
		"api/warning error plain.v1",
		"api/warning error exempt-1.v1 [config: Reviewed in TICKET-7. (" + cfg + ":7)]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.CountSuppressed() != 1 || res.Count(SeverityError) != 1+res.countRule("kind/bare-pod", SeverityError) {
		t.Errorf("counts: suppressed %d, errors %d", res.CountSuppressed(), res.Count(SeverityError))
	}
}

func (r *Result) countRule(rule string, s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Rule == rule && f.Severity == s && f.Suppressed == nil {
			n++
		}
	}
	return n
}
