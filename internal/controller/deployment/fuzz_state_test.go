package deployment

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// fuzzBytes hands out small numbers from fuzz data; once the data runs out
// every number is 0, so any input decodes to some state.
type fuzzBytes []byte

func (b *fuzzBytes) next(n int) int {
	if len(*b) == 0 || n <= 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v % n
}

// intOrPercent is a maxSurge or maxUnavailable value: a count or a
// percentage.
func (b *fuzzBytes) intOrPercent(replicas int) string {
	if b.next(2) == 0 {
		return fmt.Sprint(b.next(replicas + 3))
	}
	return fmt.Sprintf("%d%%", b.next(101))
}

// fuzzState decodes a Deployment and a starting state from fuzz data: up to
// four ReplicaSets, each either on the Deployment's template or on an old
// one, with groups of pods in every phase, and random rollout parameters.
func fuzzState(t *testing.T, data []byte) Input {
	b := fuzzBytes(data)
	replicas := b.next(31)
	strategy := "  strategy:\n    type: Recreate"
	if b.next(4) != 0 {
		surge, unavailable := b.intOrPercent(replicas), b.intOrPercent(replicas)
		if strings.TrimSuffix(surge, "%") == "0" && strings.TrimSuffix(unavailable, "%") == "0" {
			unavailable = "1" // both 0 is rejected by validation
		}
		strategy = fmt.Sprintf("  strategy:\n    rollingUpdate:\n      maxSurge: %s\n      maxUnavailable: %s", surge, unavailable)
	}
	d := webDeployment(t, int32(replicas), "nginx:new", strategy)
	d.Spec.MinReadySeconds = int32(b.next(12))
	if b.next(3) == 0 {
		d.Spec.ProgressDeadlineSeconds = int32Ptr(int32(b.next(120) + 1))
	}
	d.Spec.Paused = b.next(8) == 0

	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := Input{
		Deployment: d,
		Start:      start,
		Timing: kernel.Timing{
			ReadyAfter:     time.Duration(b.next(61)) * time.Second,
			TerminateAfter: time.Duration(b.next(61)) * time.Second,
			FailNew:        b.next(4) == 0,
		},
		// Enough for any of these states to finish; a run that does not is
		// reported as a stall, which the invariants accept.
		MaxEvents: 20_000,
	}
	phases := []PodPhase{PodAvailable, PodReady, PodNotReady, PodTerminating}
	// The Deployment's size when the controller last scaled: a state the
	// controller left behind never has ReplicaSets summing above it, however
	// the Deployment has been scaled since (states the controller cannot
	// reach make its proportional scaling grow ReplicaSets while shrinking the
	// total, as upstream's would).
	prevReplicas := int32(b.next(31))
	prevMax := prevReplicas + int32(b.next(6))
	budget := prevMax
	for i := range b.next(5) {
		template := d.Spec.Template.DeepCopy()
		if b.next(3) != 0 {
			template.Spec.Containers[0].Image = fmt.Sprintf("nginx:old-%d", b.next(3))
		}
		rs := &apps.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name:      fmt.Sprintf("web-rs%d", i),
				Namespace: "default",
				// Creation times may tie: the controllers order ties by name.
				CreationTimestamp: metav1.NewTime(start.Add(-time.Duration(b.next(5)) * time.Hour)),
				Annotations:       map[string]string{deploymentutil.RevisionAnnotation: fmt.Sprint(i + 1)},
			},
			Spec: apps.ReplicaSetSpec{
				Replicas:        int32Ptr(int32(b.next(31))),
				MinReadySeconds: d.Spec.MinReadySeconds,
				Selector:        d.Spec.Selector.DeepCopy(),
				Template:        *template,
			},
		}
		// The annotations as the controller wrote them when it last scaled
		// the ReplicaSets: the Deployment's replicas and replicas + maxSurge
		// then, which bound the sizes it gave them all together.
		deploymentutil.SetReplicasAnnotations(rs, prevReplicas, prevMax)
		*rs.Spec.Replicas = min(*rs.Spec.Replicas, budget)
		budget -= *rs.Spec.Replicas
		state := ReplicaSetState{ReplicaSet: rs}
		for range b.next(4) {
			state.Pods = append(state.Pods, PodGroup{Phase: phases[b.next(len(phases))], Count: int32(b.next(21))})
		}
		in.ReplicaSets = append(in.ReplicaSets, state)
	}
	return in
}

// sumReplicas is the sum of the ReplicaSets' spec.replicas at a step.
func sumReplicas(sizes []kernel.RevisionSize) int32 {
	n := int32(0)
	for _, s := range sizes {
		n += s.Replicas
	}
	return n
}

// checkStateInvariants simulates in and checks what must hold from any valid
// starting state: no error, a plan that completes or says why it stalled,
// and no scale-up that takes the sum of spec.replicas above replicas +
// maxSurge (replicas for Recreate) unless it was above already.
func checkStateInvariants(t *testing.T, in Input) {
	t.Helper()
	p, err := Simulate(in)
	if err != nil {
		t.Fatalf("Simulate() error: %v", err)
	}
	if !p.Summary.Completed && p.Summary.StallReason == "" {
		t.Errorf("Simulate() neither completed nor gave a stall reason: %+v", p.Summary)
	}
	d := in.Deployment
	limit := *d.Spec.Replicas + deploymentutil.MaxSurge(*d)
	before := int32(0)
	for _, s := range in.ReplicaSets {
		before += *s.ReplicaSet.Spec.Replicas
	}
	// The bound holds after each sync: compare the sizes its last step leaves with the
	// previous sync's (within a sync, a proportional scale-up comes before its scale-down).
	for i := 0; i < len(p.Steps); {
		j := i
		scaledUp := false
		for ; j < len(p.Steps) && p.Steps[j].Sync == p.Steps[i].Sync; j++ {
			scaledUp = scaledUp || strings.HasPrefix(p.Steps[j].Message, "Scaled up ")
		}
		after := sumReplicas(p.Steps[j-1].Revisions)
		if scaledUp && after > max(limit, before) {
			t.Errorf("step %q at %s: spec.replicas sum to %d after a scale-up, want at most %d (replicas + maxSurge) or the %d before it",
				p.Steps[i].Message, p.Steps[i].At, after, limit, before)
		}
		before = after
		i = j
	}
}

// describeState renders a fuzzed input for failure messages.
func describeState(in Input) string {
	var b strings.Builder
	d := in.Deployment
	fmt.Fprintf(&b, "replicas=%d strategy=%s", *d.Spec.Replicas, d.Spec.Strategy.Type)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		fmt.Fprintf(&b, " maxSurge=%s maxUnavailable=%s", ru.MaxSurge, ru.MaxUnavailable)
	}
	fmt.Fprintf(&b, " minReady=%d paused=%v timing=%+v\n", d.Spec.MinReadySeconds, d.Spec.Paused, in.Timing)
	for _, s := range in.ReplicaSets {
		rs := s.ReplicaSet
		fmt.Fprintf(&b, "  %s image=%s replicas=%d created=%s annotations=%v pods=%+v\n", rs.Name, rs.Spec.Template.Spec.Containers[0].Image,
			*rs.Spec.Replicas, rs.CreationTimestamp.Sub(in.Start), rs.Annotations, s.Pods)
	}
	return b.String()
}

// FuzzStateInvariants checks the simulation's invariants from random
// starting states (see checkStateInvariants).
func FuzzStateInvariants(f *testing.F) {
	// A Deployment from nothing; a finished rollout; TestProportionalScaling's
	// state (old 8 available, new 5 stuck, scaled to 15); a paused mid-rollout.
	f.Add([]byte{3, 1})
	f.Add([]byte{3, 1, 0, 1, 0, 0, 10, 20, 0, 1, 0, 0, 0, 3, 1, 0, 3, 0, 3})
	f.Add([]byte{15, 1, 0, 3, 1, 2, 0, 0, 1, 10, 30, 0, 2, 1, 0, 2, 8, 0, 10, 13, 1, 0, 8, 0, 1, 5, 0, 10, 13, 1, 2, 5})
	f.Add([]byte{6, 1, 1, 20, 1, 3, 0, 1, 0, 5, 5, 1, 2, 1, 1, 1, 6, 1, 2, 0, 4, 3, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzState(t, data)
		t.Log(describeState(in))
		checkStateInvariants(t, in)
	})
}
