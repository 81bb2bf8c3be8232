package planreport

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

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

// SVG writes one timeline panel per predicted plan (see writePanel): each revision's pods
// stacked over time by state, the available pods as a line, the strategy's bounds as dashed
// lines on the quantity they bound, the controller's steps and the completion marked.
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
	for i, p := range panels {
		fmt.Fprintf(b, `<g transform="translate(0,%d)">`+"\n", offset)
		writePanel(b, p, i)
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
// each setting with its value (the replicas with the autoscaler that owns them), wrapped to
// the picture's width.
func subtitles(plan *kernel.Plan, a *runner.Autoscaler) []string {
	size := kindSize(plan)
	if a != nil {
		size += " (" + a.Short() + ")"
	}
	settings := []string{fmt.Sprintf("%s, %s", plan.Header.Strategy, size)}
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
	return svgTop + (len(subtitles(p.Plan, p.Autoscaler))-2)*svgLineHeight
}

// panelHeight is a panel's height: the plot's, its header's and its legend's.
func panelHeight(p runner.Prediction) int {
	return svgPanel + (len(subtitles(p.Plan, p.Autoscaler))-2)*svgLineHeight + svgLegendHeight
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
