package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// differentialWorkers bounds how many documents are checked at once: each check runs the
// plugin binary and one API request, and the machine the suite targets has two cores.
const differentialWorkers = 4

// Rule ids that start with apiRulePrefix and carry severity "error" are the plugin's claims
// that the API server would reject the object.
const (
	apiRulePrefix = "api/"
	severityError = "error"
)

// fixtureDir holds one object per file, under valid/ (the server accepts it) and invalid/
// (the server rejects it).
const fixtureDir = "testdata/differential"

// kubectlCrossChecked are the fixtures also applied with the real kubectl binary, to show
// that the client-go oracle asks the server the way `kubectl apply --dry-run=server` does.
var kubectlCrossChecked = []string{
	"valid/deployment-web-probes-resources",
	"valid/deployment-no-namespace",
	"valid/deployment-namespaced-shop",
	"valid/daemonset-privileged-host-network",
	"valid/cronjob-time-zone",
	"valid/pod-duplicate-container-port-warning-only",
	"invalid/deployment-selector-template-mismatch",
	"invalid/deployment-unknown-field-replcias",
	"invalid/deployment-replicas-string",
	"invalid/deployment-invalid-cpu-quantity",
	"invalid/job-indexed-without-completions",
	"invalid/cronjob-bad-schedule",
	"invalid/pod-duplicate-host-ports",
	"invalid/statefulset-bad-pod-management-policy",
}

// workloadAPIVersions are the kinds the differential test covers, with the group/version
// each is served at.
var workloadAPIVersions = map[string]string{
	"Deployment":            "apps/v1",
	"ReplicaSet":            "apps/v1",
	"StatefulSet":           "apps/v1",
	"DaemonSet":             "apps/v1",
	"Job":                   "batch/v1",
	"CronJob":               "batch/v1",
	"ReplicationController": "v1",
	"Pod":                   "v1",
	"PodTemplate":           "v1",
}

// corpusAPIVersions are the other kinds lint validates that the corpus part of the
// differential test puts to the server, with the versions each is served at. Namespaces and
// ServiceAccounts are left out: a dry-run create of one that exists ("default") is refused
// as AlreadyExists, which is about the cluster, not the object.
var corpusAPIVersions = map[string][]string{
	"Service":                 {"v1"},
	"ConfigMap":               {"v1"},
	"Secret":                  {"v1"},
	"PodDisruptionBudget":     {"policy/v1"},
	"HorizontalPodAutoscaler": {"autoscaling/v1", "autoscaling/v2"},
	"Ingress":                 {"networking.k8s.io/v1"},
	"NetworkPolicy":           {"networking.k8s.io/v1"},
}

// corpusKind reports whether a corpus document of this kind and apiVersion is put to both.
func corpusKind(kind, apiVersion string) bool {
	if _, ok := workloadAPIVersions[kind]; ok {
		return slices.Contains([]string{"apps/v1", "batch/v1", "v1"}, apiVersion)
	}
	return slices.Contains(corpusAPIVersions[kind], apiVersion)
}

// diffCase is one document to put to both the API server and the plugin.
type diffCase struct {
	// name identifies the case in subtest names, for example "invalid/deployment-negative-replicas".
	name string
	// path is a file that holds exactly this document.
	path string
	// doc is the document's YAML.
	doc []byte
	// wantRejected is the fixture's own claim (its directory); nil for corpus documents.
	wantRejected *bool
	// kubectl marks the case for the kubectl cross-check.
	kubectl bool
}

// lintReport is the JSON that `kubectl-workload lint -o json` prints.
type lintReport struct {
	KubernetesVersion string        `json:"kubernetesVersion"`
	Findings          []lintFinding `json:"findings"`
	Summary           struct {
		Files     int `json:"files"`
		Documents int `json:"documents"`
		Objects   int `json:"objects"`
		Skipped   int `json:"skipped"`
		Errors    int `json:"errors"`
		Warnings  int `json:"warnings"`
		Infos     int `json:"infos"`
	} `json:"summary"`
}

type lintFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file"`
	Document int    `json:"document"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Field    string `json:"field"`
	Object   *struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Namespace  string `json:"namespace"`
		Name       string `json:"name"`
	} `json:"object"`
}

// pluginRun is the outcome of one `kubectl-workload lint -o json FILE`.
type pluginRun struct {
	exitCode int
	stdout   []byte
	stderr   []byte
	report   lintReport
	// apiErrors are the findings that claim the server would reject the object.
	apiErrors []lintFinding
	// fields are the sorted, unique field paths of apiErrors.
	fields []string
}

func (p pluginRun) rejects() bool { return len(p.apiErrors) > 0 }

// agrees reports whether the server's verdict and the plugin's findings match: the same
// verdict and the same rejected field paths. One exception: when the server cannot decode
// the object at all (`replicas: "3"`), its 400 names no field, only Go's decoder message;
// the plugin then must report one api/decode finding with exactly the server's message, and
// its field (which it resolves from that message to the real path, to place the finding) is
// not compared. Another: when kubectl itself finds no such kind in the version
// (`kind: Deploymnet`), nothing reaches the server; the plugin then must report one api/
// finding whose message starts with kubectl's words.
func agrees(v Verdict, p pluginRun) bool {
	if v.Rejected != p.rejects() {
		return false
	}
	if v.Reason == ReasonClientSide && strings.HasPrefix(v.Message, "no matches for kind") {
		return len(p.apiErrors) == 1 && strings.HasPrefix(p.apiErrors[0].Message, v.Message)
	}
	if len(v.Causes) == 1 && v.Causes[0].Field == "" && strings.Contains(v.Causes[0].Message, "cannot be handled as a") &&
		!strings.Contains(v.Causes[0].Message, "strict decoding error") {
		// A lower-case kind ("service") is the decoder's refusal too, reported as api/unknown-kind.
		return len(p.apiErrors) == 1 && (p.apiErrors[0].Rule == "api/decode" || p.apiErrors[0].Rule == "api/unknown-kind") &&
			p.apiErrors[0].Message == v.Causes[0].Message
	}
	if !slices.Equal(v.Fields, p.fields) {
		return false
	}
	// Message for message: a 422's causes are field errors, and the plugin's text for each
	// is the field error's Error(): "<field>: <the cause's message>".
	var want, got []string
	for _, c := range v.Causes {
		if c.Type == "FieldValueUnknown" || c.Field == "" {
			return true // strict-decoding and whole-object rejections: fields compared above
		}
		want = append(want, c.Field+": "+c.Message)
	}
	for _, f := range p.apiErrors {
		got = append(got, f.Message)
	}
	// A Job's generated selector quotes the UID the server generated; lint uses a fixed one.
	for i := range want {
		want[i] = uidRE.ReplaceAllString(want[i], "<uid>")
	}
	for i := range got {
		got[i] = uidRE.ReplaceAllString(got[i], "<uid>")
	}
	slices.Sort(want)
	slices.Sort(got)
	return slices.Equal(want, got)
}

var uidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// kubectlRun is the outcome of `kubectl apply --dry-run=server -f FILE`.
type kubectlRun struct {
	rejected bool
	output   string
}

// diffResult is everything learnt about one case.
type diffResult struct {
	c       diffCase
	server  Verdict
	plugin  pluginRun
	kubectl *kubectlRun
	// err is a harness failure: the question could not be asked.
	err error
}

// TestDifferentialAPIValidation puts every fixture, and every workload in the real-world
// corpus, to both a real v1.37.1 API server (dry-run create, strict field validation) and
// `kubectl-workload lint`, and requires the same verdict and the same rejected field paths.
func TestDifferentialAPIValidation(t *testing.T) {
	c := sharedCluster(t)
	plugin := pluginBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	oracle, err := c.NewOracle(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var total tally
	t.Run("fixtures", func(t *testing.T) {
		cases, err := loadFixtures(fixtureDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) < 90 {
			t.Errorf("found %d fixtures under %s, want at least 90", len(cases), fixtureDir)
		}
		total.add(runDifferential(ctx, t, "fixtures", c, oracle, plugin, cases))
	})
	t.Run("corpus", func(t *testing.T) {
		dir, err := corpusDir()
		if err != nil {
			t.Fatal(err)
		}
		if dir == "" {
			t.Skipf("real-world corpus not found: set %s or place it at shared/corpus/real-world above the repository", EnvCorpus)
		}
		cases, skipped, err := loadCorpus(dir, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("corpus %s: %d workload documents; %d documents skipped (not YAML)", dir, len(cases), skipped)
		if len(cases) == 0 {
			t.Fatalf("corpus %s holds no workload documents", dir)
		}
		total.add(runDifferential(ctx, t, "corpus", c, oracle, plugin, cases))
	})
	t.Logf("differential: %d fixtures, %d agree, %d disagree", total.n, total.agree, total.n-total.agree)
}

type tally struct{ n, agree int }

func (t *tally) add(o tally) {
	t.n += o.n
	t.agree += o.agree
}

// runDifferential evaluates cases with a bounded worker pool, then checks each one in its
// own subtest, and returns the tally.
func runDifferential(ctx context.Context, t *testing.T, label string, c *Cluster, oracle *Oracle,
	plugin string, cases []diffCase) tally {
	t.Helper()
	if err := prepareNamespaces(ctx, c, cases); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	results := evaluate(ctx, c, oracle, plugin, cases)
	t.Logf("%s: evaluated %d documents in %s", label, len(cases), time.Since(start).Round(time.Millisecond))

	var tl tally
	var disagreements []string
	for _, r := range results {
		tl.n++
		agree := r.err == nil && agrees(r.server, r.plugin)
		if agree {
			tl.agree++
		} else {
			disagreements = append(disagreements, r.c.name)
		}
		t.Run(r.c.name, func(t *testing.T) { checkResult(t, r) })
	}
	t.Logf("differential[%s]: %d fixtures, %d agree, %d disagree", label, tl.n, tl.agree, tl.n-tl.agree)
	if len(disagreements) > 0 {
		t.Logf("differential[%s] disagreements:\n  %s", label, strings.Join(disagreements, "\n  "))
	}
	return tl
}

// checkResult reports everything wrong with one case; see TestDifferentialAPIValidation.
func checkResult(t *testing.T, r diffResult) {
	if r.err != nil {
		t.Fatalf("%s: %v", r.c.path, r.err)
	}
	v, p := r.server, r.plugin
	t.Logf("server: rejected=%v fields=%q warnings=%d; plugin: exit=%d api errors=%d fields=%q",
		v.Rejected, v.Fields, len(v.Warnings), p.exitCode, len(p.apiErrors), p.fields)

	// The fixture's own claim, checked against the server: a wrong fixture proves nothing.
	if want := r.c.wantRejected; want != nil && *want != v.Rejected {
		t.Errorf("fixture %s is under %s/ but the API server %s it:\n%s",
			r.c.path, map[bool]string{true: "invalid", false: "valid"}[*want],
			map[bool]string{true: "rejects", false: "accepts"}[v.Rejected], formatVerdict(v))
	}
	if strings.Contains(r.c.name, "warning-only") && len(v.Warnings) == 0 {
		t.Errorf("fixture %s is named warning-only but the API server returned no warning", r.c.path)
	}
	if k := r.kubectl; k != nil {
		t.Logf("kubectl apply --dry-run=server: rejected=%v", k.rejected)
	}
	if k := r.kubectl; k != nil && k.rejected != v.Rejected {
		t.Errorf("kubectl apply --dry-run=server -f %s: rejected = %v, client-go oracle: rejected = %v\nkubectl output:\n%s\noracle:\n%s",
			r.c.path, k.rejected, v.Rejected, k.output, formatVerdict(v))
	}

	// The plugin's output contract.
	if p.exitCode != 0 && p.exitCode != 1 {
		t.Fatalf("kubectl-workload lint -o json %s: exit code %d (tool error), want 0 or 1\nstdout:\n%s\nstderr:\n%s",
			r.c.path, p.exitCode, p.stdout, p.stderr)
	}
	if want := p.report.Summary.Errors > 0; (p.exitCode == 1) != want {
		t.Errorf("kubectl-workload lint -o json %s: exit code %d with summary.errors = %d; want exit 1 exactly when there are error findings",
			r.c.path, p.exitCode, p.report.Summary.Errors)
	}
	if p.report.KubernetesVersion != KubernetesVersion {
		t.Errorf("kubectl-workload lint -o json %s: kubernetesVersion = %q, want %q", r.c.path, p.report.KubernetesVersion, KubernetesVersion)
	}

	// The differential itself.
	if !agrees(v, p) {
		t.Errorf("%s: API server and plugin disagree\n"+
			"server:  rejected=%v fields=%q\nplugin:  rejected=%v fields=%q (exit %d)\n"+
			"--- server verdict ---\n%s\n--- plugin findings (lint -o json) ---\n%s\n--- plugin stderr ---\n%s--- document ---\n%s",
			r.c.path, v.Rejected, v.Fields, p.rejects(), p.fields, p.exitCode,
			formatVerdict(v), p.stdout, p.stderr, r.c.doc)
	}
}

func formatVerdict(v Verdict) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// evaluate asks the server and the plugin about every case: a producer, a fixed number of
// workers, one collector. Results come back in the order of cases.
func evaluate(ctx context.Context, c *Cluster, oracle *Oracle, plugin string, cases []diffCase) []diffResult {
	type indexed struct {
		i int
		r diffResult
	}
	jobs := make(chan int)
	out := make(chan indexed)
	var wg sync.WaitGroup
	for range differentialWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out <- indexed{i, evaluateOne(ctx, c, oracle, plugin, cases[i])}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range cases {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	results := make([]diffResult, len(cases))
	seen := make([]bool, len(cases))
	for r := range out {
		results[r.i] = r.r
		seen[r.i] = true
	}
	for i := range cases {
		if !seen[i] {
			results[i] = diffResult{c: cases[i], err: fmt.Errorf("not evaluated: %w", ctx.Err())}
		}
	}
	return results
}

func evaluateOne(ctx context.Context, c *Cluster, oracle *Oracle, plugin string, dc diffCase) diffResult {
	r := diffResult{c: dc}
	var err error
	if r.server, err = oracle.DryRunCreate(ctx, dc.doc); err != nil {
		r.err = err
		return r
	}
	if r.plugin, err = runPlugin(ctx, plugin, dc.path); err != nil {
		r.err = err
		return r
	}
	if dc.kubectl {
		out, err := c.Kubectl(ctx, "apply", "--dry-run=server", "-f", dc.path)
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			r.err = fmt.Errorf("kubectl apply --dry-run=server -f %s: %w\n%s", dc.path, err, out)
			return r
		}
		r.kubectl = &kubectlRun{rejected: err != nil, output: string(out)}
	}
	return r
}

// runPlugin runs `kubectl-workload lint -o json path`. An error means the plugin could not
// be run or printed something that is not the JSON report while exiting 0 or 1.
func runPlugin(ctx context.Context, plugin, path string) (pluginRun, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, plugin, "lint", "-o", "json", path)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	p := pluginRun{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		p.exitCode = exitErr.ExitCode()
	default:
		return p, fmt.Errorf("run %s lint -o json %s: %w", plugin, path, err)
	}
	if p.exitCode != 0 && p.exitCode != 1 {
		return p, nil // reported by checkResult with the full output
	}
	if err := json.Unmarshal(p.stdout, &p.report); err != nil {
		return p, fmt.Errorf("kubectl-workload lint -o json %s (exit %d): stdout is not the JSON report: %w\nstdout:\n%s\nstderr:\n%s",
			path, p.exitCode, err, p.stdout, p.stderr)
	}
	p.fields = []string{}
	for _, f := range p.report.Findings {
		if strings.HasPrefix(f.Rule, apiRulePrefix) && f.Severity == severityError {
			p.apiErrors = append(p.apiErrors, f)
			p.fields = append(p.fields, f.Field)
		}
	}
	slices.Sort(p.fields)
	p.fields = slices.Compact(p.fields)
	return p, nil
}

// loadFixtures reads dir/valid/*.yaml and dir/invalid/*.yaml, one object per file.
func loadFixtures(dir string) ([]diffCase, error) {
	var cases []diffCase
	cross := map[string]bool{}
	for _, n := range kubectlCrossChecked {
		cross[n] = true
	}
	for _, sub := range []string{"valid", "invalid"} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.yaml"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no fixtures in %s", filepath.Join(dir, sub))
		}
		rejected := sub == "invalid"
		for _, f := range files {
			doc, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			docs, err := splitYAML(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(docs) != 1 {
				return nil, fmt.Errorf("%s: %d documents, want exactly one object per fixture", f, len(docs))
			}
			abs, err := filepath.Abs(f)
			if err != nil {
				return nil, err
			}
			name := sub + "/" + strings.TrimSuffix(filepath.Base(f), ".yaml")
			cases = append(cases, diffCase{name: name, path: abs, doc: doc, wantRejected: &rejected, kubectl: cross[name]})
			delete(cross, name)
		}
	}
	if len(cross) > 0 {
		return nil, fmt.Errorf("kubectlCrossChecked names fixtures that do not exist: %v", cross)
	}
	return cases, nil
}

// corpusDir finds the real-world corpus: EnvCorpus if set (it must exist), else the first
// shared/corpus/real-world found walking up from the repository root. "" means not found.
func corpusDir() (string, error) {
	if d := os.Getenv(EnvCorpus); d != "" {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return "", fmt.Errorf("%s=%s is not a directory", EnvCorpus, d)
		}
		return d, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	for d := root; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "corpus", "real-world")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, nil
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// loadCorpus splits every YAML or JSON file under dir into documents and writes each
// workload document (one of the nine kinds at its served apiVersion) to its own file in
// tmp. Documents that do not parse as YAML are counted in skipped.
func loadCorpus(dir, tmp string) (cases []diffCase, skipped int, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		docs, err := splitYAML(data)
		if err != nil {
			skipped++
			return nil
		}
		for i, doc := range docs {
			var head map[string]any
			if err := yaml.Unmarshal(doc, &head); err != nil {
				skipped++
				continue
			}
			kind, _ := head["kind"].(string)
			apiVersion, _ := head["apiVersion"].(string)
			if !corpusKind(kind, apiVersion) {
				continue
			}
			name := fmt.Sprintf("%s#%d", filepath.ToSlash(rel), i)
			file := filepath.Join(tmp, fmt.Sprintf("%s-doc%d.yaml", strings.ReplaceAll(filepath.ToSlash(rel), "/", "__"), i))
			if err := os.WriteFile(file, doc, 0o600); err != nil {
				return err
			}
			cases = append(cases, diffCase{name: name, path: file, doc: doc})
		}
		return nil
	})
	return cases, skipped, err
}

// splitYAML splits a multi-document YAML stream the way kubectl does, dropping documents
// that hold nothing but comments or whitespace.
func splitYAML(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if isEmptyYAML(doc) {
			continue
		}
		docs = append(docs, doc)
	}
}

func isEmptyYAML(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && line != "---" {
			return false
		}
	}
	return true
}

// prepareNamespaces creates, in our throwaway cluster, every namespace the cases name and
// the service accounts their Pods use, as a real cluster would have them: without them the
// server would reject for reasons of cluster state, not of the object. Names the server
// refuses as namespace or account names are left out; the cases that use them fail as
// they would anywhere.
func prepareNamespaces(ctx context.Context, c *Cluster, cases []diffCase) error {
	accounts := map[string][]string{"default": nil}
	for _, dc := range cases {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Namespace string `json:"namespace"`
			} `json:"metadata"`
			Spec struct {
				ServiceAccountName string `json:"serviceAccountName"`
				ServiceAccount     string `json:"serviceAccount"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(dc.doc, &obj); err != nil {
			continue // a document about types; it never gets as far as admission
		}
		ns := obj.Metadata.Namespace
		if ns == "" {
			ns = "default"
		}
		if _, ok := accounts[ns]; !ok {
			accounts[ns] = nil
		}
		if obj.Kind == "Pod" {
			for _, sa := range []string{obj.Spec.ServiceAccountName, obj.Spec.ServiceAccount} {
				if sa != "" && !slices.Contains(accounts[ns], sa) {
					accounts[ns] = append(accounts[ns], sa)
				}
			}
		}
	}
	namespaces := make([]string, 0, len(accounts))
	for ns := range accounts {
		namespaces = append(namespaces, ns)
	}
	slices.Sort(namespaces)
	var errs []error
	for _, ns := range namespaces {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			continue
		}
		var sas []string
		for _, sa := range accounts[ns] {
			if msgs := validation.IsDNS1123Subdomain(sa); len(msgs) == 0 {
				sas = append(sas, sa)
			}
		}
		if err := c.EnsureNamespace(ctx, ns, sas...); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
