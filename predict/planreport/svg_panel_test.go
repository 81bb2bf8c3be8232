package planreport

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// fastPlan is a 40 ms Deployment rollout, 2 replicas, maxSurge 1, maxUnavailable 0: a new
// pod at 0 (not ready), ready at 10 ms, available at 15 ms (minReadySeconds), an old pod
// terminating from 15 ms to 25 ms, and so on to 40 ms.
func fastPlan() *kernel.Plan {
	ms := time.Millisecond
	rs := func(oldPods, oldAvail, oldTerm, newPods, newReady, newAvail int32) []kernel.RevisionSize {
		return []kernel.RevisionSize{
			{Name: "web-old", Replicas: oldPods - oldTerm, Pods: oldPods, Available: oldAvail, Ready: oldAvail, Terminating: oldTerm},
			{Name: "web-new", Replicas: newPods, Pods: newPods, Available: newAvail, Ready: newReady},
		}
	}
	sample := func(at time.Duration, r []kernel.RevisionSize) kernel.Sample {
		s := kernel.Sample{At: at, Revisions: r}
		for _, x := range r {
			s.Pods += x.Pods
			s.Available += x.Available
		}
		return s
	}
	return &kernel.Plan{
		Kind:           "Deployment",
		Header:         kernel.Header{Namespace: "shop", Name: "web", Strategy: "RollingUpdate", Replicas: 2, MaxPods: 3, MinAvailable: 2},
		TargetRevision: "web-new",
		Steps: []kernel.Step{
			{At: 0, Message: "Scaled up replica set web-new from 0 to 1", Revisions: rs(2, 2, 0, 1, 0, 0)},
			{At: 15 * ms, Message: "Scaled down replica set web-old from 2 to 1", Revisions: rs(2, 1, 1, 1, 1, 1)},
			{At: 15 * ms, Message: "Scaled up replica set web-new from 1 to 2", Revisions: rs(2, 1, 1, 2, 1, 1)},
		},
		Timeline: []kernel.Sample{
			sample(0, rs(2, 2, 0, 1, 0, 0)),
			sample(10*ms, rs(2, 2, 0, 1, 1, 0)),
			sample(15*ms, rs(2, 1, 1, 2, 1, 1)),
			sample(40*ms, rs(0, 0, 0, 2, 2, 2)),
		},
		Summary: kernel.Summary{Completed: true, Duration: 40 * ms, PeakPods: 4, MinAvailable: 2},
		End:     40 * ms,
	}
}

func svgOf(t *testing.T, plans ...*kernel.Plan) string {
	t.Helper()
	res := &runner.Result{}
	for _, p := range plans {
		res.Predictions = append(res.Predictions, runner.Prediction{Kind: p.Kind, Namespace: p.Header.Namespace, Name: p.Header.Name, Plan: p})
	}
	var b strings.Builder
	if err := SVG(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestStateCountsPartitionPods: the four states add up to the revision's pods.
func TestStateCountsPartitionPods(t *testing.T) {
	r := kernel.RevisionSize{Pods: 9, Terminating: 2, Ready: 5, Available: 3}
	c := stateCounts(r)
	want := [podStates]int32{3, 2, 2, 2}
	if c != want {
		t.Errorf("stateCounts(%+v) = %v, want %v", r, c, want)
	}
}

// TestPictureFitsAFastRollout: a 40 ms rollout gets a millisecond axis that ends just
// after it, a completion marker where it completed, one step marker per instant the
// controller acted, each state in the legend, and bands titled by revision and state.
func TestPictureFitsAFastRollout(t *testing.T) {
	svg := svgOf(t, fastPlan())
	for _, want := range []string{
		">40ms</text>", "complete at 40ms", "at most 3 pods", "at least 2 available",
		"web-new: not ready</title>", "web-new: ready, not yet available</title>", "web-old: terminating</title>", "web-new: available</title>",
		"ready, not yet available</text>", "not ready</text>", "terminating</text>", "controller step</text>",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG of a 40 ms rollout lacks %q", want)
		}
	}
	if strings.Contains(svg, ">1s</text>") || strings.Contains(svg, ">60ms</text>") {
		t.Errorf("SVG of a 40 ms rollout has an axis beyond the run (1s or 60ms)")
	}
	if n := len(regexp.MustCompile(`<path d="M[^"]*" fill="#374151"><title>`).FindAllString(svg, -1)); n != 2 {
		t.Errorf("SVG has %d step markers, want 2 (0 and 15ms)", n)
	}
	if !strings.Contains(svg, "<title>15ms: Scaled down replica set web-old from 2 to 1; Scaled up replica set web-new from 1 to 2</title>") {
		t.Errorf("the 15 ms marker does not name both events")
	}
}

// TestPictureMarksAStall: a rollout that does not complete says where it stalled and has
// no completion marker.
func TestPictureMarksAStall(t *testing.T) {
	p := fastPlan()
	p.Summary = kernel.Summary{Duration: 10 * time.Minute, StallReason: "ProgressDeadlineExceeded", DeadlineExceeded: true, DeadlineAt: 10 * time.Minute}
	svg := svgOf(t, p)
	if !strings.Contains(svg, "stalls after 10m0s") || !strings.Contains(svg, "progress deadline exceeded") || strings.Contains(svg, "complete at") {
		t.Errorf("SVG of a stalled rollout: want a stall and deadline marker, no completion")
	}
	if !strings.Contains(svg, ">10min</text>") {
		t.Errorf("SVG of a 10-minute stall: want a minute axis")
	}
}

// TestKindHeaders: the header counts a DaemonSet's nodes and a StatefulSet's ordinals, and
// the StatefulSet picture names the pods each step deletes and creates.
func TestKindHeaders(t *testing.T) {
	ds := &kernel.Plan{Kind: "DaemonSet", Header: kernel.Header{Name: "agent", Strategy: "RollingUpdate", Replicas: 6}}
	if got := kindSize(ds); got != "6 nodes (one pod on each)" {
		t.Errorf("kindSize(DaemonSet of 6) = %q", got)
	}
	sts := &kernel.Plan{Kind: "StatefulSet", Header: kernel.Header{Name: "db", Strategy: "RollingUpdate", Replicas: 3}}
	if got := kindSize(sts); got != "3 replicas, pods db-0 to db-2, updated from the highest ordinal down" {
		t.Errorf("kindSize(StatefulSet of 3) = %q", got)
	}
	if got := ordinalChanges([]string{"SuccessfulDelete: Delete Pod db-2 in StatefulSet db successful", "SuccessfulCreate: Create Pod db-2 in StatefulSet db successful"}); got != "-db-2 +db-2" {
		t.Errorf("ordinalChanges = %q, want \"-db-2 +db-2\"", got)
	}
}

// TestHTMLNamesTheControllers: the HTML report names the controllers of the kinds it
// predicts, not the Deployment controller for every kind.
func TestHTMLNamesTheControllers(t *testing.T) {
	tests := []struct {
		kinds []string
		want  string
	}{
		{[]string{"Deployment"}, "the Deployment controller's arithmetic"},
		{[]string{"DaemonSet", "CronJob", "DaemonSet"}, "the CronJob and DaemonSet controllers' arithmetic"},
		{[]string{"StatefulSet", "Job", "Deployment"}, "the Deployment, Job and StatefulSet controllers' arithmetic"},
	}
	for _, tt := range tests {
		res := &runner.Result{}
		for _, k := range tt.kinds {
			res.Predictions = append(res.Predictions, runner.Prediction{Kind: k})
		}
		if got := controllersText(res); got != tt.want {
			t.Errorf("controllersText(%v) = %q, want %q", tt.kinds, got, tt.want)
		}
	}
}
