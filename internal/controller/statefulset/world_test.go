package statefulset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// webSet decodes a StatefulSet named web and defaults it as the API server does. extra is
// indented under spec:.
func webSet(t testing.TB, replicas int, image, extra string) *apps.StatefulSet {
	t.Helper()
	m := fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  namespace: default
spec:
  replicas: %d
  serviceName: web
  selector:
    matchLabels:
      app: web
%s
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: %s
`, replicas, extra, image)
	set := &apps.StatefulSet{}
	testkit.Decode(t, m, set)
	return set
}

// podSteps renders the pod actions as "delete web-2" / "create web-2".
func podSteps(p *kernel.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		f := strings.Fields(s.Message)
		if len(f) >= 3 {
			out = append(out, strings.ToLower(f[0])+" "+f[2])
		}
	}
	return out
}

// timedSteps renders the pod actions with their times.
func timedSteps(p *kernel.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		f := strings.Fields(s.Message)
		out = append(out, fmt.Sprintf("%s %s %s", s.At, strings.ToLower(f[0]), f[2]))
	}
	return out
}

func simulate(t *testing.T, in Input) *kernel.Plan {
	t.Helper()
	if in.Start.IsZero() {
		in.Start = epoch
	}
	p, err := Simulate(in)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return p
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

var timing = kernel.Timing{ReadyAfter: 10 * time.Second, TerminateAfter: 5 * time.Second}

func TestPodManagement(t *testing.T) {
	tests := []struct {
		name string
		old  *apps.StatefulSet
		set  *apps.StatefulSet
		want []string
	}{
		{
			name: "OrderedReady creates in ordinal order, each after its predecessor is Ready",
			set:  webSet(t, 3, "nginx:1", ""),
			want: []string{"0s create web-0", "10s create web-1", "20s create web-2"},
		},
		{
			name: "Parallel creates every pod at once",
			set:  webSet(t, 3, "nginx:1", "  podManagementPolicy: Parallel"),
			want: []string{"0s create web-0", "0s create web-1", "0s create web-2"},
		},
		{
			name: "OrderedReady scales down in reverse order, each after the previous is gone",
			old:  webSet(t, 5, "nginx:1", ""),
			set:  webSet(t, 3, "nginx:1", ""),
			want: []string{"0s delete web-4", "5s delete web-3"},
		},
		{
			name: "Parallel scales down at once",
			old:  webSet(t, 5, "nginx:1", "  podManagementPolicy: Parallel"),
			set:  webSet(t, 3, "nginx:1", "  podManagementPolicy: Parallel"),
			want: []string{"0s delete web-4", "0s delete web-3"},
		},
		{
			name: "OrderedReady scales up from 2 to 4",
			old:  webSet(t, 2, "nginx:1", ""),
			set:  webSet(t, 4, "nginx:1", ""),
			want: []string{"0s create web-2", "10s create web-3"},
		},
		{
			name: "minReadySeconds delays the next pod until the previous is available",
			set:  webSet(t, 2, "nginx:1", "  minReadySeconds: 30"),
			want: []string{"0s create web-0", "40s create web-1"},
		},
		{
			name: "spec.ordinals.start shifts the names",
			set:  webSet(t, 2, "nginx:1", "  ordinals:\n    start: 5"),
			want: []string{"0s create web-5", "10s create web-6"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := simulate(t, Input{StatefulSet: tt.set, Old: tt.old, Timing: timing})
			if got := timedSteps(p); !equal(got, tt.want) {
				t.Errorf("steps = %v, want %v", got, tt.want)
			}
			if !p.Summary.Completed {
				t.Errorf("Completed = false (%s), want true", p.Summary.StallReason)
			}
		})
	}
}

func TestRollingUpdateOrder(t *testing.T) {
	tests := []struct {
		name  string
		old   *apps.StatefulSet
		set   *apps.StatefulSet
		gate  *bool
		want  []string
		notes []string
	}{
		{
			name: "one pod at a time, highest ordinal first",
			old:  webSet(t, 3, "nginx:1", ""),
			set:  webSet(t, 3, "nginx:2", ""),
			want: []string{"0s delete web-2", "5s create web-2", "15s delete web-1", "20s create web-1", "30s delete web-0", "35s create web-0"},
		},
		{
			name: "Parallel without maxUnavailable is still one at a time",
			old:  webSet(t, 3, "nginx:1", "  podManagementPolicy: Parallel"),
			set:  webSet(t, 3, "nginx:2", "  podManagementPolicy: Parallel"),
			want: []string{"0s delete web-2", "5s create web-2", "15s delete web-1", "20s create web-1", "30s delete web-0", "35s create web-0"},
		},
		{
			name:  "scaling takes precedence over the update",
			old:   webSet(t, 3, "nginx:1", ""),
			set:   webSet(t, 5, "nginx:2", ""),
			want:  []string{"0s create web-3", "10s create web-4", "20s delete web-2", "25s create web-2", "35s delete web-1", "40s create web-1", "50s delete web-0", "55s create web-0"},
			notes: []string{NoteScalingFirst},
		},
		{
			name:  "scale down before the update",
			old:   webSet(t, 4, "nginx:1", ""),
			set:   webSet(t, 2, "nginx:2", ""),
			want:  []string{"0s delete web-3", "5s delete web-2", "10s delete web-1", "15s create web-1", "25s delete web-0", "30s create web-0"},
			notes: []string{NoteScalingFirst},
		},
		{
			name: "OrderedReady maxUnavailable 2 deletes two at once, recreates in ordinal order",
			old:  webSet(t, 4, "nginx:1", "  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 2"),
			set:  webSet(t, 4, "nginx:2", "  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 2"),
			want: []string{"0s delete web-3", "0s delete web-2", "5s create web-2", "15s create web-3",
				"25s delete web-1", "25s delete web-0", "30s create web-0", "40s create web-1"},
			notes: []string{NoteGateVersions},
		},
		{
			name: "gate off: maxUnavailable is ignored",
			old:  webSet(t, 4, "nginx:1", "  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 2"),
			set:  webSet(t, 4, "nginx:2", "  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 2"),
			gate: new(bool),
			want: []string{"0s delete web-3", "5s create web-3", "15s delete web-2", "20s create web-2",
				"30s delete web-1", "35s create web-1", "45s delete web-0", "50s create web-0"},
			notes: []string{NoteGateOff},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := simulate(t, Input{StatefulSet: tt.set, Old: tt.old, Timing: timing, MaxUnavailableGate: tt.gate})
			if got := timedSteps(p); !equal(got, tt.want) {
				t.Errorf("steps = %v\nwant %v", got, tt.want)
			}
			if !p.Summary.Completed {
				t.Errorf("Completed = false (%s), want true", p.Summary.StallReason)
			}
			for _, n := range tt.notes {
				if !contains(p.Notes, n) {
					t.Errorf("Notes = %q, want %q among them", p.Notes, n)
				}
			}
			last := p.Steps[len(p.Steps)-1].Revisions
			if got := last[len(last)-1]; got.Name != p.Header.NewRevision || got.Replicas != *tt.set.Spec.Replicas {
				t.Errorf("last step's update revision = %+v, want %s with %d replicas", got, p.Header.NewRevision, *tt.set.Spec.Replicas)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRollingUpdateWithPartition is upstream's TestStatefulSetControlRollingUpdateWithPartition:
// partition 2, monotonic and burst, with and without a scale-up from 3 to 5. Pods below the
// partition keep the original image's revision; the others get the new one.
func TestRollingUpdateWithPartition(t *testing.T) {
	for _, policy := range []string{"OrderedReady", "Parallel"} {
		for _, to := range []int{3, 5} {
			t.Run(fmt.Sprintf("%s 3→%d", policy, to), func(t *testing.T) {
				extra := "  podManagementPolicy: " + policy + "\n  updateStrategy:\n    rollingUpdate:\n      partition: 2"
				old := webSet(t, 3, "nginx:1", extra)
				set := webSet(t, to, "nginx:2", extra)
				p := simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
				if !p.Summary.Completed {
					t.Fatalf("Completed = false (%s), want true", p.Summary.StallReason)
				}
				revs := finalRevisions(t, set, 3, p)
				for ord := 0; ord < to; ord++ {
					want := p.Header.NewRevision
					if ord < 2 {
						want = p.Header.OldRevision
					}
					if revs[ord] != want {
						t.Errorf("web-%d revision = %s, want %s", ord, revs[ord], want)
					}
				}
				for _, s := range podSteps(p) {
					if s == "delete web-0" || s == "delete web-1" {
						t.Errorf("steps include %q, want pods below the partition untouched", s)
					}
				}
				if !strings.Contains(strings.Join(p.Notes, "\n"), "partition 2: pods web-0 … web-1 keep revision "+p.Header.OldRevision) {
					t.Errorf("Notes = %q, want the partition note", p.Notes)
				}
			})
		}
	}
}

// finalRevisions replays the plan's steps: a created pod carries the revision whose
// Replicas rose at that step.
func finalRevisions(t *testing.T, set *apps.StatefulSet, oldReplicas int32, p *kernel.Plan) map[int]string {
	t.Helper()
	revs := map[int]string{}
	for i := 0; i < int(*set.Spec.Replicas); i++ {
		revs[i] = p.Header.OldRevision
	}
	prev := map[string]int32{p.Header.OldRevision: oldReplicas}
	for i, s := range p.Steps {
		cur := map[string]int32{}
		for _, r := range s.Revisions {
			cur[r.Name] = r.Replicas
		}
		var ord int
		if _, err := fmt.Sscanf(strings.Fields(s.Message)[2], "web-%d", &ord); err != nil {
			t.Fatalf("step %d: %q: %v", i, s.Message, err)
		}
		if s.Reason == ReasonSuccessfulCreate {
			for name, n := range cur {
				if n > prev[name] {
					revs[ord] = name
				}
			}
		}
		prev = cur
	}
	return revs
}

// TestRollingUpdateWithMaxUnavailable is upstream's
// TestStatefulSetControlRollingUpdateWithMaxUnavailable: Parallel, 6 replicas, partition 3,
// maxUnavailable 2. Pods 5 and 4 go first, together; once 4 is back and available while 5 is
// not, pod 3 is deleted; 0–2 are never touched.
func TestRollingUpdateWithMaxUnavailable(t *testing.T) {
	extra := "  podManagementPolicy: Parallel\n  updateStrategy:\n    rollingUpdate:\n      partition: 3\n      maxUnavailable: 2"
	old := webSet(t, 6, "nginx:1", extra)
	set := webSet(t, 6, "nginx:2", extra)

	p := simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
	if got, want := timedSteps(p)[:2], []string{"0s delete web-5", "0s delete web-4"}; !equal(got, want) {
		t.Errorf("first steps = %v, want %v", got, want)
	}
	for _, s := range podSteps(p) {
		if strings.HasSuffix(s, "web-0") || strings.HasSuffix(s, "web-1") || strings.HasSuffix(s, "web-2") {
			t.Errorf("steps include %q, want pods 0–2 untouched", s)
		}
	}

	// The mid-rollout state of the upstream test: 4 updated and available, 5 updated and not
	// yet Ready, 0–3 old and available.
	oldRev, _ := RevisionName(old)
	newRev, _ := RevisionName(set)
	readySince := epoch.Add(-time.Minute)
	var pods []*v1.Pod
	for ord := 0; ord < 6; ord++ {
		rev, ready := oldRev, true
		if ord >= 4 {
			rev = newRev
		}
		if ord == 5 {
			ready = false
		}
		pods = append(pods, livePod(fmt.Sprintf("web-%d", ord), rev, ready, readySince))
	}
	p = simulate(t, Input{StatefulSet: set, Pods: pods, CurrentRevision: oldRev, Timing: timing})
	if got := timedSteps(p); len(got) == 0 || got[0] != "0s delete web-3" {
		t.Errorf("steps = %v, want web-3 deleted first, at once", got)
	}
}

func livePod(name, revision string, ready bool, since time.Time) *v1.Pod {
	status := v1.ConditionFalse
	if ready {
		status = v1.ConditionTrue
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web", apps.StatefulSetRevisionLabel: revision}},
		Status: v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{
			{Type: v1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(since)},
		}},
	}
}

// TestParallelTwoPhase: with an old pod already unavailable at the bottom, v1.37 deletes it
// in phase 1 before spending the budget on available pods.
func TestParallelTwoPhase(t *testing.T) {
	extra := "  podManagementPolicy: Parallel\n  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 1"
	old := webSet(t, 4, "nginx:1", extra)
	set := webSet(t, 4, "nginx:2", extra)
	oldRev, _ := RevisionName(old)
	since := epoch.Add(-time.Minute)
	pods := []*v1.Pod{
		livePod("web-0", oldRev, false, since),
		livePod("web-1", oldRev, true, since),
		livePod("web-2", oldRev, true, since),
		livePod("web-3", oldRev, true, since),
	}
	p := simulate(t, Input{StatefulSet: set, Pods: pods, Timing: kernel.Timing{ReadyAfter: time.Hour, TerminateAfter: 5 * time.Second}})
	if got, want := timedSteps(p)[0], "0s delete web-0"; got != want {
		t.Errorf("first step = %s, want %s", got, want)
	}
	if !contains(p.Notes, NoteParallelTwoPhase) {
		t.Errorf("Notes = %q, want the two-phase note", p.Notes)
	}
}

func TestBelowPartitionRecreatedAtOldRevision(t *testing.T) {
	extra := "  updateStrategy:\n    rollingUpdate:\n      partition: 2"
	old := webSet(t, 3, "nginx:1", extra)
	set := webSet(t, 3, "nginx:2", extra)
	oldRev, _ := RevisionName(old)
	newRev, _ := RevisionName(set)
	since := epoch.Add(-time.Minute)
	// web-0 was deleted by hand; web-2 is already updated.
	pods := []*v1.Pod{livePod("web-1", oldRev, true, since), livePod("web-2", newRev, true, since)}
	p := simulate(t, Input{StatefulSet: set, Pods: pods, CurrentRevision: oldRev, Timing: timing})
	if got, want := timedSteps(p), []string{"0s create web-0"}; !equal(got, want) {
		t.Fatalf("steps = %v, want %v", got, want)
	}
	sizes := p.Steps[0].Revisions
	if sizes[0].Name != oldRev || sizes[0].Replicas != 2 || sizes[1].Name != newRev || sizes[1].Replicas != 1 {
		t.Errorf("sizes = %+v, want %s with 2 and %s with 1", sizes, oldRev, newRev)
	}
}

func TestOnDelete(t *testing.T) {
	old := webSet(t, 3, "nginx:1", "  updateStrategy:\n    type: OnDelete")
	set := webSet(t, 3, "nginx:2", "  updateStrategy:\n    type: OnDelete")
	p := simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
	if len(p.Steps) != 0 {
		t.Errorf("steps = %v, want none", timedSteps(p))
	}
	if p.Summary.Completed {
		t.Error("Completed = true, want false: no pod is at the new revision")
	}
	want := "OnDelete: nothing changes until pods are deleted. Deleting web-0, web-1, web-2 recreates each at revision " + p.Header.NewRevision + "."
	if !contains(p.Notes, want) {
		t.Errorf("Notes = %q, want %q", p.Notes, want)
	}

	// Scaling still happens, and new pods get the update revision.
	set = webSet(t, 4, "nginx:2", "  updateStrategy:\n    type: OnDelete")
	p = simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
	if got := timedSteps(p); !equal(got, []string{"0s create web-3"}) {
		t.Errorf("steps = %v, want [0s create web-3]", got)
	}
	if last := p.Steps[0].Revisions; last[1].Replicas != 1 || last[0].Replicas != 3 {
		t.Errorf("sizes = %+v, want 3 old and 1 new", last)
	}
}

// TestOnDeleteScaleUpWaitsForDeletion: an OnDelete StatefulSet scaled 3→5 with an image change
// creates web-3 and web-4 at the new revision (OrderedReady waits for web-3 first) and then
// only waits for the old pods to be deleted: the controller is not blocked on web-4, which is
// Ready, so the plan is not a stall (a real v1.37.1 cluster ends with 5/5 Ready).
func TestOnDeleteScaleUpWaitsForDeletion(t *testing.T) {
	old := webSet(t, 3, "nginx:1", "  updateStrategy:\n    type: OnDelete")
	set := webSet(t, 5, "nginx:2", "  updateStrategy:\n    type: OnDelete")
	p := simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
	if got, want := timedSteps(p), []string{"0s create web-3", "10s create web-4"}; !equal(got, want) {
		t.Fatalf("steps = %v, want %v", got, want)
	}
	s := p.Summary
	if s.Completed || !s.WaitsForDeletion {
		t.Errorf("Completed, WaitsForDeletion = %v, %v, want false, true", s.Completed, s.WaitsForDeletion)
	}
	if strings.Contains(s.StallReason, "waiting for pod") {
		t.Errorf("StallReason = %q, want no pod the controller waits for", s.StallReason)
	}
	if last := p.Steps[len(p.Steps)-1].Revisions; last[0].Replicas != 3 || last[1].Replicas != 2 {
		t.Errorf("sizes = %+v, want 3 old and 2 new", last)
	}
	if p.Final == nil || p.Final[0].Available+p.Final[1].Available != 5 {
		t.Errorf("Final = %+v, want 5 available", p.Final)
	}
}

func TestBrokenRevisionOrderedReady(t *testing.T) {
	old := webSet(t, 3, "nginx:1", "")
	set := webSet(t, 3, "nginx:broken", "")
	tm := timing
	tm.FailNew = true
	p := simulate(t, Input{StatefulSet: set, Old: old, Timing: tm})
	if got, want := timedSteps(p), []string{"0s delete web-2", "5s create web-2"}; !equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	if p.Summary.Completed {
		t.Fatal("Completed = true, want a stuck rollout")
	}
	if !strings.Contains(p.Summary.StallReason, "pod web-2") {
		t.Errorf("StallReason = %q, want it to name web-2", p.Summary.StallReason)
	}
	if !contains(p.Notes, NoteStuckIntervention+" Here: kubectl delete pod web-2.") {
		t.Errorf("Notes = %q, want the intervention", p.Notes)
	}
}

func TestMaxUnavailableArithmetic(t *testing.T) {
	// Upstream's TestGetStatefulSetMaxUnavailable.
	tests := []struct {
		maxUnavailable *intstr.IntOrString
		replicas       int
		want           int
	}{
		{nil, 10, 1},
		{ptr(intstr.FromInt32(3)), 10, 3},
		{ptr(intstr.FromInt32(3)), 0, 3},
		{ptr(intstr.FromInt32(0)), 0, 1},
		{ptr(intstr.FromString("10%")), 25, 2},
		{ptr(intstr.FromString("100%")), 5, 5},
		{ptr(intstr.FromString("50%")), 5, 2},
		{ptr(intstr.FromString("10%")), 5, 1},
	}
	for _, tt := range tests {
		got, _, err := scaleMaxUnavailable(tt.maxUnavailable, tt.replicas)
		if err != nil || got != tt.want {
			t.Errorf("scaleMaxUnavailable(%v, %d) = %d, %v, want %d", tt.maxUnavailable, tt.replicas, got, err, tt.want)
		}
	}
	set := webSet(t, 5, "nginx:1", "  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 25%")
	p := simulate(t, Input{StatefulSet: set})
	var got string
	for _, s := range p.Header.Settings {
		if s.Name == "maxUnavailable" {
			got = s.Arithmetic
		}
	}
	if want := "25% of 5 = 1.25 → 1 (rounded down)"; got != want {
		t.Errorf("maxUnavailable arithmetic = %q, want %q", got, want)
	}
	if p.Header.MinAvailable != 4 || p.Header.MaxPods != 5 {
		t.Errorf("bounds = %d..%d, want min 4 available, max 5 pods", p.Header.MinAvailable, p.Header.MaxPods)
	}
}

func ptr[T any](v T) *T { return &v }

func TestRevisionName(t *testing.T) {
	a := webSet(t, 3, "nginx:1", "")
	b := webSet(t, 5, "nginx:1", "  podManagementPolicy: Parallel")
	c := webSet(t, 3, "nginx:2", "")
	ra, err := RevisionName(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := RevisionName(b)
	rc, _ := RevisionName(c)
	if !strings.HasPrefix(ra, "web-") || len(ra) < len("web-")+9 {
		t.Errorf("RevisionName = %q, want web-<hash>", ra)
	}
	if ra != rb {
		t.Errorf("RevisionName differs (%s, %s) for the same template", ra, rb)
	}
	if ra == rc {
		t.Errorf("RevisionName(%s) is the same for a different image", ra)
	}
	patch, err := revisionPatch(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"spec":{"template":{"$patch":"replace","metadata":`; !strings.HasPrefix(string(patch), want) {
		t.Errorf("patch = %s, want it to start with %s", patch, want)
	}
	collided := a.DeepCopy()
	collided.Status.CollisionCount = ptr(int32(1))
	if r, _ := RevisionName(collided); r == ra {
		t.Errorf("RevisionName with collisionCount 1 = %s, want a different hash", r)
	}
}

func TestDeterministic(t *testing.T) {
	extra := "  podManagementPolicy: Parallel\n  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 3"
	in := Input{StatefulSet: webSet(t, 7, "nginx:2", extra), Old: webSet(t, 9, "nginx:1", extra), Timing: timing}
	first := strings.Join(timedSteps(simulate(t, in)), ",")
	for i := 0; i < 5; i++ {
		if got := strings.Join(timedSteps(simulate(t, in)), ","); got != first {
			t.Fatalf("run %d = %s, want %s", i, got, first)
		}
	}
}

func TestRecreateStrategyNeedsGate(t *testing.T) {
	old := webSet(t, 3, "nginx:1", "")
	set := webSet(t, 4, "nginx:2", "  updateStrategy:\n    type: Recreate")
	p := simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
	if len(p.Steps) != 0 || p.Summary.Completed || !strings.Contains(p.Summary.StallReason, "StatefulSetRecreateStrategy") {
		t.Errorf("steps = %v, completed %v, stall %q; want nothing done and the gate named", timedSteps(p), p.Summary.Completed, p.Summary.StallReason)
	}
}

func TestSummaryAndHeader(t *testing.T) {
	old := webSet(t, 3, "nginx:1", "")
	set := webSet(t, 3, "nginx:2", "")
	p := simulate(t, Input{StatefulSet: set, Old: old, Timing: timing})
	s := p.Summary
	if !s.Completed || s.Duration != 45*time.Second || s.PeakPods != 3 || s.MinAvailable != 2 {
		t.Errorf("Summary = %+v, want completed at 45s, peak 3 pods, at least 2 available", s)
	}
	oldRev, _ := RevisionName(old)
	newRev, _ := RevisionName(set)
	h := p.Header
	if p.Kind != "StatefulSet" || h.Strategy != "RollingUpdate" || h.Replicas != 3 || h.OldRevision != oldRev || h.NewRevision != newRev || p.TargetRevision != newRev {
		t.Errorf("Header = %+v (kind %s, new %s), want RollingUpdate 3 replicas %s → %s", h, p.Kind, p.TargetRevision, oldRev, newRev)
	}
	first := p.Steps[0]
	if first.Reason != ReasonSuccessfulDelete || first.Message != "Delete Pod web-2 in StatefulSet web successful" {
		t.Errorf("first step = %s %q, want the controller's SuccessfulDelete event", first.Reason, first.Message)
	}
	if want := []kernel.RevisionSize{{Name: oldRev, Replicas: 2, Pods: 3, Available: 2, Ready: 2, Terminating: 1}, {Name: newRev}}; fmt.Sprint(first.Revisions) != fmt.Sprint(want) {
		t.Errorf("first step sizes = %+v, want %+v", first.Revisions, want)
	}
}

// TestPlanEndsFullyAvailable: a completed rollout's plan ends with every pod available (its
// Final and last Timeline sample), as the summary says, so the pictures reach it too.
func TestPlanEndsFullyAvailable(t *testing.T) {
	p := simulate(t, Input{StatefulSet: webSet(t, 3, "nginx:2", ""), Old: webSet(t, 3, "nginx:1", ""), Timing: timing})
	if !p.Summary.Completed {
		t.Fatalf("Summary = %+v, want completed", p.Summary)
	}
	var available int32
	for _, r := range p.Final {
		available += r.Available
	}
	n := len(p.Timeline)
	if available != 3 || n == 0 || p.Timeline[n-1].Available != 3 || p.End < p.Steps[len(p.Steps)-1].At {
		t.Errorf("Final = %+v, End %s, Timeline %+v; want 3 available at the end", p.Final, p.End, p.Timeline)
	}
}
