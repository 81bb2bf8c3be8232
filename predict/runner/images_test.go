package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestImageAppliesToWorkloadsWithTheContainer: --image NAME=IMAGE over files changes the
// workloads that have a container NAME, as kubectl set image -f does, leaves the others as
// their manifests say, and is an error naming every workload's containers when none has it.
func TestImageAppliesToWorkloadsWithTheContainer(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"new/web.yaml": workloadYAML("Deployment", "nginx:1.26", 2),
		"new/db.yaml":  strings.ReplaceAll(workloadYAML("StatefulSet", "postgres:16", 2), "- name: web", "- name: db"),
	}
	files["old/web.yaml"], files["old/db.yaml"] = files["new/web.yaml"], files["new/db.yaml"]
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		images []kernel.ImageChange
		// wantChanged says, by kind, whether the template changes.
		wantChanged map[string]bool
		wantErr     string
	}{
		{name: "web only", images: []kernel.ImageChange{{Container: "web", Image: "nginx:1.27"}},
			wantChanged: map[string]bool{"Deployment": true, "StatefulSet": false}},
		{name: "db only", images: []kernel.ImageChange{{Container: "db", Image: "postgres:17"}},
			wantChanged: map[string]bool{"Deployment": false, "StatefulSet": true}},
		{name: "both", images: []kernel.ImageChange{{Container: "web", Image: "nginx:1.27"}, {Container: "db", Image: "postgres:17"}},
			wantChanged: map[string]bool{"Deployment": true, "StatefulSet": true}},
		{name: "every container", images: []kernel.ImageChange{{Container: "*", Image: "busybox"}},
			wantChanged: map[string]bool{"Deployment": true, "StatefulSet": true}},
		{name: "a misspelt container", images: []kernel.ImageChange{{Container: "webb", Image: "nginx:1.27"}},
			wantErr: `--image webb=nginx:1.27: no workload of the files has a container named "webb" (did you mean web?); their containers: StatefulSet default/web: db; Deployment default/web: web`},
		{name: "no such container", images: []kernel.ImageChange{{Container: "web", Image: "nginx:1.27"}, {Container: "cache", Image: "redis"}},
			wantErr: `--image cache=redis: no workload of the files has a container named "cache"; their containers: StatefulSet default/web: db; Deployment default/web: web`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Files: []string{filepath.Join(dir, "new/db.yaml"), filepath.Join(dir, "new/web.yaml")},
				From: []string{filepath.Join(dir, "old")}}
			req.WhatIf.Images = tt.images
			res, err := Run(context.Background(), req)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Run(--image %v) error = %v, want %q", tt.images, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run(--image %v): %v", tt.images, err)
			}
			if len(res.Predictions) != 2 {
				t.Fatalf("Run(--image %v): %d predictions, want 2", tt.images, len(res.Predictions))
			}
			for _, p := range res.Predictions {
				if p.Plan == nil {
					t.Fatalf("Run(--image %v): %s has no plan (rejected %+v)", tt.images, p.Kind, p.Rejected)
				}
				h := p.Plan.Header
				if changed := h.OldRevision != h.NewRevision; changed != tt.wantChanged[p.Kind] {
					t.Errorf("Run(--image %v): %s revision %s -> %s, want changed: %v", tt.images, p.Kind, h.OldRevision, h.NewRevision, tt.wantChanged[p.Kind])
				}
			}
		})
	}
}
