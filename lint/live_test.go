package lint

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/apicheck"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

const liveTestDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
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

// parsed loads one in-memory manifest with one object.
func parsed(t *testing.T, name, doc string) *manifest.Object {
	t.Helper()
	set := manifest.Parse(name, []byte(doc))
	if len(set.Objects) != 1 {
		t.Fatalf("manifest.Parse(%s) = %d objects, want 1", name, len(set.Objects))
	}
	return set.Objects[0]
}

func TestBaselinePreviousRunsTheUpdatePath(t *testing.T) {
	ctx := context.Background()
	stored, err := apicheck.New().CreatedByApply(ctx, apicheck.Object{APIVersion: "apps/v1", Kind: "Deployment",
		JSON: parsed(t, "old.yaml", liveTestDeployment).JSON}, apicheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.ReplaceAll(liveTestDeployment, "app: web", "app: web2")
	var asked []string
	res := newTestLinter(t).Run(ctx, Options{Paths: []string{"-"}, Stdin: strings.NewReader(changed),
		Baseline: &Baseline{Previous: func(obj *manifest.Object, ref ObjectRef) []byte {
			asked = append(asked, ref.String())
			return stored
		}}})
	if strings.Join(asked, ",") != "Deployment prod/web" {
		t.Errorf("Previous was asked for %q, want Deployment prod/web", asked)
	}
	var got []string
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "api/") {
			got = append(got, f.Rule+" "+f.Field+" "+strconv.Itoa(f.Line)+":"+strconv.Itoa(f.Column))
		}
	}
	if want := "api/invalid spec.selector 7:3"; strings.Join(got, "; ") != want {
		t.Errorf("api findings = %q, want %q", got, want)
	}
}

func TestBaselineObjectsAndContext(t *testing.T) {
	ctx := context.Background()
	// A live Job, as the API server stores it: its generated selector would
	// be refused by the create path, and is fine on the update path.
	job := `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: prod
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: migrate:1
`
	storedJob, err := apicheck.New().CreatedByApply(ctx, apicheck.Object{APIVersion: "batch/v1", Kind: "Job",
		JSON: parsed(t, "job.yaml", job).JSON}, apicheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	liveJob := parsed(t, "cluster://test/prod/Job/migrate", string(storedJob))
	// A live Deployment whose selector overlaps the file's: only the file's
	// Deployment may be reported.
	other := parsed(t, "cluster://test/prod/Deployment/api", strings.Replace(liveTestDeployment, "name: web\n", "name: api\n", 1))
	// The live version of the file's own Deployment: replaced, so no overlap
	// with itself.
	self := parsed(t, "cluster://test/prod/Deployment/web", liveTestDeployment)

	res := newTestLinter(t).Run(ctx, Options{Paths: []string{"-"}, Stdin: strings.NewReader(liveTestDeployment),
		Baseline: &Baseline{Objects: []*manifest.Object{liveJob}, Context: []*manifest.Object{other, self}}})
	if res.Objects != 2 {
		t.Errorf("Objects = %d, want 2 (the file's Deployment and the live Job)", res.Objects)
	}
	var overlap []string
	for _, f := range res.Findings {
		switch {
		case strings.HasPrefix(f.Rule, "api/"):
			t.Errorf("finding %s %s on %s: want no API findings", f.Rule, f.Message, f.File)
		case f.File == other.File || f.File == self.File:
			t.Errorf("finding %s on context object %s: want none", f.Rule, f.File)
		case f.Rule == "selector/overlap":
			overlap = append(overlap, f.File+" "+f.Message)
		}
	}
	if len(overlap) != 1 || !strings.HasPrefix(overlap[0], "<stdin> ") || !strings.Contains(overlap[0], "api") {
		t.Errorf("selector/overlap findings = %q, want one on <stdin> naming the live Deployment api", overlap)
	}
}
