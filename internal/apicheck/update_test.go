package apicheck

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// object reads a YAML manifest into an Object.
func object(t *testing.T, doc string) Object {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("YAMLToJSON: %v", err)
	}
	var h struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(js, &h); err != nil {
		t.Fatalf("header: %v", err)
	}
	return Object{APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Metadata.Name, Namespace: h.Metadata.Namespace, JSON: js}
}

const statefulSet = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
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

const jobManifest = `
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: migrate:1
`

func TestCheckUpdate(t *testing.T) {
	ctx := context.Background()
	c := New()
	tests := []struct {
		name      string
		base, new string
		// want lists "rule field: message prefix" for every issue.
		want []string
	}{
		{name: "unchanged deployment", base: validDeployment, new: validDeployment},
		{name: "deployment image change is fine", base: validDeployment,
			new: strings.Replace(validDeployment, "nginx:1.27", "nginx:1.28", 1)},
		{name: "deployment selector change", base: validDeployment,
			new:  strings.ReplaceAll(validDeployment, "app: web", "app: webx"),
			want: []string{`api/invalid spec.selector: spec.selector: Invalid value: {"matchLabels":{"app":"webx"}}: field is immutable`}},
		{name: "statefulset volumeClaimTemplates change", base: statefulSet,
			new:  strings.Replace(statefulSet, "storage: 1Gi", "storage: 2Gi", 1),
			want: []string{`api/invalid spec.volumeClaimTemplates: spec.volumeClaimTemplates: Invalid value: [{"name":"data",`}},
		{name: "statefulset serviceName change", base: statefulSet,
			new:  strings.Replace(statefulSet, "serviceName: db", "serviceName: db2", 1),
			want: []string{`api/invalid spec.serviceName: spec.serviceName: Invalid value: "db2": field is immutable`}},
		{name: "statefulset replicas change is fine", base: statefulSet,
			new: strings.Replace(statefulSet, "serviceName: db", "serviceName: db\n  replicas: 3", 1)},
		{name: "job unchanged keeps its generated selector", base: jobManifest, new: jobManifest},
		{name: "job template change", base: jobManifest,
			new:  strings.Replace(jobManifest, "migrate:1", "migrate:2", 1),
			want: []string{"api/invalid spec.template: spec.template: Invalid value: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, obj := object(t, tt.base), object(t, tt.new)
			stored, err := c.CreatedByApply(ctx, base, Options{})
			if err != nil {
				t.Fatalf("CreatedByApply: %v", err)
			}
			applied, err := Applied(stored, obj)
			if err != nil {
				t.Fatalf("Applied: %v", err)
			}
			res := c.CheckUpdate(ctx, Object{APIVersion: base.APIVersion, Kind: base.Kind, JSON: stored}, applied, Options{})
			if !res.Checked || res.Versioned == nil {
				t.Errorf("CheckUpdate() Checked = %v, Versioned = %v, want a checked, decoded object", res.Checked, res.Versioned)
			}
			var got []string
			for _, is := range res.Issues {
				got = append(got, is.Rule+" "+is.Field+": "+is.Message)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("CheckUpdate() issues =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("CheckUpdate() issue %d = %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestCheckUpdateSameObject(t *testing.T) {
	// A live object checked against itself: what lint --live does.
	ctx := context.Background()
	c := New()
	stored, err := c.CreatedByApply(ctx, object(t, jobManifest), Options{Namespace: "batch"})
	if err != nil {
		t.Fatalf("CreatedByApply: %v", err)
	}
	obj := Object{APIVersion: "batch/v1", Kind: "Job", Name: "migrate", JSON: stored}
	if res := c.CheckUpdate(ctx, obj, obj, Options{}); len(res.Issues) != 0 {
		t.Errorf("CheckUpdate(job, job) = %+v, want no issues", res.Issues)
	}
}

func TestAppliedDeletesWhatTheManifestDropped(t *testing.T) {
	ctx := context.Background()
	c := New()
	base := strings.Replace(validDeployment, "spec:\n  selector:", "spec:\n  minReadySeconds: 5\n  selector:", 1)
	stored, err := c.CreatedByApply(ctx, object(t, base), Options{})
	if err != nil {
		t.Fatalf("CreatedByApply: %v", err)
	}
	applied, err := Applied(stored, object(t, validDeployment))
	if err != nil {
		t.Fatalf("Applied: %v", err)
	}
	if strings.Contains(string(applied.JSON), `"minReadySeconds":5`) {
		t.Errorf("Applied() kept minReadySeconds the manifest dropped: %s", applied.JSON)
	}
	if !strings.Contains(string(applied.JSON), `"uid":"`+string(fixedUID)+`"`) {
		t.Errorf("Applied() lost the stored object's uid: %s", applied.JSON)
	}
}
