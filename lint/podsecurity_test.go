package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/config"
)

// meshPod has a privileged sidecar (istio-proxy) and an application container that
// escalates, and an annotation that tries to silence pss/baseline.
const meshPod = `apiVersion: v1
kind: Pod
metadata:
  name: mesh
  annotations:
    kubectl-workload/ignore: pss/baseline
    kubectl-workload/ignore-reason: sidecars are reviewed by the mesh team
spec:
  containers:
  - name: app
    image: app:1.0
    securityContext:
      capabilities: {add: [NET_ADMIN]}
  - name: istio-proxy
    image: proxy:1.0
    securityContext:
      privileged: true
`

func TestPodSecurityGovernance(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   []string // line:col rule [suppressed kind]
	}{
		{
			name: "no configuration: the annotation silences pss/baseline; pss/restricted is off",
			want: []string{"13:22 pss/baseline [annotation]", "17:7 pss/baseline [annotation]"},
		},
		{
			name:   "enforced: the annotation silences nothing, and trying is a finding",
			config: "rules:\n  enforce: [pss/*]\n",
			want:   []string{"13:22 ignore/enforced", "13:22 pss/baseline", "17:7 pss/baseline"},
		},
		{
			name:   "an exemption by container name exempts only that container",
			config: "exemptions:\n  - rules: [pss/*]\n    containers: [istio-proxy]\n    reason: injected sidecar\n",
			want:   []string{"13:22 pss/baseline [annotation]", "17:7 pss/baseline [config]"},
		},
		{
			name:   "an exemption by container name applies to the Rego rules' findings too",
			config: "rules:\n  enable: [resources/cpu-limit-missing]\n  disable: [pss/baseline]\nexemptions:\n  - rules: [resources/*]\n    containers: [istio-proxy]\n    reason: injected sidecar\n",
			want:   []string{"10:5 resources/cpu-limit-missing", "14:5 resources/cpu-limit-missing [config]"},
		},
		{
			name:   "opt-in pss/restricted, enabled",
			config: "rules:\n  enable: [pss/restricted]\n  disable: [pss/baseline]\n",
			// The app container's added capability is baseline's: restricted's
			// capabilities check, which overrides it, is not reported twice.
			want: []string{"12:5 pss/restricted", "12:5 pss/restricted", "12:5 pss/restricted",
				"16:5 pss/restricted", "16:5 pss/restricted", "16:5 pss/restricted", "16:5 pss/restricted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var settings *config.File
			if tt.config != "" {
				path := filepath.Join(t.TempDir(), config.FileName)
				if err := os.WriteFile(path, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
				var err error
				if settings, err = config.Load(path); err != nil {
					t.Fatal(err)
				}
			}
			res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(meshPod), Settings: withOldDefaults(settings)})
			var got []string
			for _, f := range res.Findings {
				if !strings.HasPrefix(f.Rule, "pss/") && !strings.HasPrefix(f.Rule, "ignore/") && f.Rule != "resources/cpu-limit-missing" {
					continue
				}
				s := strings.Join([]string{itoa(f.Line) + ":" + itoa(f.Column), f.Rule}, " ")
				if f.Suppressed != nil {
					s += " [" + f.Suppressed.Kind + "]"
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestPodSecurityNamespaceLabels(t *testing.T) {
	doc := `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    pod-security.kubernetes.io/enforce: baseline
    pod-security.kubernetes.io/warn: restricted
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80, hostPort: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: other}
spec:
  containers: [{name: tool, image: busybox:1.36, securityContext: {privileged: true}}]
`
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(doc), Settings: withOldDefaults(nil)})
	var got []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "pss/") {
			got = append(got, itoa(f.Line)+" "+f.Rule+" "+f.Severity.String()+": "+f.Message)
		}
	}
	want := []string{
		`20 pss/enforce error: would violate PodSecurity "baseline:latest": hostPort (container "web" uses hostPort 80); the API server accepts the Deployment, but namespace shop refuses every pod it creates (enforce=baseline), so the rollout never makes progress`,
		`20 pss/warn warning: would violate PodSecurity "restricted:latest": hostPort (container "web" uses hostPort 80), allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
		`26 pss/baseline warning: privileged (container "tool" must not set securityContext.privileged=true): forbidden by the baseline Pod Security Standard`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestNamespaceMismatch(t *testing.T) {
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n"
	for _, tt := range []struct {
		ns   string
		want []string
	}{
		{"prod", []string{`5 input/namespace-mismatch: the namespace from the provided object "shop" does not match the namespace "prod". You must pass '--namespace=shop' to perform this operation.`}},
		{"shop", nil},
		{"", nil},
	} {
		res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(doc), Namespace: tt.ns})
		var got []string
		for _, f := range res.Findings {
			got = append(got, strconv.Itoa(f.Line)+" "+f.Rule+": "+f.Message)
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("lint -n %q: findings =\n%s\nwant\n%s", tt.ns, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func TestReferencesMissing(t *testing.T) {
	doc := `apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: web
      containers:
      - name: web
        image: nginx:1.27
        envFrom:
        - configMapRef: {name: app-confg}
        - secretRef: {name: db}
      volumes:
      - name: cfg
        configMap: {name: app-config}
      - name: opt
        configMap: {name: extra, optional: true}
`
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(doc), Settings: withOldDefaults(nil)})
	var got []string
	for _, f := range res.Findings {
		if f.Rule == RuleReferenceMissing {
			got = append(got, strconv.Itoa(f.Line)+":"+strconv.Itoa(f.Column)+" "+f.Field)
		}
	}
	// No Secret and no ServiceAccount in the input: only the misspelled ConfigMap.
	want := []string{"19:26 spec.template.spec.containers[0].envFrom[0].configMapRef.name"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("references/missing findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCronJobNeverFires(t *testing.T) {
	cj := func(schedule string) string {
		return "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: report}\nspec:\n  schedule: \"" + schedule +
			"\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers: [{name: r, image: busybox:1.36}]\n"
	}
	for _, tt := range []struct {
		schedule string
		want     bool
	}{
		{"0 0 31 2 *", true},
		{"0 0 30 2 *", true},
		{"0 0 29 2 *", false}, // leap years
		{"*/5 * * * *", false},
	} {
		res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(cj(tt.schedule))})
		got := false
		for _, f := range res.Findings {
			if f.Rule == RuleCronJobNeverFires {
				got = true
				if f.Line != 5 || f.Field != "spec.schedule" {
					t.Errorf("schedule %q: finding at %d %s, want line 5 spec.schedule", tt.schedule, f.Line, f.Field)
				}
			}
		}
		if got != tt.want {
			t.Errorf("schedule %q: cronjob/never-fires = %v, want %v", tt.schedule, got, tt.want)
		}
	}
}

// TestPodSecurityClusterNamespaceLabels checks that the cluster's Namespace labels
// (Baseline.NamespaceLabels, lint --live and --against-live) apply to the pods of a
// namespace the input does not hold, exactly as an input Namespace's, and that an input
// Namespace replaces the cluster's.
func TestPodSecurityClusterNamespaceLabels(t *testing.T) {
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80, hostPort: 80}]
`
	cluster := map[string]map[string]string{
		"shop":  {"pod-security.kubernetes.io/enforce": "restricted", "kubernetes.io/metadata.name": "shop"},
		"other": {"pod-security.kubernetes.io/enforce": "privileged"},
	}
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{
			name: "cluster labels",
			doc:  deployment,
			want: []string{`12 pss/enforce error: would violate PodSecurity "restricted:latest": hostPort (container "web" uses hostPort 80), allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"); the API server accepts the Deployment, but namespace shop refuses every pod it creates (enforce=restricted), so the rollout never makes progress`},
		},
		{
			name: "the input's Namespace replaces the cluster's",
			doc:  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    pod-security.kubernetes.io/enforce: baseline\n---\n" + deployment,
			want: []string{`19 pss/enforce error: would violate PodSecurity "baseline:latest": hostPort (container "web" uses hostPort 80); the API server accepts the Deployment, but namespace shop refuses every pod it creates (enforce=baseline), so the rollout never makes progress`},
		},
		{
			name: "the input's Namespace without labels",
			doc:  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\n" + deployment,
			want: []string{`17 pss/baseline warning: hostPort (container "web" uses hostPort 80): forbidden by the baseline Pod Security Standard`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(tt.doc),
				Baseline: &Baseline{NamespaceLabels: cluster}, Settings: withOldDefaults(nil)})
			var got []string
			for _, f := range res.Findings {
				if strings.HasPrefix(f.Rule, "pss/") {
					got = append(got, itoa(f.Line)+" "+f.Rule+" "+f.Severity.String()+": "+f.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestReferencesMissingSecretMakers: kube-root-ca.crt is in every namespace;
// a Secret a controller's custom resource names is made by it; a Secret that
// a hook Job or an init container may create is reported at info, saying so.
func TestReferencesMissingSecretMakers(t *testing.T) {
	const others = `apiVersion: v1
kind: Secret
metadata: {name: other}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
---
`
	const pod = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
%s      containers:
      - name: web
        image: nginx:1.27
      volumes:
      - name: ca
        configMap: {name: kube-root-ca.crt}
      - name: certs
        secret: {secretName: web-certs}
`
	const hookJob = `---
apiVersion: batch/v1
kind: Job
metadata:
  name: admission-create
  annotations: {helm.sh/hook: "pre-install,pre-upgrade"}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - {name: create, image: registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.5.0}
`
	const certificate = `---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  secretName: web-certs
  issuerRef: {name: selfsigned}
`
	const initContainers = "      initContainers:\n      - {name: gen, image: busybox:1.36}\n"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"nothing makes it", others + fmt.Sprintf(pod, ""),
			[]string{"warning 24 Secret web-certs is not in the input's namespace default, which holds 1 other Secret: the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)"}},
		{"a hook Job may", others + fmt.Sprintf(pod, "") + hookJob,
			[]string{"info 24 Secret web-certs is not in the input's namespace default, which holds 1 other Secret; a hook Job admission-create may create it, which lint cannot know: if nothing does, the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)"}},
		{"an init container may", others + fmt.Sprintf(pod, initContainers),
			[]string{"info 26 Secret web-certs is not in the input's namespace default, which holds 1 other Secret; an init container of the pod may create it, which lint cannot know: if nothing does, the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)"}},
		{"cert-manager makes it", others + fmt.Sprintf(pod, "") + certificate, nil},
		{"another workload's init container may", others + fmt.Sprintf(pod, "") + "---\n" +
			strings.Replace(fmt.Sprintf(pod, initContainers), "name: web}", "name: redis}", 1),
			[]string{"info 24 Secret web-certs is not in the input's namespace default, which holds 1 other Secret; an init container of Deployment redis may create it, which lint cannot know: if nothing does, the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)",
				"info 43 Secret web-certs is not in the input's namespace default, which holds 1 other Secret; an init container of the pod may create it, which lint cannot know: if nothing does, the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(tt.doc)})
			var got []string
			for _, f := range res.Findings {
				if f.Rule == RuleReferenceMissing {
					got = append(got, f.Severity.String()+" "+strconv.Itoa(f.Line)+" "+f.Message)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("references/missing findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
