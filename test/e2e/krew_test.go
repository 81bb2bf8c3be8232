package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/template"
	"time"

	"sigs.k8s.io/yaml"
)

// Environment variables hack/install-test-tools.sh exports.
const (
	// EnvKrew names the krew binary built from the Go module proxy.
	EnvKrew = "KUBECTL_WORKLOAD_KREW"
	// EnvKrewValidate names krew's validate-krew-manifest, the krew-index's manifest check.
	EnvKrewValidate = "KUBECTL_WORKLOAD_KREW_VALIDATE"
)

// krewTag is the release tag the test pretends to publish.
const krewTag = "v0.99.0-e2e.1"

// distPlatforms are the platforms hack/dist.sh builds, which the manifest must cover.
var distPlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// krewManifest is the part of a krew plugin manifest the index's rules are about.
type krewManifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			Sha256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

// renderKrewTemplate renders .krew.yaml the way krew-release-bot does: a Go text/template
// with .TagName, whose addURIAndSha renders the URL (itself a template of .TagName) and
// writes "uri: URL" and, indented for the platform, "sha256: SUM". The bot downloads each
// URL to hash it; here sha256 is the local archive's of the same name. Only the platforms
// built locally have one: the others get the hash of the empty input, which is well formed
// (all krew checks) but installs nothing, and the test installs only a local archive.
func renderKrewTemplate(t *testing.T, templatePath, tag, archiveDir string) ([]byte, map[string]string) {
	t.Helper()
	hashed := map[string]string{} // archive name -> sha256, for the archives found locally
	empty := sha256.Sum256(nil)
	funcs := template.FuncMap{
		"addURIAndSha": func(url, tag string) (string, error) {
			var u bytes.Buffer
			tmpl, err := template.New("url").Parse(url)
			if err != nil {
				return "", err
			}
			if err := tmpl.Execute(&u, struct{ TagName, Version string }{tag, strings.TrimPrefix(tag, "v")}); err != nil {
				return "", err
			}
			sum := hex.EncodeToString(empty[:])
			name := path.Base(u.String())
			if data, err := os.ReadFile(filepath.Join(archiveDir, name)); err == nil {
				s := sha256.Sum256(data)
				sum = hex.EncodeToString(s[:])
				hashed[name] = sum
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", u.String(), sum), nil
		},
	}
	tmpl, err := template.New(filepath.Base(templatePath)).Funcs(funcs).ParseFiles(templatePath)
	if err != nil {
		t.Fatalf("parse %s as krew-release-bot does: %v", templatePath, err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, struct{ TagName string }{tag}); err != nil {
		t.Fatalf("render %s: %v", templatePath, err)
	}
	return out.Bytes(), hashed
}

// TestKrewInstall builds a release archive with hack/dist.sh, renders .krew.yaml for it as
// krew-release-bot would, validates the manifest with krew's own validation and the krew
// index's rules, installs it with the real krew (as `kubectl krew`) into a temporary
// KREW_ROOT, and runs `kubectl workload version` from krew's bin directory through the real
// kubectl.
func TestKrewInstall(t *testing.T) {
	requirePackaging(t, "krew and validate-krew-manifest ("+EnvKrew+", "+EnvKrewValidate+") and a real kubectl ($KUBECTL)")
	krew, validate := os.Getenv(EnvKrew), os.Getenv(EnvKrewValidate)
	for env, p := range map[string]string{EnvKrew: krew, EnvKrewValidate: validate} {
		if p == "" {
			t.Fatalf("%s is not set: run eval \"$(hack/install-test-tools.sh)\"", env)
		}
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s=%s: %v", env, p, err)
		}
	}
	kubectl := kubectlPath(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	base := withEnv(os.Environ(), "KREW_NO_UPGRADE_CHECK=1")

	// The release archive, as hack/dist.sh builds it (one platform: each takes minutes).
	dist := t.TempDir()
	start := time.Now()
	mustRunLong(t, 20*time.Minute, root, withEnv(base, "DIST_DIR="+dist, "DIST_PLATFORMS=linux/amd64"), "bash", "hack/dist.sh", krewTag)
	t.Logf("hack/dist.sh %s for linux/amd64: %s", krewTag, time.Since(start).Round(time.Second))
	archiveName := fmt.Sprintf("kubectl-workload_%s_linux_amd64.tar.gz", krewTag)
	archive := filepath.Join(dist, archiveName)
	listing := mustRun(t, dist, base, "tar", "-tzf", archive)
	if got := strings.Fields(listing); strings.Join(got, " ") != "LICENSE kubectl-workload kubectl_workload-render" {
		t.Errorf("%s holds %v, want LICENSE, kubectl-workload and its render helper", archiveName, got)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "kubectl-workload_"+krewTag+"_checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}

	// The manifest, rendered for that archive.
	rendered, hashed := renderKrewTemplate(t, filepath.Join(root, ".krew.yaml"), krewTag, dist)
	if sum, ok := hashed[archiveName]; !ok {
		t.Fatalf(".krew.yaml names no %s, the archive hack/dist.sh built:\n%s", archiveName, rendered)
	} else if want := sum + "  " + archiveName + "\n"; string(sums) != want {
		t.Errorf("checksums file = %q, want %q", sums, want)
	}
	manifest := filepath.Join(t.TempDir(), "workload.yaml") // krew wants <plugin name>.yaml
	writeFile(t, manifest, string(rendered))
	t.Logf("rendered manifest:\n%s", rendered)

	t.Run("krew index rules", func(t *testing.T) {
		var m krewManifest
		if err := yaml.UnmarshalStrict(rendered, &m); err != nil {
			t.Fatalf("rendered manifest: %v", err)
		}
		checkKrewIndexRules(t, m)
	})

	t.Run("validate-krew-manifest", func(t *testing.T) {
		// -skip-install: it would download every platform's archive from GitHub.
		r := runCmd(t, time.Minute, filepath.Dir(manifest), base, validate, "-manifest", manifest, "-skip-install")
		if r.code != 0 || !strings.Contains(r.out, "structural validation OK") {
			t.Errorf("validate-krew-manifest: exit %d:\n%s", r.code, r.out)
		}
	})

	t.Run("kubectl krew install, then kubectl workload version", func(t *testing.T) {
		krewRoot := filepath.Join(t.TempDir(), "krew")
		shim := t.TempDir() // kubectl finds krew as the plugin kubectl-krew
		if err := os.Symlink(krew, filepath.Join(shim, "kubectl-krew")); err != nil {
			t.Fatal(err)
		}
		// Nothing else named kubectl-workload may answer: only krew's bin directory has it.
		path := strings.Join([]string{filepath.Join(krewRoot, "bin"), shim, pathWithout(os.Getenv("PATH"), "kubectl-workload")}, string(os.PathListSeparator))
		env := withEnv(base, "KREW_ROOT="+krewRoot, "PATH="+path)

		r := runCmd(t, 5*time.Minute, t.TempDir(), env, kubectl, "krew", "install", "--manifest="+manifest, "--archive="+archive)
		if r.code != 0 || !strings.Contains(r.out, `Installed plugin: workload`) {
			t.Fatalf("kubectl krew install --manifest --archive: exit %d:\n%s", r.code, r.out)
		}
		for _, f := range []string{"LICENSE", "kubectl_workload-render"} {
			if _, err := os.Stat(filepath.Join(krewRoot, "store", "workload", krewTag, f)); err != nil {
				t.Errorf("krew did not extract %s: %v", f, err)
			}
		}
		// (kubectl krew list would want an index; the receipt is what it reads.)
		receipt, err := os.ReadFile(filepath.Join(krewRoot, "receipts", "workload.yaml"))
		if err != nil || !strings.Contains(string(receipt), "version: "+krewTag) {
			t.Errorf("krew's receipt for workload = %q (%v), want version %s", receipt, err, krewTag)
		}

		out := mustRun(t, t.TempDir(), env, kubectl, "workload", "version")
		for _, want := range []string{"kubectl-workload " + krewTag + "\n", "Kubernetes " + KubernetesVersion + " "} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl workload version = %q, want %q: the version dist.sh injected and the embedded Kubernetes", out, want)
			}
		}
		// A chart is rendered by the helper krew put beside the plugin (krew's bin
		// directory holds only a link to kubectl-workload).
		chart := runCmd(t, time.Minute, root, env, kubectl, "workload", "lint", "internal/render/testdata/web", "-o", "json")
		if chart.code != 0 || !strings.Contains(chart.out, `"file": "internal/render/testdata/web/templates/deployment.yaml"`) {
			t.Errorf("kubectl workload lint internal/render/testdata/web: exit %d, want 0 and findings in the chart's templates:\n%s", chart.code, chart.out)
		}
		plugins := runCmd(t, time.Minute, t.TempDir(), env, kubectl, "plugin", "list")
		if !strings.Contains(plugins.out, filepath.Join(krewRoot, "bin", "kubectl-workload")) {
			t.Errorf("kubectl plugin list does not show krew's kubectl-workload:\n%s", plugins.out)
		}
	})
}

// mustRunLong is mustRun with a caller's timeout, for builds.
func mustRunLong(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) string {
	t.Helper()
	r := runCmd(t, timeout, dir, env, name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d:\n%s", name, strings.Join(args, " "), r.code, r.out)
	}
	return r.out
}

// checkKrewIndexRules checks what the krew index asks of a manifest beyond what krew's own
// validation enforces (https://krew.sigs.k8s.io/docs/developer-guide/plugin-manifest/).
func checkKrewIndexRules(t *testing.T, m krewManifest) {
	t.Helper()
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "workload" {
		t.Errorf("manifest is %s %s %q, want a krew v1alpha2 Plugin named workload", m.APIVersion, m.Kind, m.Metadata.Name)
	}
	if m.Spec.Version != krewTag {
		t.Errorf("spec.version = %q, want the tag %s", m.Spec.Version, krewTag)
	}
	if n := len(m.Spec.ShortDescription); n == 0 || n > 50 || strings.Contains(m.Spec.ShortDescription, "\n") {
		t.Errorf("spec.shortDescription %q is %d characters, want one line of at most 50", m.Spec.ShortDescription, n)
	}
	// No usage examples in the description: no command lines, no "kubectl workload ..." invocations.
	for _, line := range strings.Split(m.Spec.Description, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "$") || strings.HasPrefix(trimmed, "#") || strings.Contains(trimmed, "kubectl workload ") ||
			strings.Contains(strings.ToLower(trimmed), "usage") || strings.Contains(strings.ToLower(trimmed), "example") {
			t.Errorf("spec.description has a usage example or command line: %q", line)
		}
		if len(line) > 80 {
			t.Errorf("spec.description line longer than 80 characters: %q", line)
		}
	}
	if !strings.HasPrefix(m.Spec.Homepage, "https://github.com/kubectl-workload/kubectl-workload") {
		t.Errorf("spec.homepage = %q, want the repository (krew-release-bot checks it to establish ownership)", m.Spec.Homepage)
	}
	seen := map[string]bool{}
	for i, p := range m.Spec.Platforms {
		osName, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		if len(p.Selector.MatchLabels) != 2 || osName == "" || arch == "" {
			t.Errorf("platforms[%d]: selector.matchLabels = %v, want exactly os and arch", i, p.Selector.MatchLabels)
			continue
		}
		platform := osName + "/" + arch
		seen[platform] = true
		wantURI := fmt.Sprintf("https://github.com/kubectl-workload/kubectl-workload/releases/download/%s/kubectl-workload_%s_%s_%s.tar.gz", krewTag, krewTag, osName, arch)
		if p.URI != wantURI {
			t.Errorf("platforms[%d] (%s): uri = %q, want %q, the archive hack/dist.sh names", i, platform, p.URI, wantURI)
		}
		wantBin := "kubectl-workload"
		if osName == "windows" {
			wantBin += ".exe"
		}
		if p.Bin != wantBin {
			t.Errorf("platforms[%d] (%s): bin = %q, want %q", i, platform, p.Bin, wantBin)
		}
		var files []string
		for _, f := range p.Files {
			files = append(files, f.From)
		}
		wantHelper := strings.Replace(wantBin, "kubectl-workload", "kubectl_workload-render", 1)
		if strings.Join(files, " ") != wantBin+" "+wantHelper+" LICENSE" {
			t.Errorf("platforms[%d] (%s): files from %v, want the binary, its render helper and LICENSE", i, platform, files)
		}
	}
	for _, p := range distPlatforms {
		if !seen[p] {
			t.Errorf("the manifest has no platform %s, which hack/dist.sh builds", p)
		}
	}
	if len(m.Spec.Platforms) != len(distPlatforms) {
		t.Errorf("the manifest has %d platforms, want the %d hack/dist.sh builds", len(m.Spec.Platforms), len(distPlatforms))
	}
}

// TestKubectlCompletesPluginArgs shows `kubectl workload <TAB>` working through the real
// kubectl (1.26 and later): kubectl runs kubectl_complete-workload from PATH, which asks
// the plugin's cobra __complete command.
func TestKubectlCompletesPluginArgs(t *testing.T) {
	requirePackaging(t, "a real kubectl ($KUBECTL), 1.26 or later")
	kubectl := kubectlPath(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := pluginBinary(t)
	dir := t.TempDir()
	for src, dst := range map[string]string{bin: "kubectl-workload", filepath.Join(root, "kubectl_complete-workload"): "kubectl_complete-workload"} {
		if err := os.Symlink(src, filepath.Join(dir, dst)); err != nil {
			t.Fatal(err)
		}
	}
	env := withEnv(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+pathWithout(os.Getenv("PATH"), "kubectl-workload"))
	tests := []struct {
		args []string
		want []string
	}{
		{args: []string{"workload", ""}, want: []string{"lint", "version"}},
		{args: []string{"workload", "lint", "-o", ""}, want: []string{"sarif", "junit", "github"}},
		{args: []string{"workload", "lint", "--explain", "rollout/"}, want: []string{"rollout/downtime"}},
	}
	for _, tt := range tests {
		out := mustRun(t, dir, env, kubectl, append([]string{"__complete"}, tt.args...)...)
		for _, w := range tt.want {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(w) + `(\t|$)`).MatchString(out) {
				t.Errorf("kubectl __complete %q = %q, want %s offered", tt.args, out, w)
			}
		}
	}
}
