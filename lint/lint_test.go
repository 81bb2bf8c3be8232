package lint

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

func TestRunFindingsAreSortedAndPlaced(t *testing.T) {
	stdin := strings.NewReader(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
spec:
  replicas: -2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx}
      - {name: web, image: nginx}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: busybox}]
  containers: [{name: c, image: busybox}]
`)
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: stdin, Namespace: "team"})
	var got []string
	for _, f := range res.Findings {
		if !strings.HasPrefix(f.Rule, "api/") && !strings.HasPrefix(f.Rule, "input/") {
			continue // the Rego catalogue is tested in rules/
		}
		got = append(got, strings.Join([]string{f.Rule, f.Field, f.Object.String(), strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column)}, " "))
	}
	want := []string{
		// -n team for an object of namespace prod: kubectl refuses it.
		"input/namespace-mismatch metadata.namespace Deployment prod/web 5:3",
		"api/invalid spec.replicas Deployment prod/web 7:3",
		"api/duplicate spec.template.spec.containers[1].name Deployment prod/web 14:10",
		"input/duplicate-key spec.containers Pod team/p 21:3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Run() findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Objects != 2 || res.Files != 1 || res.Documents != 2 {
		t.Errorf("counts = %d objects, %d files, %d documents, want 2, 1, 2", res.Objects, res.Files, res.Documents)
	}
}

func TestFailsThreshold(t *testing.T) {
	res := &Result{Findings: []Finding{{Severity: SeverityWarning}}}
	tests := []struct {
		threshold Severity
		want      bool
	}{
		{SeverityError, false},
		{SeverityWarning, true},
		{SeverityInfo, true},
	}
	for _, tt := range tests {
		if got := res.Fails(tt.threshold); got != tt.want {
			t.Errorf("Fails(%v) = %v, want %v", tt.threshold, got, tt.want)
		}
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := newTestLinter(t).Run(ctx, Options{Paths: []string{"-"}, Stdin: strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), "context canceled") {
		t.Errorf("Errors = %v, want the cancellation reported", res.Errors)
	}
}

func newTestLinter(t *testing.T) *Linter {
	t.Helper()
	l, err := New(Config{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}
