package rules_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// wantFinding is one expected finding: its field path, its severity ("" for
// the rule's own) and a part of its message.
type wantFinding struct {
	path, severity, msg string
}

// TestObjectRulesWrittenVersusDefaulted runs per-object rules on
// manifests where the defaulted object hides what was written (a default
// filled in, a quantity canonicalized, a hostPort copied from the
// containerPort): the message and the field must follow what was written,
// as the Rego rules that read input.object did.
func TestObjectRulesWrittenVersusDefaulted(t *testing.T) {
	tests := []struct {
		name, rule, manifest string
		want                 []wantFinding
	}{
		{
			name: "minReplicas left to its default", rule: "hpa/min-replicas-one",
			manifest: hpa(""),
			want:     []wantFinding{{"spec", "", "(minReplicas 1, the default)"}},
		},
		{
			name: "minReplicas written 1", rule: "hpa/min-replicas-one",
			manifest: hpa("  minReplicas: 1\n"),
			want:     []wantFinding{{"spec.minReplicas", "", "(minReplicas 1)"}},
		},
		{
			name: "minReplicas 2", rule: "hpa/min-replicas-one",
			manifest: hpa("  minReplicas: 2\n"),
		},
		{
			name: "backoffLimit left to its default", rule: "job/onfailure-backoff",
			manifest: job("OnFailure", ""),
			want:     []wantFinding{{"spec.template.spec.restartPolicy", "", "with the default backoffLimit 6: "}},
		},
		{
			name: "backoffLimit written 6", rule: "job/onfailure-backoff",
			manifest: job("OnFailure", "  backoffLimit: 6\n"),
			want:     []wantFinding{{"spec.template.spec.restartPolicy", "", "with backoffLimit 6: "}},
		},
		{
			name: "backoffLimit 0", rule: "job/onfailure-backoff",
			manifest: job("OnFailure", "  backoffLimit: 0\n"),
			want:     []wantFinding{{"spec.template.spec.restartPolicy", "", "at the first restart"}},
		},
		{
			name: "backoffLimitPerIndex defaults backoffLimit to MaxInt32", rule: "job/onfailure-backoff",
			manifest: job("OnFailure", "  completionMode: Indexed\n  completions: 3\n  backoffLimitPerIndex: 2\n"),
		},
		{
			name: "completions without parallelism (defaulted to 1)", rule: "job/parallelism-exceeds-completions",
			manifest: job("Never", "  completions: 0\n"),
		},
		{
			name: "parallelism written above completions", rule: "job/parallelism-exceeds-completions",
			manifest: job("Never", "  completions: 2\n  parallelism: 5\n"),
			want:     []wantFinding{{"spec.parallelism", "", "parallelism 5 exceeds completions 2"}},
		},
		{
			name: "concurrencyPolicy left to its default", rule: "cronjob/unbounded-concurrency",
			manifest: cronJob(""),
			want:     []wantFinding{{"spec", "", "concurrencyPolicy is unset (Allow by default)"}},
		},
		{
			name: "concurrencyPolicy written Allow", rule: "cronjob/unbounded-concurrency",
			manifest: cronJob("  concurrencyPolicy: Allow\n"),
			want:     []wantFinding{{"spec.concurrencyPolicy", "", "concurrencyPolicy is Allow and"}},
		},
		{
			name: "hostNetwork makes the containerPort a host port", rule: "daemonset/surge-with-hostport",
			manifest: daemonSet("      hostNetwork: true\n", "        - containerPort: 9100\n"),
			want: []wantFinding{{"spec.template.spec.containers[0].ports[0].containerPort", "",
				"host port 9100/TCP (container \"agent\", a host port because of hostNetwork)"}},
		},
		{
			name: "hostPort written", rule: "daemonset/surge-with-hostport",
			manifest: daemonSet("", "        - containerPort: 9100\n          hostPort: 9100\n          protocol: UDP\n"),
			want:     []wantFinding{{"spec.template.spec.containers[0].ports[0].hostPort", "", "host port 9100/UDP (container \"agent\")"}},
		},
		{
			name: "probes equal only once defaulted", rule: "probes/liveness-equals-readiness",
			manifest: pod("    livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 10}\n    readinessProbe: {httpGet: {path: /healthz, port: 8080}}\n"),
		},
		{
			name: "probes equal as written", rule: "probes/liveness-equals-readiness",
			manifest: pod("    livenessProbe: {httpGet: {path: /healthz, port: 8080}}\n    readinessProbe: {httpGet: {port: 8080, path: /healthz}}\n"),
			want:     []wantFinding{{"spec.containers[0].livenessProbe", "", "livenessProbe is identical to readinessProbe"}},
		},
		{
			name: "request and limit quoted as written", rule: "resources/not-guaranteed",
			manifest: pod("    resources: {requests: {cpu: 0.5, memory: 1024Mi}, limits: {cpu: 500m, memory: 2Gi}}\n"),
			want:     []wantFinding{{"spec.containers[0].resources", "", "requests memory 1024Mi, not its limit 2Gi, so"}},
		},
		{
			name: "request equal to its limit by value", rule: "resources/not-guaranteed",
			manifest: pod("    resources: {requests: {cpu: 0.5, memory: 1024Mi}, limits: {cpu: 500m, memory: 1Gi}}\n"),
		},
		{
			name: "a Pod's requests defaulted from its limits", rule: "resources/not-guaranteed",
			manifest: pod("    resources: {limits: {cpu: 1, memory: 1Gi}}\n"),
		},
		{
			name: "ephemeral-storage request quoted as written", rule: "resources/ephemeral-storage-missing",
			manifest: pod("    resources: {requests: {ephemeral-storage: 1024Mi}}\n"),
			want:     []wantFinding{{"spec.containers[0].resources", "", "requests ephemeral-storage 1024Mi but sets no"}},
		},
		{
			name: "moving tag, policy defaulted to IfNotPresent", rule: "images/pull-policy-mutable-tag",
			manifest: podImage("registry.example.com/app:main", ""),
			want:     []wantFinding{{"spec.containers[0].imagePullPolicy", "", "uses the moving tag main"}},
		},
		{
			name: "tag latest, policy defaulted to Always", rule: "images/pull-policy-mutable-tag",
			manifest: podImage("registry.example.com/app:latest", ""),
		},
		{
			name: "a reference the kubelet cannot parse, policy defaulted", rule: "images/pull-policy-mutable-tag",
			manifest: podImage("<YOUR-IMAGE>", ""),
		},
		{
			name: "a reference the kubelet cannot parse, IfNotPresent written", rule: "images/pull-policy-mutable-tag",
			manifest: podImage("<YOUR-IMAGE>", "    imagePullPolicy: IfNotPresent\n"),
			want:     []wantFinding{{"spec.containers[0].imagePullPolicy", "", "uses the moving tag latest"}},
		},
		{
			name: "named probe port only a sidecar declares", rule: "probes/port-not-declared",
			manifest: pod("    ports: [{name: http, containerPort: 8080}]\n    readinessProbe: {httpGet: {path: /, port: health}}\n" +
				"  - name: proxy\n    image: registry.example.com/proxy:1.0\n    ports: [{name: health, containerPort: 9901}]\n"),
			want: []wantFinding{{"spec.containers[0].readinessProbe.httpGet.port", "",
				`port "health" is not the name of a port the container declares (its named ports: http)`}},
		},
		{
			name: "numeric health port left out of ports needs no declaration", rule: "probes/port-not-declared",
			manifest: pod("    ports: [{name: http, containerPort: 80}]\n    livenessProbe: {tcpSocket: {port: 10254}}\n"),
		},
		{
			name: "terminationGracePeriodSeconds left to its default", rule: "rollout/recreate",
			manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  strategy: {type: Recreate}\n" +
				"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: app, image: registry.example.com/app:1.0}]\n",
			want: []wantFinding{{"spec.strategy.type", "", "(up to terminationGracePeriodSeconds 30, the default) plus"}},
		},
		{
			name: "replicas left to its default", rule: "statefulset/partition-blocks-updates",
			manifest: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 1}}\n" +
				"  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: db, image: registry.example.com/db:1.0}]\n",
			want: []wantFinding{{"spec.updateStrategy.rollingUpdate.partition", "", "partition 1 is at least replicas 1 (the default): "}},
		},
	}
	byID := map[string]rules.BuiltinRule{}
	for _, g := range rules.BuiltinRules() {
		byID[g.Meta.ID] = g
	}
	api := apicheck.New()
	for _, tt := range tests {
		t.Run(tt.rule+"/"+tt.name, func(t *testing.T) {
			g, ok := byID[tt.rule]
			if !ok || g.Check == nil {
				t.Fatalf("%s is not a per-object rule", tt.rule)
			}
			c := objectContext(t, api, tt.manifest)
			got := g.Check(c)
			if len(got) != len(tt.want) {
				t.Fatalf("Check() = %+v, want %d findings like %+v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if got[i].Path != w.path {
					t.Errorf("Check()[%d].Path = %q, want %q", i, got[i].Path, w.path)
				}
				if got[i].Severity != w.severity {
					t.Errorf("Check()[%d].Severity = %q, want %q", i, got[i].Severity, w.severity)
				}
				if !strings.Contains(got[i].Message, w.msg) {
					t.Errorf("Check()[%d].Message = %q, want it to contain %q", i, got[i].Message, w.msg)
				}
			}
		})
	}
}

// objectContext decodes and defaults manifest as the API tier does, and
// fails the test when the API server would reject it.
func objectContext(t *testing.T, api *apicheck.Checker, manifest string) *rules.ObjectContext {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatalf("YAMLToJSON: %v", err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(js, &head); err != nil {
		t.Fatal(err)
	}
	res := api.Check(context.Background(), apicheck.Object{APIVersion: head.APIVersion, Kind: head.Kind, Name: head.Metadata.Name, JSON: js}, apicheck.Options{})
	for _, is := range res.Issues {
		if !is.Warning {
			t.Fatalf("the API server would reject the manifest: %s: %s", is.Field, is.Message)
		}
	}
	if res.Versioned == nil {
		t.Fatal("the manifest did not decode")
	}
	return &rules.ObjectContext{Object: res.Versioned, JSON: js, Kind: head.Kind, APIVersion: head.APIVersion,
		Name: head.Metadata.Name, Namespace: "default", Key: rules.Key(head.Kind, head.Metadata.Name),
		Deployment: rules.DeploymentFactsOf(res.Versioned)}
}

func hpa(extra string) string {
	return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n" +
		"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n" + extra
}

func job(restartPolicy, extra string) string {
	return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n" + extra +
		"  ttlSecondsAfterFinished: 60\n  template:\n    spec:\n      restartPolicy: " + restartPolicy +
		"\n      containers: [{name: migrate, image: registry.example.com/migrate:1.0}]\n"
}

func cronJob(extra string) string {
	return "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: report}\nspec:\n  schedule: \"0 3 * * *\"\n" + extra +
		"  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n" +
		"          containers: [{name: report, image: registry.example.com/report:1.0}]\n"
}

func daemonSet(podExtra, ports string) string {
	return "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n" +
		"  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n" +
		"  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n" + podExtra +
		"      containers:\n      - name: agent\n        image: registry.example.com/agent:1.0\n        ports:\n" + ports
}

// pod is a bare Pod whose container "app" gets the extra lines (indented
// four spaces; further containers start with "  - name:").
func pod(extra string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: app\n    image: registry.example.com/app:1.0\n" + extra
}

func podImage(image, extra string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: app\n    image: \"" + image + "\"\n" + extra
}
