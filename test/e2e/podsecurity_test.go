package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestDifferentialPodSecurity puts every fixture in testdata/podsecurity to a real v1.37.1
// API server as a dry-run create in namespaces labelled enforce=baseline and
// enforce=restricted, and lints the same object with its Namespace beside it. For a Pod,
// the server's Forbidden message and lint's pss/enforce error must be the same text, or
// both absent; for a workload, the server's warning must be where lint's pss/enforce error
// starts (the server accepts the workload and refuses its pods), or both absent.
func TestDifferentialPodSecurity(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	oracle, err := c.NewOracle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	levels := []string{"baseline", "restricted"}
	for _, level := range levels {
		ns := "pss-" + level
		if err := c.EnsureNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		if out, err := c.Kubectl(ctx, "label", "namespace", ns, "--overwrite",
			"pod-security.kubernetes.io/enforce="+level); err != nil {
			t.Fatalf("label namespace %s: %v\n%s", ns, err, out)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "podsecurity", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/podsecurity: %v", err)
	}
	var forbidden, warned, clean int
	for _, file := range files {
		for _, level := range levels {
			name := strings.TrimSuffix(filepath.Base(file), ".yaml") + "/" + level
			t.Run(name, func(t *testing.T) {
				ns := "pss-" + level
				doc := inNamespace(t, file, ns)
				v, err := oracle.DryRunCreate(ctx, doc)
				if err != nil {
					t.Fatal(err)
				}
				nsDoc := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns +
					"\n  labels:\n    pod-security.kubernetes.io/enforce: " + level + "\n"
				path := filepath.Join(t.TempDir(), "in.yaml")
				if err := os.WriteFile(path, []byte(nsDoc+"---\n"+string(doc)), 0o600); err != nil {
					t.Fatal(err)
				}
				p, err := runPlugin(ctx, plugin, path)
				if err != nil {
					t.Fatal(err)
				}
				var enforce []string
				for _, f := range p.report.Findings {
					if f.Rule == "pss/enforce" {
						enforce = append(enforce, f.Message)
					}
				}
				if len(enforce) > 1 {
					t.Fatalf("lint reports pss/enforce %d times, want at most once: %q", len(enforce), enforce)
				}
				var serverWarning string
				for _, w := range v.Warnings {
					if strings.HasPrefix(w, "would violate PodSecurity") {
						serverWarning = w
					}
				}
				isPod := strings.HasPrefix(filepath.Base(file), "pod-")
				switch {
				case isPod && v.Rejected:
					forbidden++
					if len(enforce) != 1 || enforce[0] != v.Message {
						t.Errorf("server refuses the Pod:\n  %s\nlint's pss/enforce: %q", v.Message, enforce)
					}
				case !isPod && v.Rejected:
					t.Fatalf("server rejects the workload, which admission only warns about: %s", v.Message)
				case serverWarning != "":
					warned++
					if len(enforce) != 1 || !strings.HasPrefix(enforce[0], serverWarning+"; ") {
						t.Errorf("server accepts the workload with the warning:\n  %s\nlint's pss/enforce: %q", serverWarning, enforce)
					}
				default:
					clean++
					if len(enforce) != 0 {
						t.Errorf("server accepts the object without a Pod Security warning; lint reports %q", enforce)
					}
				}
			})
		}
	}
	t.Logf("pod security: %d refused pods, %d warned workloads, %d clean, lint agreeing on each", forbidden, warned, clean)
	if forbidden == 0 || warned == 0 || clean == 0 {
		t.Errorf("fixtures cover %d refused pods, %d warned workloads, %d clean objects; want some of each", forbidden, warned, clean)
	}
}

// inNamespace returns the fixture's single document with metadata.namespace set to ns.
func inNamespace(t *testing.T, file, ns string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		t.Fatalf("%s: no metadata", file)
	}
	meta["namespace"] = ns
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPodSecurityAgainstLive lints a Deployment whose namespace is labelled
// enforce=restricted in the cluster only, with --against-live as the read-only user: lint
// reads the label from the cluster, and its pss/enforce error starts with the API server's
// own warning for the same Deployment (a dry-run create as the administrator).
func TestPodSecurityAgainstLive(t *testing.T) {
	env := sharedLiveEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	oracle, err := env.cluster.NewOracle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := oracle.DryRunCreate(ctx, []byte(livePSSDeployment))
	if err != nil {
		t.Fatal(err)
	}
	var serverWarning string
	for _, w := range v.Warnings {
		if strings.HasPrefix(w, `would violate PodSecurity "restricted:latest"`) {
			serverWarning = w
		}
	}
	if v.Rejected || serverWarning == "" {
		t.Fatalf("the server's verdict on the Deployment: rejected %v, warnings %q; want accepted with a Pod Security warning", v.Rejected, v.Warnings)
	}
	r := env.run(t, env.reader.Kubeconfig, "lint", "-f", env.path("pss-deploy.yaml"), "--against-live", "-o", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var rep struct {
		Findings []struct {
			Rule    string `json:"rule"`
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("-o json: %v\n%s", err, r.stdout)
	}
	var enforce []string
	for _, f := range rep.Findings {
		if f.Rule == "pss/enforce" {
			enforce = append(enforce, f.Message)
		}
	}
	if len(enforce) != 1 || !strings.HasPrefix(enforce[0], serverWarning+"; ") {
		t.Errorf("server accepts the Deployment with the warning:\n  %s\nlint --against-live's pss/enforce: %q", serverWarning, enforce)
	}
	// Without --against-live the namespace's labels are unknown: the per-check warnings.
	r = env.run(t, env.reader.Kubeconfig, "lint", "-f", env.path("pss-deploy.yaml"))
	if strings.Contains(r.stdout, "pss/enforce") {
		t.Errorf("offline lint reports pss/enforce, which needs the cluster's labels:\n%s", r.stdout)
	}
}
