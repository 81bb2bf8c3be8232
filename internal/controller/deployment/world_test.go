package deployment

import (
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

const (
	defaultStrategy = ""
	surge0Strategy  = `  strategy:
    rollingUpdate:
      maxSurge: 0
      maxUnavailable: 25%`
	surge3Strategy = `  strategy:
    rollingUpdate:
      maxSurge: 3
      maxUnavailable: 2`
	recreateStrategy = `  strategy:
    type: Recreate`
)

// rsName is the name the controller gives d's ReplicaSet.
func rsName(d *apps.Deployment) string {
	return d.Name + "-" + controller.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
}

func scaleMessages(p *kernel.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.Reason == ReasonScaling {
			out = append(out, s.Message)
		}
	}
	return out
}

func sizeOf(s kernel.Step, name string) kernel.RevisionSize {
	for _, r := range s.Revisions {
		if r.Name == name {
			return r
		}
	}
	return kernel.RevisionSize{Name: name}
}

// TestReplicaSetName checks the name the docs' nginx Deployment got from a real v1.37.1
// kube-apiserver and kube-controller-manager (built by hack/install-control-plane.sh; checked
// by hand with kubectl apply, 2026-11-22). controllers.md gives nginx-deployment-58d9f8984c,
// which this build does not produce.
func TestReplicaSetName(t *testing.T) {
	d := decodeDeployment(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`)
	p, err := Simulate(Input{Deployment: d, Timing: kernel.Timing{ReadyAfter: 5 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	if want := "nginx-deployment-54fd4d6d4c"; p.TargetRevision != want {
		t.Errorf("Simulate().TargetRevision = %q, want %q", p.TargetRevision, want)
	}
	if got, want := scaleMessages(p), []string{"Scaled up replica set nginx-deployment-54fd4d6d4c from 0 to 3"}; !equal(got, want) {
		t.Errorf("Simulate() events = %q, want %q", got, want)
	}
}

// TestRollingSequences holds the worked examples of a rolling update from a fully available old
// version.
func TestRollingSequences(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		strategy string
		// want uses OLD and NEW for the two ReplicaSet names.
		want []string
		// first, if set, is the number of events in the first sync (at time 0).
		first int
	}{
		{
			name: "3 replicas, default 25%/25%", replicas: 3, strategy: defaultStrategy,
			want: []string{
				"Scaled up replica set NEW from 0 to 1",
				"Scaled down replica set OLD from 3 to 2",
				"Scaled up replica set NEW from 1 to 2",
				"Scaled down replica set OLD from 2 to 1",
				"Scaled up replica set NEW from 2 to 3",
				"Scaled down replica set OLD from 1 to 0",
			},
			first: 1,
		},
		{
			name: "maxSurge 0, maxUnavailable 25% of 3 forced to 1", replicas: 3, strategy: surge0Strategy,
			want: []string{
				"Scaled down replica set OLD from 3 to 2",
				"Scaled up replica set NEW from 0 to 1",
				"Scaled down replica set OLD from 2 to 1",
				"Scaled up replica set NEW from 1 to 2",
				"Scaled down replica set OLD from 1 to 0",
				"Scaled up replica set NEW from 2 to 3",
			},
			// The old ReplicaSet's update triggers a second sync at once, which scales the new
			// one 0 → 1.
			first: 2,
		},
		{
			name: "10 replicas, default 25%/25%: new created at 3, old 10 to 8 in the same sync", replicas: 10, strategy: defaultStrategy,
			want: []string{
				"Scaled up replica set NEW from 0 to 3",
				"Scaled down replica set OLD from 10 to 8",
				"Scaled up replica set NEW from 3 to 5",
				// The 3 pods of the first sync turn Ready before the 2 of the second (causal
				// time), so the old ReplicaSet goes down in two steps, as in every real run;
				// the merged "8 to 3, 5 to 10" never happens.
				"Scaled down replica set OLD from 8 to 5",
				"Scaled up replica set NEW from 5 to 8",
				"Scaled down replica set OLD from 5 to 3",
				"Scaled up replica set NEW from 8 to 10",
				"Scaled down replica set OLD from 3 to 0",
			},
			first: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := webDeployment(t, tt.replicas, "nginx:1.0", tt.strategy)
			d := webDeployment(t, tt.replicas, "nginx:2.0", tt.strategy)
			p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second}})
			if err != nil {
				t.Fatalf("Simulate() error: %v", err)
			}
			r := strings.NewReplacer("OLD", rsName(old), "NEW", rsName(d))
			var want []string
			for _, w := range tt.want {
				want = append(want, r.Replace(w))
			}
			if got := scaleMessages(p); !equal(got, want) {
				t.Errorf("Simulate() events =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			atZero := 0
			for _, s := range p.Steps {
				if s.At == 0 {
					atZero++
				}
			}
			if atZero != tt.first {
				t.Errorf("Simulate() took %d steps at time 0, want %d", atZero, tt.first)
			}
			if !p.Summary.Completed {
				t.Errorf("Simulate().Summary.Completed = false (%s), want true", p.Summary.StallReason)
			}
			maxSurge := deploymentutil.MaxSurge(*d)
			minAvailable := *d.Spec.Replicas - deploymentutil.MaxUnavailable(*d)
			for _, s := range p.Steps {
				if sum := sizeOf(s, rsName(old)).Replicas + sizeOf(s, rsName(d)).Replicas; sum > tt.replicas+maxSurge {
					t.Errorf("step %q at %s: ReplicaSet sizes sum to %d, want at most %d", s.Message, s.At, sum, tt.replicas+maxSurge)
				}
			}
			if p.Summary.MinAvailable < minAvailable {
				t.Errorf("Simulate().Summary.MinAvailable = %d, want at least %d", p.Summary.MinAvailable, minAvailable)
			}
		})
	}
}

// TestMaxSurgeZeroFirstSync: with maxSurge 0 and maxUnavailable forced to 1, the new ReplicaSet is
// created at 0 and the old one drops 3 → 2 in the same sync.
func TestMaxSurgeZeroFirstSync(t *testing.T) {
	old := webDeployment(t, 3, "nginx:1.0", surge0Strategy)
	d := webDeployment(t, 3, "nginx:2.0", surge0Strategy)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	first := p.Steps[0]
	if first.At != 0 || first.Message != "Scaled down replica set "+rsName(old)+" from 3 to 2" {
		t.Fatalf("first step = %s %q, want 0s %q", first.At, first.Message, "Scaled down replica set "+rsName(old)+" from 3 to 2")
	}
	newSize := sizeOf(first, rsName(d))
	if len(first.Revisions) != 2 || newSize.Replicas != 0 {
		t.Errorf("first step ReplicaSets = %+v, want the new ReplicaSet present at 0", first.Revisions)
	}
}

// TestProportionalScaling: 10 replicas, maxSurge 3, maxUnavailable 2; the new ReplicaSet is stuck
// at 5 (0 ready), the old one at 8; scaling to 15 gives old 8→11 first, then new 5→7.
func TestProportionalScaling(t *testing.T) {
	old := webDeployment(t, 10, "nginx:1.0", surge3Strategy)
	d := webDeployment(t, 15, "nginx:2.0", surge3Strategy)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	mkRS := func(name string, from *apps.Deployment, replicas int32, revision string, created time.Time) *apps.ReplicaSet {
		rs := &apps.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(created),
				Annotations: map[string]string{deploymentutil.RevisionAnnotation: revision}},
			Spec: apps.ReplicaSetSpec{Replicas: int32Ptr(replicas), Selector: from.Spec.Selector, Template: *from.Spec.Template.DeepCopy()},
		}
		deploymentutil.SetReplicasAnnotations(rs, 10, 13)
		return rs
	}
	in := Input{
		Deployment: d,
		Start:      start,
		Timing:     kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second, FailNew: true},
		ReplicaSets: []ReplicaSetState{
			{ReplicaSet: mkRS("web-old", old, 8, "1", start.Add(-2*time.Hour)), Pods: []PodGroup{{Phase: PodAvailable, Count: 8}}},
			{ReplicaSet: mkRS("web-new", d, 5, "2", start.Add(-time.Hour)), Pods: []PodGroup{{Phase: PodNotReady, Count: 5}}},
		},
	}
	p, err := Simulate(in)
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	want := []string{"Scaled up replica set web-old from 8 to 11", "Scaled up replica set web-new from 5 to 7"}
	if got := scaleMessages(p); !equal(got, want) {
		t.Errorf("Simulate() events = %q, want %q", got, want)
	}
	if p.Summary.Completed || !p.Summary.DeadlineExceeded {
		t.Errorf("Simulate().Summary = %+v, want a stall with the deadline exceeded", p.Summary)
	}
}

// TestRecreate: old pods are all gone before any new pod exists.
func TestRecreate(t *testing.T) {
	old := webDeployment(t, 3, "nginx:1.0", recreateStrategy)
	d := webDeployment(t, 3, "nginx:2.0", recreateStrategy)
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	want := []string{
		"Scaled down replica set " + rsName(old) + " from 3 to 0",
		"Scaled up replica set " + rsName(d) + " from 0 to 3",
	}
	if got := scaleMessages(p); !equal(got, want) {
		t.Errorf("Simulate() events = %q, want %q", got, want)
	}
	for _, s := range p.Steps {
		if o, n := sizeOf(s, rsName(old)).Pods, sizeOf(s, rsName(d)).Pods; o > 0 && n > 0 {
			t.Errorf("step %q at %s: %d old and %d new pods exist together, want no overlap", s.Message, s.At, o, n)
		}
	}
	if len(p.Steps) == 2 && p.Steps[1].At != 30*time.Second {
		t.Errorf("new ReplicaSet scaled up at %s, want 30s (when the old pods have terminated)", p.Steps[1].At)
	}
	if p.Summary.PeakPods != 3 || p.Summary.MinAvailable != 0 {
		t.Errorf("Simulate().Summary peak %d, min available %d; want 3 and 0", p.Summary.PeakPods, p.Summary.MinAvailable)
	}
	if !p.Summary.Completed || p.Summary.Duration != 40*time.Second {
		t.Errorf("Simulate().Summary = completed %v in %s, want completed in 40s", p.Summary.Completed, p.Summary.Duration)
	}
}

// TestFailNew: new pods never become ready, the rollout stalls, and Progressing flips to
// ProgressDeadlineExceeded progressDeadlineSeconds after the last progress (plus the second
// requeueStuckDeployment adds).
func TestFailNew(t *testing.T) {
	tests := []struct {
		name       string
		replicas   int32
		wantEvents int
		wantOld    int32
		wantNew    int32
	}{
		{name: "3 replicas stall at new 1, old 3", replicas: 3, wantEvents: 1, wantOld: 3, wantNew: 1},
		{name: "10 replicas stall at new 5, old 8", replicas: 10, wantEvents: 3, wantOld: 8, wantNew: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := webDeployment(t, tt.replicas, "nginx:1.0", defaultStrategy)
			d := webDeployment(t, tt.replicas, "nginx:2.0", defaultStrategy+"  progressDeadlineSeconds: 120")
			p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second, FailNew: true}})
			if err != nil {
				t.Fatalf("Simulate() error: %v", err)
			}
			s := p.Summary
			if s.Completed || !s.DeadlineExceeded || s.StallReason != deploymentutil.TimedOutReason {
				t.Fatalf("Simulate().Summary = %+v, want a stall by %s", s, deploymentutil.TimedOutReason)
			}
			if got := len(scaleMessages(p)); got != tt.wantEvents {
				t.Errorf("Simulate() gave %d scale events, want %d: %q", got, tt.wantEvents, scaleMessages(p))
			}
			if s.DeadlineAt != s.LastProgressAt+121*time.Second {
				t.Errorf("deadline fired at %s with last progress at %s, want 120s+1s later", s.DeadlineAt, s.LastProgressAt)
			}
			last := p.Steps[len(p.Steps)-1]
			if last.Reason != ReasonDeadlineExceeded || last.Message != `ReplicaSet "`+rsName(d)+`" has timed out progressing.` {
				t.Errorf("last step = %s %q, want the deadline", last.Reason, last.Message)
			}
			if o, n := sizeOf(last, rsName(old)).Replicas, sizeOf(last, rsName(d)).Replicas; o != tt.wantOld || n != tt.wantNew {
				t.Errorf("stalled at old %d, new %d; want old %d, new %d", o, n, tt.wantOld, tt.wantNew)
			}
			if s.MinAvailable != tt.wantOld {
				t.Errorf("Simulate().Summary.MinAvailable = %d, want %d", s.MinAvailable, tt.wantOld)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkRollout10000 rolls out 10,000 replicas with maxSurge 1 and maxUnavailable 0.
func BenchmarkRollout10000(b *testing.B) {
	strategy := `  strategy:
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0`
	old := webDeployment(b, 10000, "nginx:1.0", strategy)
	d := webDeployment(b, 10000, "nginx:2.0", strategy)
	for b.Loop() {
		p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second}})
		if err != nil {
			b.Fatalf("Simulate() error: %v", err)
		}
		if !p.Summary.Completed || len(p.Steps) != 20000 {
			b.Fatalf("Simulate() = completed %v with %d steps, want completed with 20000", p.Summary.Completed, len(p.Steps))
		}
	}
}
