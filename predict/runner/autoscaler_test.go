package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// hpaYAML is an autoscaler of the apps/v1 kind/name, minReplicas min (none when 0).
func hpaYAML(kind, name string, min int) string {
	s := "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name + "-hpa\nspec:\n" +
		"  scaleTargetRef: {apiVersion: apps/v1, kind: " + kind + ", name: " + name + "}\n  maxReplicas: 10\n"
	if min > 0 {
		s += "  minReplicas: " + strconv.Itoa(min) + "\n"
	}
	return s
}

// workloadYAML is a Deployment or StatefulSet web running image, with replicas when > 0.
func workloadYAML(kind, image string, replicas int) string {
	s := "apiVersion: apps/v1\nkind: " + kind + "\nmetadata:\n  name: web\nspec:\n"
	if replicas > 0 {
		s += "  replicas: " + strconv.Itoa(replicas) + "\n"
	}
	if kind == "StatefulSet" {
		s += "  serviceName: web\n"
	}
	return s + "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n" +
		"    spec:\n      containers:\n      - name: web\n        image: " + image + "\n"
}

// stateYAML is a dump of a Deployment web scaled to 5 by its autoscaler (minReplicas 3,
// status.currentReplicas 5), with its one ReplicaSet.
const stateYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, uid: d1, generation: 1, annotations: {deployment.kubernetes.io/revision: "1"}}
spec:
  replicas: 5
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}
  progressDeadlineSeconds: 600
  revisionHistoryLimit: 10
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.26}]
status: {observedGeneration: 1, replicas: 5, updatedReplicas: 5, readyReplicas: 5, availableReplicas: 5}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-1
  namespace: default
  uid: r1
  annotations: {deployment.kubernetes.io/revision: "1"}
  labels: {app: web, pod-template-hash: "1"}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]
spec:
  replicas: 5
  selector: {matchLabels: {app: web, pod-template-hash: "1"}}
  template:
    metadata: {labels: {app: web, pod-template-hash: "1"}}
    spec:
      containers: [{name: web, image: nginx:1.26}]
status: {replicas: 5, readyReplicas: 5, availableReplicas: 5}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-hpa, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 3
  maxReplicas: 10
status: {currentReplicas: 5, desiredReplicas: 5}
`

// TestAutoscaledReplicas: a workload whose replica count a HorizontalPodAutoscaler owns is
// planned at the autoscaler's minReplicas from files, at its current count from a state, at
// the manifest's count when the manifest writes one, and the plan says which.
func TestAutoscaledReplicas(t *testing.T) {
	tests := []struct {
		name string
		// files are written to new.yaml (and old.yaml, state.yaml); "" leaves one out.
		newYAML, oldYAML, stateYAML string
		replicas                    *int32 // --replicas
		wantAutoscaler              bool
		wantBasis                   string
		wantReplicas                int32
		wantDescribe                string
		wantSkipped                 int
	}{
		{
			name:           "files: minReplicas",
			newYAML:        workloadYAML("Deployment", "nginx:1.27", 0) + "---\n" + hpaYAML("Deployment", "web", 3),
			oldYAML:        workloadYAML("Deployment", "nginx:1.26", 0) + "---\n" + hpaYAML("Deployment", "web", 3),
			wantAutoscaler: true, wantBasis: BasisMinReplicas, wantReplicas: 3,
			wantDescribe: "planned at its minReplicas 3",
		},
		{
			name:           "files: minReplicas unset is 1",
			newYAML:        workloadYAML("Deployment", "nginx:1.27", 0) + "---\n" + hpaYAML("Deployment", "web", 0),
			wantAutoscaler: true, wantBasis: BasisMinReplicas, wantReplicas: 1,
		},
		{
			name:           "files: the manifest writes spec.replicas",
			newYAML:        workloadYAML("Deployment", "nginx:1.27", 2) + "---\n" + hpaYAML("Deployment", "web", 3),
			wantAutoscaler: true, wantBasis: BasisManifest, wantReplicas: 2,
			wantDescribe: "planned at the manifest's spec.replicas 2",
		},
		{
			name:           "files: a StatefulSet",
			newYAML:        workloadYAML("StatefulSet", "nginx:1.27", 0) + "---\n" + hpaYAML("StatefulSet", "web", 4),
			wantAutoscaler: true, wantBasis: BasisMinReplicas, wantReplicas: 4,
		},
		{
			name:        "files: an autoscaler of another kind is skipped",
			newYAML:     workloadYAML("Deployment", "nginx:1.27", 0) + "---\n" + hpaYAML("StatefulSet", "web", 4),
			wantSkipped: 1, wantReplicas: 1,
		},
		{
			name:           "state: the current count",
			newYAML:        workloadYAML("Deployment", "nginx:1.27", 0),
			stateYAML:      stateYAML,
			wantAutoscaler: true, wantBasis: BasisCurrent, wantReplicas: 5,
			wantDescribe: "state.yaml; status.currentReplicas 5)",
		},
		{
			name:           "state: a what-if of the stored Deployment",
			stateYAML:      stateYAML,
			wantAutoscaler: true, wantBasis: BasisCurrent, wantReplicas: 5,
		},
		{
			name:           "state: --replicas",
			stateYAML:      stateYAML,
			replicas:       ptr(int32(7)),
			wantAutoscaler: true, wantBasis: BasisWhatIf, wantReplicas: 7,
			wantDescribe: "planned at --replicas 7, as kubectl scale sets it; the autoscaler then scales it back into 3 to 10",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			req := Request{}
			write := func(name, text string) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			if tt.newYAML != "" {
				req.Files = []string{write("new.yaml", tt.newYAML)}
			}
			if tt.oldYAML != "" {
				req.From = []string{write("old.yaml", tt.oldYAML)}
			}
			if tt.stateYAML != "" {
				req.StateFiles = []string{write("state.yaml", tt.stateYAML)}
			}
			req.WhatIf.Replicas = tt.replicas
			res, err := Run(context.Background(), req)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(res.Predictions) != 1 || res.Predictions[0].Plan == nil {
				t.Fatalf("Run: %d predictions (%+v), want 1 with a plan", len(res.Predictions), res.Predictions)
			}
			p := res.Predictions[0]
			if got := p.Plan.Header.Replicas; got != tt.wantReplicas {
				t.Errorf("Run(%s).Plan.Header.Replicas = %d, want %d", tt.name, got, tt.wantReplicas)
			}
			if len(res.Skipped) != tt.wantSkipped {
				t.Errorf("Run(%s).Skipped = %+v, want %d", tt.name, res.Skipped, tt.wantSkipped)
			}
			if (p.Autoscaler != nil) != tt.wantAutoscaler {
				t.Fatalf("Run(%s).Autoscaler = %+v, want one: %v", tt.name, p.Autoscaler, tt.wantAutoscaler)
			}
			if a := p.Autoscaler; a != nil {
				if a.Basis != tt.wantBasis || a.Replicas != tt.wantReplicas {
					t.Errorf("Run(%s).Autoscaler = %s at %d, want %s at %d", tt.name, a.Basis, a.Replicas, tt.wantBasis, tt.wantReplicas)
				}
				if !strings.Contains(a.Describe(), tt.wantDescribe) {
					t.Errorf("Autoscaler.Describe() = %q, want it to contain %q", a.Describe(), tt.wantDescribe)
				}
			}
			if tt.oldYAML != "" {
				// The old version ran at the same count: the first step surges over it.
				if first := p.Plan.Steps[0]; first.Pods != tt.wantReplicas+1 {
					t.Errorf("Run(%s): first step has %d pods, want the old %d plus one surge pod", tt.name, first.Pods, tt.wantReplicas)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// clusterReader serves one state as the cluster does (kernel.StateReader), for unit tests.
type clusterReader struct{ state *kernel.State }

func (c clusterReader) ReadState(_ context.Context, _ kernel.Kind, _, _ string) (*kernel.State, error) {
	return c.state, nil
}
func (c clusterReader) Source() string { return `context "test"` }

// TestAutoscalersUnread: when the cluster refuses the list of autoscalers, the plan says that
// it could not tell whether one owns the count, and plans at the stored count.
func TestAutoscalersUnread(t *testing.T) {
	set := manifest.Parse("state.yaml", []byte(stateYAML))
	st, err := kernel.ParseState(set, `context "test"`)
	if err != nil {
		t.Fatal(err)
	}
	st.Autoscalers = nil
	st.AutoscalersUnread = `context "test": the user may not list horizontalpodautoscalers.autoscaling in namespace default (forbidden), so predict cannot tell whether a HorizontalPodAutoscaler owns the replica count`
	req := Request{Cluster: clusterReader{st}, Targets: []Target{{Name: "web"}}}
	req.WhatIf.Images = []kernel.ImageChange{{Container: "web", Image: "nginx:1.27"}}
	res, err := Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	p := res.Predictions[0]
	if p.Autoscaler != nil || p.Plan.Header.Replicas != 5 || !slices.Contains(p.Plan.Notes, st.AutoscalersUnread) {
		t.Errorf("Run() = autoscaler %+v, %d replicas, notes %q; want none, 5 and the note", p.Autoscaler, p.Plan.Header.Replicas, p.Plan.Notes)
	}
}
