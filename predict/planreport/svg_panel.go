package planreport

import (
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// svgLegendHeight is the legend's height under a panel's plot: a row of revisions and a
// row of pod states.
const svgLegendHeight = 44

// podState is one of the states a panel stacks, bottom up: the bounds are about the first
// three together (pods that exist and are not terminating) and the first alone
// (available), so they are drawn where those stacks end.
type podState int

const (
	stateAvailable podState = iota
	stateReady              // ready, not yet available (minReadySeconds)
	stateNotReady
	stateTerminating
	podStates
)

// stateNames are the legend's words for the states.
var stateNames = [podStates]string{"available", "ready, not yet available", "not ready", "terminating"}

// stateCounts splits a revision's pods by state. The kernel counts Ready among the
// non-terminating pods and Available among the Ready ones.
func stateCounts(r kernel.RevisionSize) [podStates]int32 {
	var c [podStates]int32
	c[stateAvailable] = r.Available
	c[stateReady] = max(0, r.Ready-r.Available)
	c[stateNotReady] = max(0, r.Pods-r.Terminating-max(r.Ready, r.Available))
	c[stateTerminating] = r.Terminating
	return c
}

// kindSize is how many pods the header says the workload runs, in the kind's terms: a
// DaemonSet's are its nodes, a StatefulSet's its ordinals.
func kindSize(plan *kernel.Plan) string {
	n := plan.Header.Replicas
	switch plan.Kind {
	case "DaemonSet":
		return fmt.Sprintf("%d nodes (one pod on each)", n)
	case "StatefulSet":
		if n == 0 {
			return "0 replicas"
		}
		name := plan.Header.Name
		if plan.Header.Strategy == "RollingUpdate" {
			return fmt.Sprintf("%d replicas, pods %s-0 to %s-%d, updated from the highest ordinal down", n, name, name, n-1)
		}
		return fmt.Sprintf("%d replicas, pods %s-0 to %s-%d", n, name, name, n-1)
	}
	return fmt.Sprintf("%d replicas", n)
}

// timeUnit is the unit of a panel's time axis: the one that fits the run, from
// milliseconds to hours.
type timeUnit struct {
	d      time.Duration
	suffix string
}

func axisUnit(end time.Duration) timeUnit {
	switch {
	case end < 2*time.Second:
		return timeUnit{time.Millisecond, "ms"}
	case end < 3*time.Minute:
		return timeUnit{time.Second, "s"}
	case end < 3*time.Hour:
		return timeUnit{time.Minute, "min"}
	}
	return timeUnit{time.Hour, "h"}
}

// panelEnd is where a panel's time axis ends: the last thing it draws (the completion, the
// last step, the end of the simulation), and a tenth more so that the last state shows.
func panelEnd(plan *kernel.Plan) time.Duration {
	end := max(plan.Summary.Duration, plan.End)
	for _, s := range plan.Steps {
		end = max(end, s.At)
	}
	if plan.Summary.DeadlineExceeded {
		end = max(end, plan.Summary.DeadlineAt)
	}
	if end <= 0 {
		return time.Second // nothing happens: an axis of a second
	}
	return end + end/10
}

// statefulSetPodEvent matches the StatefulSet controller's pod events, as the plan's steps
// carry them: "Delete Pod db-2 in StatefulSet db successful".
var statefulSetPodEvent = regexp.MustCompile(`^(?:\w+: )?(Create|Delete) Pod (\S+) in StatefulSet `)

// ordinalChanges names the pods a StatefulSet's events at one instant create and delete,
// as "-db-2 +db-2", or "".
func ordinalChanges(messages []string) string {
	var out []string
	for _, m := range messages {
		if sm := statefulSetPodEvent.FindStringSubmatch(m); sm != nil {
			sign := "+"
			if sm[1] == "Delete" {
				sign = "-"
			}
			out = append(out, sign+sm[2])
		}
	}
	return strings.Join(out, " ")
}

// writePanel draws one plan: each revision's pods stacked over time by state (available
// solid, ready but not yet available lighter, not ready striped, terminating hatched grey,
// on top), the available pods as a black line, "at most MaxPods" where the non-terminating
// pods end and "at least MinAvailable" where the available ones end, a marker for each
// instant the controller acted (its events in the tooltip), and where the rollout
// completed or stalled. idx makes the panel's pattern ids unique in the document.
func writePanel(b *strings.Builder, p runner.Prediction, idx int) {
	plan := p.Plan
	names := columns(plan)
	subs := subtitles(plan, p.Autoscaler)
	svgTop := panelTop(p)
	plotBottom := svgTop + svgPlotHeight
	plotRight := svgLeft + svgPlotWidth
	end := panelEnd(plan)
	peak := max(plan.Summary.PeakPods, plan.Header.MaxPods, 1)
	for _, s := range samples(plan) {
		peak = max(peak, s.Pods)
	}
	top := peak + max(peak/8, 1) // headroom: the peak and the "at most" line stay clear of the top
	x := func(t time.Duration) float64 { return svgLeft + float64(t)/float64(end)*svgPlotWidth }
	y := func(n float64) float64 { return float64(plotBottom) - n/float64(top)*svgPlotHeight }

	title := fmt.Sprintf("%s %s/%s", p.Kind, p.Namespace, p.Name)
	fmt.Fprintf(b, `<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", svgLeft, html.EscapeString(title))
	summaryLines := len(wrap(summaryText(plan), svgSubtitleChars))
	for i, line := range subs {
		fill := ""
		if i >= summaryLines {
			fill = ` fill="#444"`
		}
		fmt.Fprintf(b, `<text x="%d" y="%d"%s>%s</text>`+"\n", svgLeft, 38+i*svgLineHeight, fill, html.EscapeString(line))
	}

	// Patterns: stripes in each revision's colour for its pods that are not ready, grey
	// hatching for terminating pods.
	b.WriteString("<defs>\n")
	for k := range names {
		c := svgColors[k%len(svgColors)]
		fmt.Fprintf(b, `<pattern id="p%d-notready-%d" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="white"/><rect width="2.5" height="6" fill="%s"/></pattern>`+"\n", idx, k, c)
		fmt.Fprintf(b, `<pattern id="p%d-terminating-%d" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="5" height="5" fill="#e5e7eb"/><rect width="1.2" height="5" fill="%s"/></pattern>`+"\n", idx, k, c)
	}
	b.WriteString("</defs>\n")
	fill := func(st podState, k int) string {
		c := svgColors[k%len(svgColors)]
		switch st {
		case stateAvailable:
			return fmt.Sprintf(`fill="%s"`, c)
		case stateReady:
			return fmt.Sprintf(`fill="%s" fill-opacity="0.4"`, c)
		case stateNotReady:
			return fmt.Sprintf(`fill="url(#p%d-notready-%d)"`, idx, k)
		}
		return fmt.Sprintf(`fill="url(#p%d-terminating-%d)"`, idx, k)
	}

	// Axes and ticks.
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, plotBottom, plotRight, plotBottom)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, svgTop, svgLeft, plotBottom)
	for _, n := range ticks(float64(top)) {
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", svgLeft-6, y(n)+4, n)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`+"\n", svgLeft+1, y(n), plotRight, y(n))
	}
	unit := axisUnit(end)
	for _, v := range ticks(float64(end) / float64(unit.d)) {
		t := time.Duration(v * float64(unit.d))
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%g%s</text>`+"\n", x(t), plotBottom+16, v, unit.suffix)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">time since the change</text>`+"\n", svgLeft+svgPlotWidth/2, plotBottom+34)
	fmt.Fprintf(b, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">pods</text>`+"\n", svgTop+svgPlotHeight/2, svgTop+svgPlotHeight/2)

	// The states, each held until the next sample.
	type state struct {
		at        time.Duration
		counts    map[string][podStates]int32
		available int32
	}
	var states []state
	for _, sm := range samples(plan) {
		st := state{at: sm.At, counts: map[string][podStates]int32{}, available: sm.Available}
		for _, r := range sm.Revisions {
			st.counts[r.Name] = stateCounts(r)
		}
		states = append(states, st)
	}
	next := func(i int) time.Duration {
		if i+1 < len(states) {
			return states[i+1].at
		}
		return end
	}
	// Bands bottom up: state by state, revision by revision within a state.
	type band struct {
		st podState
		k  int
	}
	var bands []band
	for st := stateAvailable; st < podStates; st++ {
		for k := range names {
			bands = append(bands, band{st, k})
		}
	}
	for bi, bd := range bands {
		var upper, lower []string
		drawn := false
		for i, st := range states {
			base := int32(0)
			for _, below := range bands[:bi] {
				base += st.counts[names[below.k]][below.st]
			}
			n := st.counts[names[bd.k]][bd.st]
			drawn = drawn || n > 0
			upper = append(upper, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(st.at), y(float64(base+n)), x(next(i)), y(float64(base+n))))
			lower = append([]string{fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(next(i)), y(float64(base)), x(st.at), y(float64(base)))}, lower...)
		}
		if !drawn {
			continue
		}
		fmt.Fprintf(b, `<polygon points="%s %s" %s stroke="none"><title>%s: %s</title></polygon>`+"\n",
			strings.Join(upper, " "), strings.Join(lower, " "), fill(bd.st, bd.k), html.EscapeString(names[bd.k]), stateNames[bd.st])
	}
	// Available pods: the top of the available bands.
	var line []string
	for i, st := range states {
		line = append(line, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(st.at), y(float64(st.available)), x(next(i)), y(float64(st.available))))
	}
	if len(line) > 0 {
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="black" stroke-width="2"/>`+"\n", strings.Join(line, " "))
	}

	// Bounds, labelled in the right margin at their lines' height, apart when close.
	maxY, minY := y(float64(plan.Header.MaxPods)), y(float64(plan.Header.MinAvailable))
	if minY-maxY < 30 {
		mid := (maxY + minY) / 2
		maxY, minY = mid-15, mid+15
	}
	bound := func(n int32, color string, labelY float64, lines ...string) {
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", svgLeft, y(float64(n)), plotRight+4, y(float64(n)), color)
		for i, l := range lines {
			weight := ` font-weight="bold"`
			if i > 0 {
				weight = ` font-size="10"`
			}
			fmt.Fprintf(b, `<text x="%d" y="%.1f" fill="%s"%s>%s</text>`+"\n", plotRight+8, labelY+4+float64(i)*12, color, weight, html.EscapeString(l))
		}
	}
	bound(plan.Header.MaxPods, "#dc2626", maxY, fmt.Sprintf("at most %d pods", plan.Header.MaxPods), "not terminating: the solid and", "striped bands")
	bound(plan.Header.MinAvailable, "#b45309", minY, fmt.Sprintf("at least %d available", plan.Header.MinAvailable), "the black line")

	// The controller's steps: a marker at each instant it acted, its events in the tooltip.
	var instants []time.Duration
	events := map[time.Duration][]string{}
	for _, s := range plan.Steps {
		if _, ok := events[s.At]; !ok {
			instants = append(instants, s.At)
		}
		events[s.At] = append(events[s.At], s.Message)
	}
	sort.Slice(instants, func(i, j int) bool { return instants[i] < instants[j] })
	for _, at := range instants {
		cx := x(at)
		fmt.Fprintf(b, `<path d="M%.1f,%d l-4,-7 h8 z" fill="#374151"><title>%s: %s</title></path>`+"\n",
			cx, svgTop-1, seconds(at), html.EscapeString(strings.Join(events[at], "; ")))
		// A StatefulSet's steps are about ordinals: name the pods each one deletes (-) and
		// creates (+) under its marker.
		if plan.Kind == "StatefulSet" {
			if pods := ordinalChanges(events[at]); pods != "" {
				fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="#374151" stroke="white" stroke-width="3" paint-order="stroke">%s</text>`+"\n",
					cx, svgTop+11, html.EscapeString(pods))
			}
		}
	}
	// Completion or stall.
	s := plan.Summary
	switch {
	case s.Completed:
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#15803d" stroke-width="2"/>`+"\n", x(s.Duration), svgTop, x(s.Duration), plotBottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#15803d" font-weight="bold" stroke="white" stroke-width="3" paint-order="stroke">complete at %s</text>`+"\n", x(s.Duration)+4, svgTop+12, seconds(s.Duration))
	case !s.WaitsForDeletion:
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dc2626" stroke-width="2" stroke-dasharray="2 3"/>`+"\n", x(s.Duration), svgTop, x(s.Duration), plotBottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#dc2626" font-weight="bold" text-anchor="end" stroke="white" stroke-width="3" paint-order="stroke">stalls after %s</text>`+"\n", x(s.Duration)-4, svgTop+12, seconds(s.Duration))
	}
	if s.DeadlineExceeded {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dc2626"/>`+"\n", x(s.DeadlineAt), svgTop, x(s.DeadlineAt), plotBottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#dc2626" text-anchor="end" stroke="white" stroke-width="3" paint-order="stroke">progress deadline exceeded</text>`+"\n", x(s.DeadlineAt)-4, svgTop+28)
	}

	// Legend under the plot: the revisions, then the states and the marks.
	ly := plotBottom + 50
	lx := svgLeft
	for k, n := range names {
		role := "old"
		if n == plan.TargetRevision {
			role = "new"
		}
		text := shorten(n, 28) + " (" + role + ")"
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`+"\n", lx, ly-10, svgColors[k%len(svgColors)])
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", lx+16, ly, html.EscapeString(text))
		lx += 16 + len([]rune(text))*7 + 16
	}
	ly += 18
	lx = svgLeft
	k := len(names) - 1 // the states in the newest revision's colour
	for st := stateAvailable; st < podStates; st++ {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" %s stroke="#999" stroke-width="0.5"/>`+"\n", lx, ly-10, fill(st, max(k, 0)))
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11">%s</text>`+"\n", lx+16, ly, stateNames[st])
		lx += 16 + len(stateNames[st])*6 + 14
	}
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-width="2"/>`+"\n", lx, ly-4, lx+12, ly-4)
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11">total available</text>`+"\n", lx+16, ly)
	lx += 16 + 15*6 + 14
	fmt.Fprintf(b, `<path d="M%d,%d l-4,-7 h8 z" fill="#374151"/>`+"\n", lx+4, ly)
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11">controller step</text>`+"\n", lx+12, ly)
}
