package apicheck

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

const validDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
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

func check(t *testing.T, doc string, opts Options) Result {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("YAMLToJSON: %v", err)
	}
	var h struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(js, &h); err != nil {
		t.Fatalf("header: %v", err)
	}
	return New().Check(context.Background(), Object{APIVersion: h.APIVersion, Kind: h.Kind, JSON: js}, opts)
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name        string
		doc         string
		wantChecked bool
		// want lists "rule field: message" for every issue, in order.
		want []string
	}{
		{
			name:        "valid deployment",
			doc:         validDeployment,
			wantChecked: true,
		},
		{
			name:        "selector does not match template labels",
			doc:         strings.Replace(validDeployment, "        app: web", "        app: webx", 1),
			wantChecked: true,
			want: []string{"api/invalid spec.template.metadata.labels: " +
				`spec.template.metadata.labels: Invalid value: {"app":"webx"}: ` + "`selector` does not match template `labels`"},
		},
		{
			name:        "unknown field stops at decoding, as the server does",
			doc:         strings.Replace(validDeployment, "spec:\n  selector:", "spec:\n  replcias: 3\n  replicas: -1\n  selector:", 1),
			wantChecked: true,
			want:        []string{`api/unknown-field spec.replcias: Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replcias"`},
		},
		{
			name:        "wrong type",
			doc:         strings.Replace(validDeployment, "spec:\n  selector:", "spec:\n  replicas: \"3\"\n  selector:", 1),
			wantChecked: true,
			want:        []string{`api/decode spec.replicas: Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		},
		{
			name:        "negative replicas and zero surge with zero unavailable",
			doc:         strings.Replace(validDeployment, "spec:\n  selector:", "spec:\n  replicas: -1\n  strategy:\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 0\n  selector:", 1),
			wantChecked: true,
			want: []string{
				"api/invalid spec.replicas: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
				"api/invalid spec.strategy.rollingUpdate.maxUnavailable: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0",
			},
		},
		{
			name:        "missing name",
			doc:         strings.Replace(validDeployment, "  name: web\n", "  labels: {}\n", 1),
			wantChecked: true,
			want:        []string{"api/required metadata.name: metadata.name: Required value: name or generateName is required"},
		},
		{
			name:        "removed version",
			doc:         strings.Replace(validDeployment, "apps/v1", "extensions/v1beta1", 1),
			wantChecked: false,
			want:        []string{`api/removed-version apiVersion: no matches for kind "Deployment" in version "extensions/v1beta1": it was removed in Kubernetes v1.16; use apps/v1`},
		},
		{
			name:        "removed version of a whole group version",
			doc:         "apiVersion: apps/v1beta2\nkind: StatefulSet\nmetadata:\n  name: db\n",
			wantChecked: false,
			want:        []string{`api/removed-version apiVersion: no matches for kind "StatefulSet" in version "apps/v1beta2": it was removed in Kubernetes v1.16; use apps/v1`},
		},
		{
			name:        "a version never served for the kind",
			doc:         strings.Replace(validDeployment, "apps/v1", "batch/v1", 1),
			wantChecked: false,
			want:        []string{`api/unknown-version apiVersion: no matches for kind "Deployment" in version "batch/v1": use apps/v1`},
		},
		{
			name:        "a misspelled kind in a built-in group",
			doc:         strings.Replace(validDeployment, "kind: Deployment", "kind: Deploymnet", 1),
			wantChecked: false,
			want:        []string{`api/unknown-kind kind: no matches for kind "Deploymnet" in version "apps/v1"`},
		},
		{
			name:        "kinds are case-sensitive; kubectl maps a lower-case kind, the server refuses it",
			doc:         "apiVersion: v1\nkind: service\nmetadata:\n  name: web\n",
			wantChecked: false,
			want:        []string{`api/unknown-kind kind: service in version "v1" cannot be handled as a Service: no kind "service" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`},
		},
		{
			name:        "Cronjob",
			doc:         "apiVersion: batch/v1\nkind: Cronjob\nmetadata:\n  name: nightly\n",
			wantChecked: false,
			want:        []string{`api/unknown-kind kind: no matches for kind "Cronjob" in version "batch/v1"`},
		},
		{
			name:        "a CRD group stays silent",
			doc:         "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitr\nmetadata:\n  name: web\n",
			wantChecked: false,
		},
		{
			name:        "a Service is validated: unknown fields",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  bogus: 1\n",
			wantChecked: true,
			want:        []string{`api/unknown-field spec.bogus: Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.bogus"`},
		},
		{
			name:        "a Service targetPort name that is invalid",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n    targetPort: Http_Port\n",
			wantChecked: true,
			want:        []string{`api/invalid spec.ports[0].targetPort: spec.ports[0].targetPort: Invalid value: "Http_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`},
		},
		{
			name:        "a headless Service: clusterIP alone is also clusterIPs, as the server's storage does",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  clusterIP: None\n  selector: {app: db}\n  ports:\n  - port: 5432\n",
			wantChecked: true,
		},
		{
			name:        "a LoadBalancer with externalTrafficPolicy Local: the server allocates healthCheckNodePort before validation",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: ingress-nginx-controller\nspec:\n  type: LoadBalancer\n  externalTrafficPolicy: Local\n  selector: {app: ingress}\n  ports:\n  - {name: http, port: 80, targetPort: http}\n  - {name: https, port: 443, targetPort: https}\n",
			wantChecked: true,
		},
		{
			name:        "a LoadBalancer without node ports still gets its healthCheckNodePort",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: LoadBalancer\n  allocateLoadBalancerNodePorts: false\n  externalTrafficPolicy: Local\n  selector: {app: web}\n  ports:\n  - port: 80\n",
			wantChecked: true,
		},
		{
			name:        "a NodePort Service asking one node port for two port numbers",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n  selector: {app: web}\n  ports:\n  - {name: a, port: 80, nodePort: 30080}\n  - {name: b, port: 81, nodePort: 30080}\n",
			wantChecked: true,
			want:        []string{`api/invalid spec.ports[1].nodePort: spec.ports[1].nodePort: Invalid value: 30080: provided port is already allocated`},
		},
		{
			name:        "a NodePort Service: the same port number over two protocols shares its node port",
			doc:         "apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\nspec:\n  type: NodePort\n  selector: {app: dns}\n  ports:\n  - {name: udp, port: 53, protocol: UDP}\n  - {name: tcp, port: 53, protocol: TCP}\n",
			wantChecked: true,
		},
		{
			name:        "an HPA with maxReplicas below minReplicas",
			doc:         "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 5\n  maxReplicas: 3\n",
			wantChecked: true,
			want:        []string{`api/invalid spec.maxReplicas: spec.maxReplicas: Invalid value: 3: must be greater than or equal to ` + "`minReplicas`"},
		},
		{
			name:        "a PDB with both minAvailable and maxUnavailable",
			doc:         "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n",
			wantChecked: true,
			want:        []string{`api/invalid spec: spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`},
		},
		{
			name:        "a Namespace is cluster-scoped",
			doc:         "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {pod-security.kubernetes.io/enforce: restricted}\n",
			wantChecked: true,
		},
		{
			name:        "a Namespace with an invalid name",
			doc:         "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Shop\n",
			wantChecked: true,
			want:        []string{`api/invalid metadata.name: metadata.name: Invalid value: "Shop": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		},
		{
			name:        "a ConfigMap with an invalid key",
			doc:         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  \"a b\": x\n",
			wantChecked: true,
			want:        []string{`api/invalid data[a b]: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`},
		},
		{
			name:        "an Ingress whose backend names no port",
			doc:         "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  defaultBackend:\n    service: {name: web}\n",
			wantChecked: true,
			want:        []string{`api/required spec.defaultBackend: spec.defaultBackend: Required value: port name or number is required`},
		},
		{
			name:        "a valid NetworkPolicy, Secret and ServiceAccount",
			doc:         "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: deny\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n",
			wantChecked: true,
		},
		{
			name:        "a CRD kind is not validated",
			doc:         "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: web\nspec:\n  bogus: 1\n",
			wantChecked: false,
		},
		{
			name: "privileged daemonset is accepted, as with --allow-privileged=true",
			doc: `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - name: agent
        image: agent:1
        securityContext: {privileged: true}
`,
			wantChecked: true,
		},
		{
			name:        "pod name that is not a DNS label only warns",
			doc:         "apiVersion: v1\nkind: Pod\nmetadata: {name: web.v1}\nspec:\n  containers: [{name: web, image: nginx}]\n",
			wantChecked: true,
			want:        []string{`api/warning metadata.name: metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`},
		},
		{
			name:        "job selector is generated and valid",
			doc:         "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: batch-}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: j, image: busybox}]\n",
			wantChecked: true,
		},
		{
			name:        "job with restartPolicy Always",
			doc:         "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: j, image: busybox}]\n",
			wantChecked: true,
			want:        []string{`api/required spec.template.spec.restartPolicy: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := check(t, tt.doc, Options{})
			if res.Checked != tt.wantChecked {
				t.Errorf("Checked = %v, want %v", res.Checked, tt.wantChecked)
			}
			var got []string
			for _, is := range res.Issues {
				got = append(got, is.Rule+" "+is.Field+": "+is.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Check() issues =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCheckDefaultsTheVersionedObject(t *testing.T) {
	res := check(t, validDeployment, Options{})
	d, ok := res.Versioned.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("Versioned = %T, want *apps/v1.Deployment", res.Versioned)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("defaulted replicas = %v, want 1", d.Spec.Replicas)
	}
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil || ru.MaxSurge.String() != "25%" || ru.MaxUnavailable.String() != "25%" {
		t.Errorf("defaulted strategy = %+v, want RollingUpdate 25%%/25%%", d.Spec.Strategy)
	}
	if d.Spec.Template.Spec.Containers[0].TerminationMessagePath != "/dev/termination-log" {
		t.Errorf("container defaults not applied: %+v", d.Spec.Template.Spec.Containers[0])
	}
}

func TestRemoved(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		wantIn, wantRepl string
		wantOK           bool
	}{
		{"batch/v1beta1", "CronJob", "v1.25", "batch/v1", true},
		{"extensions/v1beta1", "Ingress", "v1.22", "networking.k8s.io/v1", true},
		{"apps/v1beta1", "Deployment", "v1.16", "apps/v1", true},
		{"apps/v1", "Deployment", "", "", false},
		{"batch/v1beta1", "Job", "", "", false},
		{"not/a/version", "Pod", "", "", false},
	}
	for _, tt := range tests {
		in, repl, ok := Removed(tt.apiVersion, tt.kind)
		if in != tt.wantIn || repl != tt.wantRepl || ok != tt.wantOK {
			t.Errorf("Removed(%q, %q) = %q, %q, %v, want %q, %q, %v", tt.apiVersion, tt.kind, in, repl, ok, tt.wantIn, tt.wantRepl, tt.wantOK)
		}
	}
}
