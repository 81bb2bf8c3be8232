package deployment

import (
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// stateRS is a ReplicaSet of a starting state, as a Deployment at from would have created it.
func stateRS(name string, from *apps.Deployment, replicas int32, revision string, created time.Time) *apps.ReplicaSet {
	rs := &apps.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(created),
			Annotations: map[string]string{deploymentutil.RevisionAnnotation: revision}},
		Spec: apps.ReplicaSetSpec{Replicas: int32Ptr(replicas), Selector: from.Spec.Selector, Template: *from.Spec.Template.DeepCopy(),
			MinReadySeconds: from.Spec.MinReadySeconds},
	}
	deploymentutil.SetReplicasAnnotations(rs, *from.Spec.Replicas, *from.Spec.Replicas+deploymentutil.MaxSurge(*from))
	return rs
}

// TestRollover: v1 → v2 is interrupted by v3 while v2 is mid-way. v3 is created at 0 (the
// Deployment is at replicas + maxSurge), the unhealthy v2 pods go first, then the oldest (v1)
// drains before v2, and v3 takes over.
func TestRollover(t *testing.T) {
	v1 := webDeployment(t, 10, "nginx:1.0", defaultStrategy)
	v2 := webDeployment(t, 10, "nginx:2.0", defaultStrategy)
	v3 := webDeployment(t, 10, "nginx:3.0", defaultStrategy)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := Input{
		Deployment: v3,
		Start:      start,
		Timing:     kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second},
		ReplicaSets: []ReplicaSetState{
			{ReplicaSet: stateRS("web-v1", v1, 5, "1", start.Add(-2*time.Hour)), Pods: []PodGroup{{Phase: PodAvailable, Count: 5}}},
			{ReplicaSet: stateRS("web-v2", v2, 8, "2", start.Add(-time.Hour)), Pods: []PodGroup{{Phase: PodAvailable, Count: 5}, {Phase: PodNotReady, Count: 3}}},
		},
	}
	p, err := Simulate(in)
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	got := scaleMessages(p)
	// maxScaledDown = 13 − 8 − 0 = 5: cleanup takes v2's 3 unavailable pods, then the
	// available surplus (5+5) − 8 = 2 comes off the oldest, v1.
	wantFirst := []string{
		"Scaled down replica set web-v2 from 8 to 5",
		"Scaled down replica set web-v1 from 5 to 3",
		"Scaled up replica set " + rsName(v3) + " from 0 to 5",
	}
	if len(got) < len(wantFirst) || !equal(got[:len(wantFirst)], wantFirst) {
		t.Fatalf("Simulate() events =\n%s\nwant them to start with\n%s", strings.Join(got, "\n"), strings.Join(wantFirst, "\n"))
	}
	v1Gone, v2Gone := -1, -1
	for i, m := range got {
		if strings.HasPrefix(m, "Scaled down replica set web-v1 ") && strings.HasSuffix(m, " to 0") {
			v1Gone = i
		}
		if strings.HasPrefix(m, "Scaled down replica set web-v2 ") && strings.HasSuffix(m, " to 0") {
			v2Gone = i
		}
	}
	if v1Gone < 0 || v2Gone < 0 || v1Gone > v2Gone {
		t.Errorf("v1 drained at event %d and v2 at %d, want v1 (oldest) first:\n%s", v1Gone, v2Gone, strings.Join(got, "\n"))
	}
	if !p.Summary.Completed {
		t.Errorf("Simulate().Summary.Completed = false (%s), want true", p.Summary.StallReason)
	}
	last := p.Steps[len(p.Steps)-1]
	if s := sizeOf(last, rsName(v3)); s.Replicas != 10 {
		t.Errorf("v3 ends at %d, want 10", s.Replicas)
	}
}

// TestNoRollout: a Deployment whose template did not change does only what it says: nothing, or
// a proportional scale of the one ReplicaSet.
func TestNoRollout(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		want     []string
	}{
		{name: "same manifest", replicas: 3, want: nil},
		{name: "replicas 3 -> 5", replicas: 5, want: []string{"Scaled up replica set OLD from 3 to 5"}},
		{name: "replicas 3 -> 1", replicas: 1, want: []string{"Scaled down replica set OLD from 3 to 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
			d := webDeployment(t, tt.replicas, "nginx:1.0", defaultStrategy)
			p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 30 * time.Second}})
			if err != nil {
				t.Fatalf("Simulate() error: %v", err)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "OLD", rsName(old)))
			}
			if got := scaleMessages(p); !equal(got, want) {
				t.Errorf("Simulate() events = %q, want %q", got, want)
			}
			if p.TargetRevision != rsName(old) || !p.Summary.Completed {
				t.Errorf("Simulate() = new RS %q, completed %v; want %q, true", p.TargetRevision, p.Summary.Completed, rsName(old))
			}
		})
	}
}

// TestPaused: a paused Deployment with a new template creates no ReplicaSet and scales nothing.
func TestPaused(t *testing.T) {
	old := webDeployment(t, 3, "nginx:1.0", defaultStrategy)
	d := webDeployment(t, 3, "nginx:2.0", defaultStrategy+"  paused: true")
	p, err := Simulate(Input{Deployment: d, Old: old, Timing: kernel.Timing{ReadyAfter: 10 * time.Second}})
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	if len(p.Steps) != 0 || p.Summary.Completed || p.Summary.StallReason != "Deployment is paused" {
		t.Errorf("Simulate() = %d steps, summary %+v; want no steps and a paused stall", len(p.Steps), p.Summary)
	}
}

// TestFindReplicaSets: the memoized findNewReplicaSet / findOldReplicaSets agree with
// deploymentutil's on upstream's TestFindNewReplicaSet / TestFindOldReplicaSets facts: of two
// template-equal ReplicaSets the oldest is new and the newer one is old.
func TestFindReplicaSets(t *testing.T) {
	d := fixtureDeployment(10, nil, nil)
	older := fixtureRS("foo-older", 1, olderTimestamp)
	older.Spec.Template = *d.Spec.Template.DeepCopy()
	newer := fixtureRS("foo-newer", 1, newTimestamp)
	newer.Spec.Template = *d.Spec.Template.DeepCopy()
	newer.Spec.Template.Labels[apps.DefaultDeploymentUniqueLabelKey] = "hash"
	other := fixtureRS("foo-other", 0, oldTimestamp)
	other.Spec.Template = *d.Spec.Template.DeepCopy()
	other.Spec.Template.Spec.NodeName = "elsewhere"
	tests := []struct {
		name    string
		rsList  []*apps.ReplicaSet
		wantNew string
	}{
		{name: "oldest of two matches wins", rsList: []*apps.ReplicaSet{newer, older, other}, wantNew: "foo-older"},
		{name: "no match", rsList: []*apps.ReplicaSet{other}, wantNew: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc := newFixedClockController(newTimestamp.Time, nil)
			dc.templateMatch = map[types.UID]bool{}
			list := func() []*apps.ReplicaSet { return append([]*apps.ReplicaSet(nil), tt.rsList...) }
			name := func(rs *apps.ReplicaSet) string {
				if rs == nil {
					return ""
				}
				return rs.Name
			}
			got, upstream := dc.findNewReplicaSet(d, list()), deploymentutil.FindNewReplicaSet(d, list())
			if name(got) != tt.wantNew || name(upstream) != tt.wantNew {
				t.Errorf("findNewReplicaSet() = %q, deploymentutil.FindNewReplicaSet() = %q, want %q", name(got), name(upstream), tt.wantNew)
			}
			gotReq, gotAll := dc.findOldReplicaSets(d, list())
			upReq, upAll := deploymentutil.FindOldReplicaSets(d, list())
			names := func(rss []*apps.ReplicaSet) string {
				var out []string
				for _, rs := range rss {
					out = append(out, rs.Name)
				}
				return strings.Join(out, ",")
			}
			if names(gotReq) != names(upReq) || names(gotAll) != names(upAll) {
				t.Errorf("findOldReplicaSets() = (%s; %s), deploymentutil.FindOldReplicaSets() = (%s; %s)", names(gotReq), names(gotAll), names(upReq), names(upAll))
			}
		})
	}
}
