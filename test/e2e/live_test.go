package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-workload/kubectl-workload/internal/live"
)

// The objects the live tests read, applied with kubectl apply (so that they carry the
// last-applied annotation, as in real use) into liveNamespace and liveOtherNamespace.
const (
	liveNamespace      = "live-a"
	liveOtherNamespace = "live-b"
	// livePSSNamespace is labelled pod-security.kubernetes.io/enforce=restricted in the
	// cluster only: lint --against-live reads the label from there.
	livePSSNamespace = "live-pss"
)

// livePSSDeployment runs as root with the default capabilities, which the restricted
// Pod Security Standard refuses.
const livePSSDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: live-pss
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`

const liveDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: live-a
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
`

const liveStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: live-a
spec:
  serviceName: db
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: db
        image: postgres:17
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`

const liveJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: live-a
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: migrate:1
`

const liveDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: live-a
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: agent:1
`

const liveRelated = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: live-a
spec:
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: db
  namespace: live-a
spec:
  clusterIP: None
  selector:
    app: db
  ports:
  - port: 5432
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: live-a
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: web
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: live-a
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 4
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: live-b
spec:
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: api
        image: api:1
`

// liveEnv is the cluster state the live tests share: the objects above, a read-only user
// and the changed manifests that --against-live checks.
type liveEnv struct {
	cluster *Cluster
	bin     string
	// reader holds only the view role's rules (and get and list on nodes).
	reader *User
	// dir holds the changed manifests and the plugin's kubectl cache.
	dir string
	// files are the changed manifests by name: deploy-selector.yaml (the Deployment's
	// selector changed), sts-storage.yaml (the StatefulSet's volumeClaimTemplates
	// changed), job-image.yaml (the Job's template changed), canary.yaml (a new
	// Deployment whose selector overlaps the live one's), ds-image.yaml (the DaemonSet's
	// image changed).
	files map[string]string
}

var (
	liveOnce sync.Once
	liveVal  *liveEnv
	liveErr  error
)

// sharedLiveEnv applies the live objects once, on the package's control plane.
func sharedLiveEnv(t *testing.T) *liveEnv {
	t.Helper()
	c := sharedCluster(t)
	bin := pluginBinary(t)
	liveOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		liveVal, liveErr = setUpLive(ctx, c, bin)
	})
	if liveErr != nil {
		t.Fatalf("set up live objects: %v", liveErr)
	}
	return liveVal
}

func setUpLive(ctx context.Context, c *Cluster, bin string) (*liveEnv, error) {
	dir, err := os.MkdirTemp(c.Dir, "live-")
	if err != nil {
		return nil, err
	}
	for _, ns := range []string{liveNamespace, liveOtherNamespace, livePSSNamespace} {
		if err := c.EnsureNamespace(ctx, ns); err != nil {
			return nil, err
		}
	}
	if out, err := c.Kubectl(ctx, "label", "namespace", livePSSNamespace, "--overwrite",
		"pod-security.kubernetes.io/enforce=restricted"); err != nil {
		return nil, fmt.Errorf("label namespace %s: %w\n%s", livePSSNamespace, err, out)
	}
	all := filepath.Join(dir, "live-objects.yaml")
	if err := os.WriteFile(all, []byte(strings.Join([]string{liveDeployment, liveStatefulSet, liveJob, liveDaemonSet, liveRelated}, "---\n")), 0o600); err != nil {
		return nil, err
	}
	if out, err := c.Kubectl(ctx, "apply", "-f", all); err != nil {
		return nil, fmt.Errorf("kubectl apply: %w\n%s", err, out)
	}
	// The reader holds what nearly every read-only user holds: the rules of the built-in
	// view role (system:aggregate-to-view, read from this API server), plus get and list on
	// nodes, which predict reads for DaemonSet plans and view does not grant.
	rules, err := viewRules(ctx, c)
	if err != nil {
		return nil, err
	}
	rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list"}})
	reader, err := c.CreateUser(ctx, "live-readers", "view-reader", rules)
	if err != nil {
		return nil, err
	}
	env := &liveEnv{cluster: c, bin: bin, reader: reader, dir: dir, files: map[string]string{
		"deploy-selector.yaml": strings.ReplaceAll(liveDeployment, "app: web", "app: web2"),
		"sts-storage.yaml":     strings.Replace(liveStatefulSet, "storage: 1Gi", "storage: 2Gi", 1),
		"job-image.yaml":       strings.Replace(liveJob, "migrate:1", "migrate:2", 1),
		"canary.yaml":          strings.Replace(liveDeployment, "name: web\n", "name: web-canary\n", 1),
		"ds-image.yaml":        strings.Replace(liveDaemonSet, "agent:1", "agent:2", 1),
		"pss-deploy.yaml":      livePSSDeployment,
	}}
	for name, content := range env.files {
		if err := os.WriteFile(env.path(name), []byte(content), 0o600); err != nil {
			return nil, err
		}
	}
	return env, nil
}

func (env *liveEnv) path(name string) string { return filepath.Join(env.dir, name) }

// result is what one run of the plugin printed.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the plugin with kubeconfig (and a kubectl cache in the test's directory) and
// returns what it printed.
func (env *liveEnv) run(t *testing.T, kubeconfig string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append(append([]string{}, args...), "--kubeconfig="+kubeconfig, "--cache-dir="+filepath.Join(env.dir, "cache"))
	cmd := exec.CommandContext(ctx, env.bin, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+env.dir, "KUBECONFIG=")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", env.bin, args, err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// ReadOnlyCommand is one plugin command line the read-only test runs as a user who may
// only get, list and watch.
type ReadOnlyCommand struct {
	Name string
	// Args follow the binary's name; the test adds --kubeconfig and --cache-dir.
	Args []string
	// Exit lists the acceptable exit codes (lint exits 1 on findings).
	Exit []int
	// Check, when set, inspects the output further.
	Check func(t *testing.T, r result)
}

// readOnlyCommands are every live command of the plugin. Add a command here and
// TestLiveReadOnly runs it as the read-only user and checks the audit log for it.
func readOnlyCommands(env *liveEnv) []ReadOnlyCommand {
	ctxName := env.reader.Context
	src := func(ns, kind, name string) string { return live.SourceName(ctxName, ns, kind, name) }
	contains := func(want ...string) func(t *testing.T, r result) {
		return func(t *testing.T, r result) {
			t.Helper()
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		}
	}
	return []ReadOnlyCommand{
		{Name: "lint --live -n", Args: []string{"lint", "--live", "-n", liveNamespace}, Exit: []int{0, 1},
			Check: contains(src(liveNamespace, "Deployment", "web")+":", src(liveNamespace, "StatefulSet", "db")+":", "objects: ")},
		{Name: "lint --live -A", Args: []string{"lint", "--live", "-A", "-o", "json"}, Exit: []int{0, 1},
			Check: func(t *testing.T, r result) {
				var rep struct {
					Summary struct{ Objects int } `json:"summary"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
					t.Fatalf("-o json: %v\n%s", err, r.stdout)
				}
				// 2 Deployments, a StatefulSet, a Job, 2 Services, a PDB and an HPA.
				if rep.Summary.Objects < 8 {
					t.Errorf("summary.objects = %d, want at least 8 (both namespaces)", rep.Summary.Objects)
				}
			}},
		{Name: "lint --live TYPE/NAME", Args: []string{"lint", "--live", "deployment/web", "-n", liveNamespace, "-o", "json"}, Exit: []int{0, 1},
			Check: func(t *testing.T, r result) {
				if strings.Contains(r.stdout, "StatefulSet") {
					t.Errorf("lint --live deployment/web reports on the StatefulSet:\n%s", r.stdout)
				}
				contains(`"objects": 1`)(t, r)
			}},
		{Name: "lint --live TYPE NAME --verbose", Args: []string{"lint", "--live", "deployments", "web", "-n", liveNamespace, "--verbose"}, Exit: []int{0, 1},
			Check: contains(src(liveNamespace, "Deployment", "web"), "1 object: ")},
		{Name: "lint --against-live selector", Args: []string{"lint", "-f", env.path("deploy-selector.yaml"), "--against-live"}, Exit: []int{1},
			Check: contains(env.path("deploy-selector.yaml")+":8:3: error api/invalid: spec.selector: Invalid value: ", "field is immutable")},
		{Name: "lint --against-live Pod Security labels of the cluster's namespace", Args: []string{"lint", "-f", env.path("pss-deploy.yaml"), "--against-live"}, Exit: []int{1},
			Check: contains(env.path("pss-deploy.yaml")+":13:5: error pss/enforce: would violate PodSecurity \"restricted:latest\": ",
				"namespace "+livePSSNamespace+" refuses every pod it creates (enforce=restricted)")},
		{Name: "lint --against-live overlap", Args: []string{"lint", "-f", env.path("canary.yaml"), "--against-live"}, Exit: []int{0, 1},
			Check: contains("selector/overlap", "web")},
		{Name: "predict TYPE/NAME --image", Args: []string{"predict", "deployment/web", "-n", liveNamespace, "--image", "web=nginx:1.28"}, Exit: []int{0, 1},
			Check: contains("Deployment "+liveNamespace+"/web", `context "`+ctxName+`": 0 ReplicaSets`, "Scaled up replica set web-")},
		{Name: "predict TYPE NAME --replicas -o json", Args: []string{"predict", "deployments", "web", "-n", liveNamespace, "--replicas", "5", "-o", "json"}, Exit: []int{0, 1},
			Check: contains(`"name": "web"`, `"replicas": 5`)},
		{Name: "predict -f DaemonSet --live (reads nodes)", Args: []string{"predict", "-f", env.path("ds-image.yaml"), "--live"}, Exit: []int{0, 1},
			Check: contains("DaemonSet " + liveNamespace + "/agent")},
		{Name: "predict -f --live", Args: []string{"predict", "-f", env.path("deploy-selector.yaml"), "--live"}, Exit: []int{1},
			Check: contains("field is immutable")},
	}
}

// TestLiveReadOnly runs every live command as a user who holds only the rules of the built-in
// view role (system:aggregate-to-view), plus get and list on nodes: each must succeed, print
// no credentials, and the API server's audit log must show that user sending no other verb,
// and refused nothing but the list of podtemplates that view does not grant.
func TestLiveReadOnly(t *testing.T) {
	env := sharedLiveEnv(t)
	for _, cmd := range readOnlyCommands(env) {
		t.Run(cmd.Name, func(t *testing.T) {
			r := env.run(t, env.reader.Kubeconfig, cmd.Args...)
			if !slices.Contains(cmd.Exit, r.code) {
				t.Fatalf("%v: exit %d, want one of %v\nstdout:\n%s\nstderr:\n%s", cmd.Args, r.code, cmd.Exit, r.stdout, r.stderr)
			}
			// The view role does not grant podtemplates: lint, which reads them only as
			// context, says so in one line and goes on; predict never reads them.
			wantNotes := 0
			if cmd.Args[0] == "lint" {
				wantNotes = 1
			}
			var notes []string
			for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
				switch {
				case l == "":
				case strings.HasPrefix(l, "note: ") && strings.Contains(l, "PodTemplates skipped") && strings.Contains(l, "list podtemplates"):
					notes = append(notes, l)
				case strings.HasPrefix(l, "note: ") && strings.Contains(l, "(forbidden), so the cluster's ValidatingAdmissionPolicies are not evaluated"):
					// --against-live: the view role does not grant admission policies.
				default:
					t.Errorf("%v: stderr line %q, want only the note on PodTemplates (no warning or error: the server is v1.37)", cmd.Args, l)
				}
			}
			if len(notes) != wantNotes {
				t.Errorf("%v: %d notes on PodTemplates on stderr, want %d:\n%s", cmd.Args, len(notes), wantNotes, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, env.reader.Token) {
				t.Errorf("%v: the user's token appears in the output", cmd.Args)
			}
			if cmd.Check != nil {
				cmd.Check(t, r)
			}
		})
	}
	events, err := env.cluster.AuditEvents(env.reader.Username)
	if err != nil {
		t.Fatal(err)
	}
	verbs := VerbCounts(events)
	t.Logf("audit log: %d requests from %s: %s", len(events), env.reader.Username, strings.Join(verbs, " "))
	seen := map[string]bool{}
	for _, e := range events {
		seen[e.Verb] = true
		if !slices.Contains(ReadVerbs, e.Verb) {
			t.Errorf("audit log: %s sent %s %s (HTTP %v): want only %v", env.reader.Username, e.Verb, e.RequestURI, e.ResponseStatus, ReadVerbs)
		}
		// PodTemplates are context; the view role grants neither CRDs nor admission
		// policies, which --against-live reads to check the files (and notes when refused).
		forbiddenContext := e.Verb == "list" && e.ObjectRef != nil && slices.Contains([]string{"podtemplates",
			"customresourcedefinitions", "validatingadmissionpolicies", "validatingadmissionpolicybindings"}, e.ObjectRef.Resource)
		if e.ResponseStatus != nil && e.ResponseStatus.Code == 403 && !forbiddenContext {
			t.Errorf("audit log: %s was refused %s %s: the read-only role should suffice", env.reader.Username, e.Verb, e.RequestURI)
		}
	}
	if !seen["list"] || !seen["get"] {
		t.Errorf("audit log: verbs from %s = %v, want list and get among them (is the audit log read?)", env.reader.Username, verbs)
	}
}

// TestLiveAgainstLiveParity compares lint --against-live with the API server's verdict on
// the same file: kubectl apply --dry-run=server, as the cluster's administrator. Every api/
// error lint reports must appear word for word in the server's answer, and the server must
// refuse exactly when lint reports one.
func TestLiveAgainstLiveParity(t *testing.T) {
	env := sharedLiveEnv(t)
	tests := []struct {
		file string
		// field is where lint must place the error: the line of that key in the file.
		field, key string
	}{
		{file: "deploy-selector.yaml", field: "spec.selector", key: "  selector:"},
		{file: "sts-storage.yaml", field: "spec.volumeClaimTemplates", key: "  volumeClaimTemplates:"},
		{file: "job-image.yaml", field: "spec.template", key: "  template:"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			server, err := env.cluster.Kubectl(ctx, "apply", "--dry-run=server", "-f", env.path(tt.file))
			if err == nil {
				t.Fatalf("kubectl apply --dry-run=server accepted %s:\n%s", tt.file, server)
			}
			r := env.run(t, env.cluster.Kubeconfig, "lint", "-o", "json", "--against-live", "-f", env.path(tt.file))
			if r.code != 1 {
				t.Fatalf("lint exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			var rep struct {
				Findings []struct {
					Rule, Message, Field string
					Severity             string
					Line                 int
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("-o json: %v\n%s", err, r.stdout)
			}
			wantLine := 1 + strings.Count(env.files[tt.file][:strings.Index(env.files[tt.file], tt.key+"\n")], "\n")
			var found bool
			for _, f := range rep.Findings {
				if !strings.HasPrefix(f.Rule, "api/") || f.Severity != "error" {
					continue
				}
				if !strings.Contains(string(server), f.Message) {
					t.Errorf("lint: %s\nis not in the server's answer:\n%s", f.Message, server)
				}
				if f.Field == tt.field {
					found = true
					if f.Line != wantLine {
						t.Errorf("lint places %s at line %d, want %d", f.Field, f.Line, wantLine)
					}
				}
			}
			if !found {
				t.Errorf("lint reports no api/ error on %s; server said:\n%s\nlint said:\n%s", tt.field, server, r.stdout)
			}
		})
	}
}

// TestLiveErrors checks that each way a live command can fail is one line on stderr that
// names the context or the object, exit status 2, nothing on stdout, and no credentials.
func TestLiveErrors(t *testing.T) {
	env := sharedLiveEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	closed, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	garbage := "garbage-token-" + strings.Repeat("x7", 12)
	unreachable := filepath.Join(env.dir, "kubeconfig-unreachable")
	if err := WriteKubeconfig(unreachable, "nowhere", fmt.Sprintf("https://127.0.0.1:%d", closed[0]), garbage, "default"); err != nil {
		t.Fatal(err)
	}
	expired := filepath.Join(env.dir, "kubeconfig-expired")
	if err := WriteKubeconfig(expired, "stale", env.cluster.Server, garbage, liveNamespace); err != nil {
		t.Fatal(err)
	}
	nobody, err := env.cluster.CreateUser(ctx, "live-readers", "no-rbac", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		kubeconfig string
		token      string
		args       []string
		want       []string
	}{
		{name: "unreachable cluster", kubeconfig: unreachable, token: garbage, args: []string{"lint", "--live"},
			want: []string{`context "nowhere"`, "cannot reach the API server", "connection refused"}},
		{name: "invalid token", kubeconfig: expired, token: garbage, args: []string{"lint", "--live", "--verbose"},
			want: []string{`context "stale"`, "401 Unauthorized"}},
		{name: "forbidden list", kubeconfig: nobody.Kubeconfig, token: nobody.Token, args: []string{"lint", "--live", "-n", liveNamespace},
			want: []string{`context "no-rbac"`, "is forbidden", `cannot list resource "deployments"`}},
		{name: "forbidden against-live", kubeconfig: nobody.Kubeconfig, token: nobody.Token,
			args: []string{"lint", "--against-live", "-f", env.path("deploy-selector.yaml")},
			want: []string{`context "no-rbac"`, "is forbidden"}},
		{name: "missing object", kubeconfig: env.reader.Kubeconfig, token: env.reader.Token,
			args: []string{"lint", "--live", "deployment/nope", "-n", liveNamespace},
			want: []string{`context "view-reader"`, `"nope" not found`}},
		{name: "predict unreachable cluster", kubeconfig: unreachable, token: garbage, args: []string{"predict", "deployment/web", "--replicas", "3"},
			want: []string{`context "nowhere"`, "cannot reach the API server"}},
		{name: "predict invalid token", kubeconfig: expired, token: garbage, args: []string{"predict", "deployment/web", "--image", "web=nginx:2"},
			want: []string{`context "stale"`, "401 Unauthorized"}},
		{name: "predict forbidden", kubeconfig: nobody.Kubeconfig, token: nobody.Token, args: []string{"predict", "deployment/web", "-n", liveNamespace, "--replicas", "3"},
			want: []string{`context "no-rbac"`, "is forbidden"}},
		{name: "predict missing deployment", kubeconfig: env.reader.Kubeconfig, token: env.reader.Token,
			args: []string{"predict", "deployment/nope", "-n", liveNamespace, "--replicas", "3"},
			want: []string{`context "view-reader"`, "deployment " + liveNamespace + "/nope: not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.run(t, tt.kubeconfig, tt.args...)
			t.Logf("%v: exit %d: %s", tt.args, r.code, strings.TrimSpace(r.stderr))
			if r.code != 2 {
				t.Errorf("exit %d, want 2", r.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") {
				t.Errorf("stderr = %q, want one line starting with \"error: \"", r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr = %q, want it to contain %q", r.stderr, w)
				}
			}
			if strings.Contains(r.stdout+r.stderr, tt.token) {
				t.Errorf("the token appears in the output: %q", r.stderr)
			}
			for _, bad := range []string{"goroutine ", "panic", ".go:"} {
				if strings.Contains(r.stderr, bad) {
					t.Errorf("stderr holds %q, a stack trace or source position: %q", bad, r.stderr)
				}
			}
		})
	}
}
