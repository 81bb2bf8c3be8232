package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// customWorkloadDir holds Argo Rollouts' Rollout CRD and two of its examples, unchanged,
// and a Rollout and a Deployment with the same privileged pod template (SOURCE.md).
const customWorkloadDir = "testdata/customworkload"

// TestCustomWorkloadPodSecurity installs Argo Rollouts' real Rollout CRD, and puts each
// Rollout and Deployment of the fixtures to a real v1.37.1 API server as a dry-run create
// in a namespace that enforces baseline and warns at restricted, and to lint with the
// same Namespace and the CRD. The server accepts every Rollout without a Pod Security
// warning, even the privileged one (Pod Security admission never checks a custom
// resource), and lint agrees: no api/* error or warning on any Rollout. The privileged
// Deployment gets the server's warning at restricted; lint's pss/warn on the privileged
// Rollout names the same violations and says kubectl shows none, and its pss/enforce says
// that the server accepts the Rollout and the namespace refuses its pods.
func TestCustomWorkloadPodSecurity(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const ns = "custom-workload-pss"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if out, err := c.Kubectl(ctx, "label", "namespace", ns, "--overwrite",
		"pod-security.kubernetes.io/enforce=baseline", "pod-security.kubernetes.io/warn=restricted"); err != nil {
		t.Fatalf("label namespace %s: %v\n%s", ns, err, out)
	}
	crd := filepath.Join(customWorkloadDir, "crd")
	if out, err := c.Kubectl(ctx, "apply", "--server-side", "-f", crd); err != nil {
		t.Fatalf("install the Rollout CRD: %v\n%s", err, out)
	}
	if out, err := c.WaitEstablished(ctx, "crd/rollouts.argoproj.io"); err != nil {
		t.Fatalf("wait for the Rollout CRD: %v\n%s", err, out)
	}
	oracle, err := waitOracle(ctx, c, schema.GroupKind{Group: "argoproj.io", Kind: "Rollout"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(customWorkloadDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures under %s (%v)", customWorkloadDir, err)
	}
	// Every workload of the fixtures, in the labelled namespace, in one file beside its
	// Namespace, which is what lint reads the labels from.
	input := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns +
		"\n  labels:\n    pod-security.kubernetes.io/enforce: baseline\n    pod-security.kubernetes.io/warn: restricted\n"
	type workload struct {
		kind, name string
		document   int
	}
	var workloads []workload
	serverWarning := map[string][]string{} // kind/name → the server's Pod Security warnings
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitYAML(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, doc := range docs {
			var obj map[string]any
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			kind, _ := obj["kind"].(string)
			if kind != "Rollout" && kind != "Deployment" {
				continue
			}
			meta, _ := obj["metadata"].(map[string]any)
			meta["namespace"] = ns
			name, _ := meta["name"].(string)
			out, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			v, err := oracle.DryRunCreate(ctx, out)
			if err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			if v.Rejected {
				t.Errorf("%s: document %d: the server refuses %s %s: %s", file, i, kind, name, formatVerdict(v))
			}
			for _, w := range v.Warnings {
				if strings.HasPrefix(w, "would violate PodSecurity") {
					serverWarning[kind+"/"+name] = append(serverWarning[kind+"/"+name], w)
				}
			}
			workloads = append(workloads, workload{kind: kind, name: name, document: strings.Count(input, "\n---\n") + 1})
			input += "---\n" + string(out)
		}
	}
	path := filepath.Join(t.TempDir(), "workloads.yaml")
	if err := os.WriteFile(path, []byte(input), 0o600); err != nil {
		t.Fatal(err)
	}
	report := lintCustom(t, ctx, plugin, "--crds", crd, path)
	rollouts := 0
	for _, w := range workloads {
		key := w.kind + "/" + w.name
		p := report.object(path, w.document)
		if w.kind == "Rollout" {
			rollouts++
			if got := serverWarning[key]; len(got) > 0 {
				t.Errorf("%s: the server warned %q: Pod Security admission checked a custom resource", key, got)
			}
			if len(p.apiErrors) > 0 || len(p.warnings()) > 0 {
				t.Errorf("%s: the server accepts it without a warning; lint %s, warnings %q", key, formatFindings(p.apiErrors), p.warnings())
			}
		}
	}
	if rollouts < 3 {
		t.Fatalf("%d Rollouts in the fixtures, want at least 3", rollouts)
	}
	// For a workload the server evaluates only the warn level (restricted here) and says
	// so in its warning; lint's pss/warn on the Rollout with the same template starts with
	// the same words, and says that kubectl shows none.
	deploymentWarning := serverWarning["Deployment/privileged"]
	if len(deploymentWarning) != 1 || !strings.HasPrefix(deploymentWarning[0], `would violate PodSecurity "restricted:latest": `) {
		t.Fatalf("the server's warnings on the privileged Deployment = %q, want one at restricted: the fixture no longer shows the difference", deploymentWarning)
	}
	found := map[string][]lintFinding{}
	for _, w := range workloads {
		if w.kind == "Rollout" && w.name == "privileged" {
			for _, f := range report.object(path, w.document).report.Findings {
				found[f.Rule] = append(found[f.Rule], f)
			}
		}
	}
	if warn := found["pss/warn"]; len(warn) != 1 || !strings.HasPrefix(warn[0].Message,
		"pods made from this template "+deploymentWarning[0]+"; kubectl apply shows no warning for the Rollout") {
		t.Errorf("lint's pss/warn on the privileged Rollout = %v, want one starting with\npods made from this template %s; kubectl apply shows no warning for the Rollout", warn, deploymentWarning[0])
	}
	if enforce := found["pss/enforce"]; len(enforce) != 1 || enforce[0].Severity != severityError ||
		!strings.Contains(enforce[0].Message, "the API server accepts the Rollout (Pod Security admission does not check custom resources), but namespace "+ns+" refuses every pod made from it") {
		t.Errorf("lint's pss/enforce on the privileged Rollout = %v, want one error saying the server accepts the Rollout and the namespace refuses its pods", enforce)
	}
	t.Logf("%d Rollouts accepted by the server without a Pod Security warning, as lint says; the Deployment with the same template: %q", rollouts, deploymentWarning[0])
}
