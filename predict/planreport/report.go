// Package planreport renders predictions (plans): text, a terminal chart, JSON and YAML (schema in
// docs/predict-output.md), and SVG or HTML timelines. It never decides anything: every number
// comes from the runner.Result.
package planreport

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/deployment"
	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/predict/runner"
)

// Formats are the -o values Write accepts.
var Formats = []string{"text", "json", "yaml", "svg", "html"}

// Write renders res in format. chart adds a terminal chart to the text format.
func Write(w io.Writer, format string, res *runner.Result, kubernetesVersion string, chart bool) error {
	switch format {
	case "", "text":
		return Text(w, res, chart)
	case "json":
		return JSON(w, res, kubernetesVersion)
	case "yaml":
		js, err := json.Marshal(toDoc(res, kubernetesVersion))
		if err != nil {
			return fmt.Errorf("encode plan: %w", err)
		}
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			return fmt.Errorf("encode plan as YAML: %w", err)
		}
		_, err = w.Write(y)
		return err
	case "svg":
		return SVG(w, res)
	case "html":
		return HTML(w, res, kubernetesVersion)
	}
	return fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// seconds renders a duration as the text format shows it: 0s, 12s, 1m30s.
// exactly prints a duration the user gave (a flag echoed as given: --run-for 1.6s is 1.6s)
// or one the plan computes below the second (a TTL deletion), to the millisecond.
func exactly(d time.Duration) string { return d.Round(time.Millisecond).String() }

func seconds(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	if d < time.Second && d > -time.Second {
		return d.Round(time.Millisecond).String()
	}
	// Whole seconds: simulated instants differ below the second (causal order), which the
	// rows' order shows; milliseconds would only break the columns.
	return d.Round(time.Second).String()
}

// Text writes each prediction: a header with the resolved arithmetic, the table of steps, and
// a summary.
func Text(w io.Writer, res *runner.Result, chart bool) error {
	b := &strings.Builder{}
	for i, p := range res.Predictions {
		if i > 0 {
			b.WriteString("\n")
		}
		writePrediction(b, p, chart)
	}
	writeSkipped(b, res.Skipped)
	for _, p := range res.Problems {
		fmt.Fprintf(b, "%s:%d:%d: error: %s\n", p.File, p.Pos.Line, p.Pos.Column, p.Message)
	}
	if len(res.Predictions) == 0 && len(res.Problems) == 0 {
		b.WriteString("nothing to predict: no workload predict models in the input\n")
	}
	// Names, files and messages come from the input: no control character
	// and no line starting with "::" reaches the terminal or a CI log.
	_, err := io.WriteString(w, safetext.Lines(b.String()))
	return err
}

// writeSkipped writes one line per reason objects were skipped: the object
// itself when it is the only one, else how many of each kind, from the
// first one's position (a Helm chart's ServiceAccounts, ConfigMaps and
// Services would otherwise each repeat the list of kinds predict models).
// -o json lists every object.
func writeSkipped(b *strings.Builder, skipped []runner.SkippedObject) {
	var reasons []string
	byReason := map[string][]runner.SkippedObject{}
	for _, s := range skipped {
		if _, ok := byReason[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], s)
	}
	for _, r := range reasons {
		group := byReason[r]
		first := group[0]
		if len(group) == 1 {
			fmt.Fprintf(b, "%s:%d:%d: %s: skipped: %s\n", first.File, first.Pos.Line, first.Pos.Column, first.Ref, r)
			continue
		}
		var kinds []string
		count := map[string]int{}
		for _, s := range group {
			kind, _, _ := strings.Cut(s.Ref, " ")
			if count[kind] == 0 {
				kinds = append(kinds, kind)
			}
			count[kind]++
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%d %s", count[k], k)
		}
		fmt.Fprintf(b, "%s:%d:%d: %d objects skipped (%s; -o json lists them): %s\n", first.File, first.Pos.Line, first.Pos.Column,
			len(group), strings.Join(parts, ", "), r)
	}
}

func location(p runner.Prediction) string {
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("  (%s:%d:%d)", p.File, p.Pos.Line, p.Pos.Column)
}

func writePrediction(b *strings.Builder, p runner.Prediction, chart bool) {
	fmt.Fprintf(b, "%s %s/%s%s\n", p.Kind, p.Namespace, p.Name, location(p))
	if len(p.Rejected) > 0 {
		b.WriteString("  rejected by the API server, so no rollout happens:\n")
		for _, r := range p.Rejected {
			fmt.Fprintf(b, "  %s:%d:%d: error: %s [%s]\n", p.File, r.Pos.Line, r.Pos.Column, r.Message, r.Rule)
		}
		return
	}
	switch {
	case p.Schedule != nil:
		writeSchedule(b, p)
		return
	case p.Job != nil:
		writeJob(b, p)
		return
	case p.ScaleDown != nil:
		writeScaleDown(b, p)
		return
	}
	plan := p.Plan
	h := plan.Header
	row := func(k, v string) { fmt.Fprintf(b, "  %-19s %s\n", k, v) }
	row("baseline", p.Baseline)
	row("strategy", fmt.Sprintf("%s, %d replicas", h.Strategy, h.Replicas))
	if a := p.Autoscaler; a != nil {
		row("autoscaler", a.Describe())
	}
	for _, s := range h.Settings {
		v := s.Arithmetic
		if s.Value != "" && s.Value != s.Arithmetic && !strings.HasPrefix(s.Arithmetic, s.Value+" ") {
			v = s.Value + ": " + s.Arithmetic
		}
		row(s.Name, v)
	}
	row("bounds", fmt.Sprintf("at most %d pods, at least %d available (terminating pods not counted)", h.MaxPods, h.MinAvailable))
	if h.OldRevision != h.NewRevision {
		row("revision", fmt.Sprintf("%s → %s", orNone(h.OldRevision), h.NewRevision))
	} else {
		row("revision", fmt.Sprintf("%s (unchanged)", orNone(h.NewRevision)))
	}
	if plan.TargetRevision != "" {
		if p.Kind == "Deployment" {
			row("new ReplicaSet", plan.TargetRevision)
		} else {
			row("new revision", plan.TargetRevision)
		}
		if h.NameNote != "" {
			row("", "("+h.NameNote+")")
		}
	}
	row("pods ready", fmt.Sprintf("%s after creation (%s)", seconds(p.Timing.ReadyAfter), p.Timing.ReadySource))
	if p.Timing.FailNew {
		row("", "--fail-new: the new ReplicaSet's pods never become Ready")
	}
	if r := p.Timing.Refused; r != nil {
		row("", fmt.Sprintf("namespace %s (enforce=%s) refuses every new pod: Pod Security (the summary gives the API server's reason)", r.Namespace, r.Level))
	}
	row("pods terminate", fmt.Sprintf("%s after deletion (%s)", seconds(p.Timing.TerminateAfter), p.Timing.TerminateSource))
	b.WriteString("\n")
	writeSteps(b, plan)
	if chart {
		b.WriteString("\n")
		writeChart(b, plan)
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	fmt.Fprintf(b, "  summary: %s\n", summaryText(plan))
	if d := p.Distribution; d != nil {
		writeDistribution(b, d, plan)
	}
}

// shownSequences bounds the step sequences the text report lists; -o json lists all.
const shownSequences = 8

// writeDistribution prints what --ready-spread D --runs N found: the completion times, the
// bounds reached, and the distinct step sequences with their counts, the most frequent first
// (at most shownSequences, then how many more), in the compact form of compactSequence.
func writeDistribution(b *strings.Builder, d *kernel.Distribution, plan *kernel.Plan) {
	fmt.Fprintf(b, "\n  %d runs with each pod's Ready time spread over %s (seeds %d to %d):\n", d.Runs, seconds(d.Spread), d.Seed, d.Seed+uint64(d.Runs)-1)
	row := func(k, v string) { fmt.Fprintf(b, "    %-16s %s\n", k, v) }
	if d.Completed > 0 {
		row("completes", fmt.Sprintf("p50 %s, p95 %s (%d of %d runs complete)", seconds(d.CompletionP50), seconds(d.CompletionP95), d.Completed, d.Runs))
	} else {
		row("completes", fmt.Sprintf("in none of %d runs", d.Runs))
	}
	row("peak pods", fmt.Sprintf("%d (terminating ones included)", d.PeakPods))
	row("min available", fmt.Sprintf("%d", d.MinAvailable))
	row("step sequences", fmt.Sprintf("%d distinct; the plan above in %d of %d runs", len(d.Sequences), d.DeterministicRuns, d.Runs))
	labels := map[string]string{}
	for i, n := range columns(plan) {
		labels[n] = label(i)
	}
	width := len(strconv.Itoa(d.Runs))
	for i, sc := range d.Sequences {
		if i == shownSequences {
			rest := 0
			for _, more := range d.Sequences[i:] {
				rest += more.Runs
			}
			fmt.Fprintf(b, "      and %d more %s (%d %s); -o json lists them all\n", len(d.Sequences)-i, plural(len(d.Sequences)-i, "sequence", "sequences"), rest, plural(rest, "run", "runs"))
			break
		}
		mark := ""
		if sc.Plan {
			mark = "  (the plan)"
		}
		fmt.Fprintf(b, "      %*d %s  %s%s\n", width, sc.Runs, plural(sc.Runs, "run ", "runs"), compactSequence(sc.Steps, labels), mark)
	}
}

// compactSequence writes a step sequence on one line: a ReplicaSet's scale event as its column
// label and sizes ("B 0→3"), a StatefulSet's pod creation or deletion as "+web-3" or "−web-3",
// a DaemonSet's wave as "+2" or "−1", any other step as its message. "(no step)" for none.
//
// Example: "Scaled up replica set web-5c5c9df78b from 0 to 3" with web-5c5c9df78b in column B
// is "B 0→3".
func compactSequence(steps []string, labels map[string]string) string {
	if len(steps) == 0 {
		return "(no step)"
	}
	out := make([]string, 0, len(steps))
	for _, m := range steps {
		out = append(out, compactStep(m, labels))
	}
	return strings.Join(out, ", ")
}

func compactStep(m string, labels map[string]string) string {
	f := strings.Fields(m)
	switch {
	case len(f) == 9 && f[0] == "Scaled" && f[2] == "replica" && f[3] == "set" && f[5] == "from" && f[7] == "to":
		name := f[4]
		if l, ok := labels[name]; ok {
			name = l
		}
		return fmt.Sprintf("%s %s→%s", name, f[6], f[8])
	case len(f) >= 3 && (f[0] == "Create" || f[0] == "Delete") && f[1] == "Pod":
		if f[0] == "Create" {
			return "+" + f[2]
		}
		return "−" + f[2]
	case len(f) >= 2 && (f[0] == "Created" || f[0] == "Deleted"):
		if _, err := strconv.Atoi(f[1]); err == nil {
			if f[0] == "Created" {
				return "+" + f[1]
			}
			return "−" + f[1]
		}
	}
	return m
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// columns are the ReplicaSets seen in a plan, in order of first appearance, with short labels.
func columns(plan *kernel.Plan) []string {
	var names []string
	seen := map[string]bool{}
	for _, s := range plan.Steps {
		for _, r := range s.Revisions {
			if !seen[r.Name] {
				seen[r.Name] = true
				names = append(names, r.Name)
			}
		}
	}
	return names
}

func label(i int) string { return string(rune('A' + i%26)) }

func writeSteps(b *strings.Builder, plan *kernel.Plan) {
	if len(plan.Steps) == 0 {
		b.WriteString("  no controller action: nothing changes\n")
		return
	}
	names := columns(plan)
	for i, n := range names {
		role := "old"
		if n == plan.TargetRevision {
			role = "new"
		}
		fmt.Fprintf(b, "  %s = %s (%s)\n", label(i), n, role)
	}
	b.WriteString("\n")
	eventWidth := len("EVENT")
	rows := withEnd(plan)
	for _, s := range rows {
		eventWidth = max(eventWidth, len(stepText(s)))
	}
	fmt.Fprintf(b, "  %8s  %-*s", "TIME", eventWidth, "EVENT")
	for i := range names {
		fmt.Fprintf(b, "  %5s", label(i))
	}
	fmt.Fprintf(b, "  %5s  %9s\n", "PODS", "AVAILABLE")
	for _, s := range rows {
		fmt.Fprintf(b, "  %8s  %-*s", seconds(s.At), eventWidth, stepText(s))
		for _, n := range names {
			cell := "-"
			for _, r := range s.Revisions {
				if r.Name == n {
					cell = fmt.Sprint(r.Replicas)
				}
			}
			fmt.Fprintf(b, "  %5s", cell)
		}
		fmt.Fprintf(b, "  %5d  %9d\n", s.Pods, s.Available)
	}
	b.WriteString("\n")
}

// stepText is a step's event text; steps that are not scale events name their reason.
func stepText(s kernel.Step) string {
	if s.Reason == deployment.ReasonScaling || s.Reason == "" || s.Message == "" {
		return s.Message
	}
	return s.Reason + ": " + s.Message
}

func summaryText(plan *kernel.Plan) string {
	s := plan.Summary
	var parts []string
	switch {
	case s.Completed:
		parts = append(parts, "completes in "+seconds(s.Duration))
	case s.WaitsForDeletion && len(plan.Steps) > 0:
		// OnDelete still scales (and recreates missing pods): that part completes.
		parts = append(parts, "scaling completes in "+seconds(s.Duration)+"; OnDelete: nothing else changes until pods are deleted")
	case s.WaitsForDeletion:
		parts = append(parts, "OnDelete: nothing changes until pods are deleted")
	default:
		parts = append(parts, fmt.Sprintf("stalls (%s) after %s", s.StallReason, seconds(s.Duration)))
	}
	parts = append(parts, fmt.Sprintf("peak %d pods (terminating ones included)", s.PeakPods), fmt.Sprintf("minimum %d available", s.MinAvailable))
	if s.DeadlineExceeded {
		parts = append(parts, fmt.Sprintf("progress deadline exceeded at %s (last progress at %s)", seconds(s.DeadlineAt), seconds(s.LastProgressAt)))
	}
	return strings.Join(parts, "; ")
}

// chartWidth is the widest bar of the terminal chart, in characters.
const chartWidth = 50

var chartRunes = []rune{'█', '▓', '▒', '░'}

// writeChart draws one bar per step: each ReplicaSet's pods in its own shade, scaled so the
// peak fits chartWidth, with the available count beside it.
// endMessage labels the row after the last step: the pods once the last transitions (pods
// turning Ready or Available, terminating pods going away) are done.
const endMessage = "(end: after the last pod transitions)"

// withEnd is the plan's steps and, when the pods change after the last one (the last pods
// become available, terminating ones go away), a row with the final state at the plan's
// end, so that the table and the chart end as the rollout does.
func withEnd(plan *kernel.Plan) []kernel.Step {
	rows := plan.Steps
	if len(plan.Final) == 0 || len(rows) == 0 {
		return rows
	}
	end := kernel.Step{At: plan.End, Message: endMessage, Revisions: plan.Final}
	for _, r := range plan.Final {
		end.Pods += r.Pods
		end.Available += r.Available
	}
	last := rows[len(rows)-1]
	if last.Pods == end.Pods && last.Available == end.Available && sameReplicas(last.Revisions, end.Revisions) {
		return rows
	}
	return append(append([]kernel.Step(nil), rows...), end)
}

func sameReplicas(a, b []kernel.RevisionSize) bool {
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

func writeChart(b *strings.Builder, plan *kernel.Plan) {
	names := columns(plan)
	peak := int32(1)
	rows := withEnd(plan)
	for _, s := range rows {
		peak = max(peak, s.Pods)
	}
	scale := 1.0
	if peak > chartWidth {
		scale = float64(chartWidth) / float64(peak)
	}
	b.WriteString("  pods per ReplicaSet at each step")
	for i := range names {
		fmt.Fprintf(b, "  %c %s", chartRunes[i%len(chartRunes)], label(i))
	}
	if scale != 1 {
		fmt.Fprintf(b, "  (1 character ≈ %.1f pods)", 1/scale)
	}
	b.WriteString("\n")
	for _, s := range rows {
		fmt.Fprintf(b, "  %8s  ", seconds(s.At))
		width := 0
		for i, n := range names {
			for _, r := range s.Revisions {
				if r.Name == n {
					k := int(float64(r.Pods)*scale + 0.5)
					b.WriteString(strings.Repeat(string(chartRunes[i%len(chartRunes)]), k))
					width += k
				}
			}
		}
		fmt.Fprintf(b, "%s  %d pods, %d available\n", strings.Repeat(" ", max(chartWidth-width, 0)), s.Pods, s.Available)
	}
	b.WriteString("\n")
}
