package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// The SVG timeline's geometry, in pixels.
const (
	svgWidth      = 860
	svgPanel      = 360
	svgLeft       = 60
	svgRight      = 200
	svgTop        = 70
	svgBottom     = 50
	svgPlotWidth  = svgWidth - svgLeft - svgRight
	svgPlotHeight = svgPanel - svgTop - svgBottom
	svgNoteLine   = 24
)

// svgColors shade the ReplicaSets, oldest first.
var svgColors = []string{"#9aa5b1", "#3b82f6", "#10b981", "#f59e0b", "#a855f7", "#ef4444"}

// SVG writes one timeline panel per predicted plan: each ReplicaSet's pods stacked over time,
// the available pods as a line, and the strategy's bounds as dashed lines.
func SVG(w io.Writer, res *runner.Result) error {
	var panels []runner.Prediction
	// CronJobs, Jobs and scale-downs have no rollout timeline: a line names each instead.
	var notes []string
	for _, p := range res.Predictions {
		if p.Plan != nil {
			panels = append(panels, p)
		} else if p.Schedule != nil || p.Job != nil || p.ScaleDown != nil {
			notes = append(notes, fmt.Sprintf("%s %s/%s: no timeline in SVG; see -o text, json, yaml or html", p.Kind, p.Namespace, p.Name))
		}
	}
	panelsHeight := 0
	for _, p := range panels {
		panelsHeight += panelHeight(p)
	}
	if len(panels) == 0 && len(notes) == 0 {
		panelsHeight = svgPanel
	}
	height := panelsHeight + len(notes)*svgNoteLine
	b := &strings.Builder{}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	if len(panels) == 0 && len(notes) == 0 {
		fmt.Fprintf(b, `<text x="%d" y="%d">nothing to predict</text>`+"\n", svgLeft, svgTop)
	}
	offset := 0
	for _, p := range panels {
		fmt.Fprintf(b, `<g transform="translate(0,%d)">`+"\n", offset)
		writePanel(b, p)
		b.WriteString("</g>\n")
		offset += panelHeight(p)
	}
	for i, n := range notes {
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", svgLeft, panelsHeight+i*svgNoteLine+svgNoteLine/2+4, html.EscapeString(n))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// svgSubtitleChars is how many characters of a subtitle fit across the picture, at about 6.6
// pixels a character at font-size 12.
const svgSubtitleChars = (svgWidth - svgLeft - 10) * 10 / 66

// subtitles are a panel's lines under its title: the summary and the strategy's settings,
// each setting with its value, wrapped to the picture's width.
func subtitles(plan *kernel.Plan) []string {
	settings := []string{fmt.Sprintf("%s, %d replicas", plan.Header.Strategy, plan.Header.Replicas)}
	for _, s := range plan.Header.Settings {
		settings = append(settings, s.Name+" "+settingText(s))
	}
	width := svgSubtitleChars
	return append(wrap(summaryText(plan), width), wrap(strings.Join(settings, "; "), width)...)
}

// settingText is a setting as the text header shows it: its value, then the arithmetic when
// that adds something ("OrderedReady: one pod at a time, …").
func settingText(s kernel.Setting) string {
	if s.Value != "" && s.Value != s.Arithmetic && !strings.HasPrefix(s.Arithmetic, s.Value+" ") {
		return s.Value + ": " + s.Arithmetic
	}
	return s.Arithmetic
}

// wrap breaks text at spaces into lines of at most width characters (a longer word stands
// alone).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// panelTop is where a panel's plot starts: below its title and subtitle lines.
func panelTop(p runner.Prediction) int {
	return svgTop + (len(subtitles(p.Plan))-2)*svgLineHeight
}

// panelHeight is a panel's height: the plot's and its header's.
func panelHeight(p runner.Prediction) int {
	return svgPanel + (len(subtitles(p.Plan))-2)*svgLineHeight
}

// svgLineHeight is the distance between two subtitle lines.
const svgLineHeight = 16

// samples are the states a picture draws, each held until the next: the plan's Timeline
// (every change of pods, between controller events too), else the state after the last step
// of each instant and the final one.
func samples(plan *kernel.Plan) []kernel.Sample {
	if len(plan.Timeline) > 0 {
		return plan.Timeline
	}
	var out []kernel.Sample
	for _, s := range plan.Steps {
		st := kernel.Sample{At: s.At, Revisions: s.Revisions, Pods: s.Pods, Available: s.Available}
		if len(out) > 0 && out[len(out)-1].At == s.At {
			out[len(out)-1] = st
		} else {
			out = append(out, st)
		}
	}
	if len(plan.Final) > 0 && (len(out) == 0 || plan.End > out[len(out)-1].At) {
		st := kernel.Sample{At: plan.End, Revisions: plan.Final}
		for _, r := range plan.Final {
			st.Pods += r.Pods
			st.Available += r.Available
		}
		out = append(out, st)
	}
	return out
}

func writePanel(b *strings.Builder, p runner.Prediction) {
	plan := p.Plan
	names := columns(plan)
	subs := subtitles(plan)
	svgTop := panelTop(p)
	end := max(plan.Summary.Duration, plan.End)
	for _, s := range plan.Steps {
		end = max(end, s.At)
	}
	// Leave room after the last step so its state is visible.
	end += max(end/10, time.Second)
	peak := max(plan.Summary.PeakPods, plan.Header.MaxPods, 1)
	for _, s := range plan.Timeline {
		peak = max(peak, s.Pods)
	}
	// Headroom above the peak, so that its bar and the "at most" line stay clear of the top.
	top := peak + max(peak/8, 1)
	x := func(t time.Duration) float64 { return svgLeft + float64(t)/float64(end)*svgPlotWidth }
	y := func(n float64) float64 { return float64(svgTop+svgPlotHeight) - n/float64(top)*svgPlotHeight }

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

	// Axes and ticks.
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, svgTop+svgPlotHeight, svgLeft+svgPlotWidth, svgTop+svgPlotHeight)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, svgTop, svgLeft, svgTop+svgPlotHeight)
	for _, n := range ticks(float64(top)) {
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", svgLeft-6, y(n)+4, n)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`+"\n", svgLeft+1, y(n), svgLeft+svgPlotWidth, y(n))
	}
	for _, sec := range ticks(end.Seconds()) {
		t := time.Duration(sec * float64(time.Second))
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(t), svgTop+svgPlotHeight+16, seconds(t))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">time since the change</text>`+"\n", svgLeft+svgPlotWidth/2, svgTop+svgPlotHeight+34)
	fmt.Fprintf(b, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">pods</text>`+"\n", svgTop+svgPlotHeight/2, svgTop+svgPlotHeight/2)

	// States: every change of pods (samples), each held until the next.
	type state struct {
		at        time.Duration
		pods      map[string]int32
		available int32
	}
	var states []state
	for _, sm := range samples(plan) {
		st := state{at: sm.At, pods: map[string]int32{}, available: sm.Available}
		for _, r := range sm.Revisions {
			st.pods[r.Name] = r.Pods
		}
		states = append(states, st)
	}
	// Stacked areas, one polygon per ReplicaSet.
	for k := len(names) - 1; k >= 0; k-- {
		var upper, lower []string
		for i, st := range states {
			next := end
			if i+1 < len(states) {
				next = states[i+1].at
			}
			base := int32(0)
			for _, n := range names[:k] {
				base += st.pods[n]
			}
			topv := base + st.pods[names[k]]
			upper = append(upper, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(st.at), y(float64(topv)), x(next), y(float64(topv))))
			lower = append([]string{fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(next), y(float64(base)), x(st.at), y(float64(base)))}, lower...)
		}
		if len(upper) == 0 {
			continue
		}
		fmt.Fprintf(b, `<polygon points="%s %s" fill="%s" fill-opacity="0.75" stroke="none"><title>%s</title></polygon>`+"\n",
			strings.Join(upper, " "), strings.Join(lower, " "), svgColors[k%len(svgColors)], html.EscapeString(names[k]))
	}
	// Available pods.
	var line []string
	for i, st := range states {
		next := end
		if i+1 < len(states) {
			next = states[i+1].at
		}
		line = append(line, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(st.at), y(float64(st.available)), x(next), y(float64(st.available))))
	}
	if len(line) > 0 {
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="black" stroke-width="2"/>`+"\n", strings.Join(line, " "))
	}
	// Bounds.
	bound := func(n int32, color, text string, below bool) {
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-dasharray="6 4"/>`+"\n", svgLeft, y(float64(n)), svgLeft+svgPlotWidth, y(float64(n)), color)
		// The label sits inside the plot, right-aligned just above its line (below it when the
		// other bound's label is there), with a white halo so that the areas under it do not
		// hide it.
		ty := y(float64(n)) - 3
		if below {
			ty = y(float64(n)) + 12
		}
		fmt.Fprintf(b, `<text x="%d" y="%.1f" fill="%s" text-anchor="end" font-size="11" stroke="white" stroke-width="3" paint-order="stroke">%s</text>`+"\n",
			svgLeft+svgPlotWidth-4, ty, color, html.EscapeString(text))
	}
	bound(plan.Header.MaxPods, "#dc2626", fmt.Sprintf("at most %d pods", plan.Header.MaxPods), false)
	// Two labels closer than a line would overlap: the lower bound's goes under its line.
	close := y(float64(plan.Header.MinAvailable))-y(float64(plan.Header.MaxPods)) < 14
	bound(plan.Header.MinAvailable, "#d97706", fmt.Sprintf("at least %d available", plan.Header.MinAvailable), close)
	if plan.Summary.DeadlineExceeded {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dc2626"/>`+"\n", x(plan.Summary.DeadlineAt), svgTop, x(plan.Summary.DeadlineAt), svgTop+svgPlotHeight)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#dc2626" text-anchor="end">progress deadline exceeded</text>`+"\n", x(plan.Summary.DeadlineAt)-4, svgTop+12)
	}
	// Legend.
	ly := svgTop + 4
	for k, n := range names {
		role := "old"
		if n == plan.TargetRevision {
			role = "new"
		}
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s" fill-opacity="0.75"/>`+"\n", svgLeft+svgPlotWidth+6, ly+k*18, svgColors[k%len(svgColors)])
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", svgLeft+svgPlotWidth+22, ly+k*18+10, html.EscapeString(shorten(n, 22)+" ("+role+")"))
	}
	ly += len(names) * 18
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-width="2"/>`+"\n", svgLeft+svgPlotWidth+6, ly+6, svgLeft+svgPlotWidth+18, ly+6)
	fmt.Fprintf(b, `<text x="%d" y="%d">available pods</text>`+"\n", svgLeft+svgPlotWidth+22, ly+10)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}

// ticks returns about five round tick values from 0 to max.
func ticks(maxv float64) []float64 {
	if maxv <= 0 {
		return []float64{0}
	}
	raw := maxv / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	step = max(step, 1)
	var out []float64
	for v := 0.0; v <= maxv+1e-9; v += step {
		out = append(out, v)
	}
	return out
}
