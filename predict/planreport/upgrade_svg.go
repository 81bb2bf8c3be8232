package planreport

import (
	"fmt"
	"html"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/kubectl/drain"
	"github.com/kubectl-workload/kubectl-workload/internal/upgrade"
)

// The upgrade picture's geometry, in pixels.
const (
	upWidth    = 980
	upLabel    = 10  // the node names' left edge
	upPlotX    = 220 // the time axis' left edge
	upPlotW    = upWidth - upPlotX - 30
	upTop      = 64 // the first row, below the title and the result
	upGapWidth = 36 // a long quiet span, drawn at this width with a break
	upLine     = 16
	upChars    = (upWidth - 2*upLabel) * 10 / 66 // characters of a caption line at font-size 12
)

// Its colours: running, draining, failed, new, pending; marks for evictions, refusals and
// forced deletions.
const (
	upColRunning  = "#9ca3af"
	upColDrainBg  = "#fef3c7"
	upColDraining = "#f59e0b"
	upColFailBg   = "#fee2e2"
	upColFailed   = "#dc2626"
	upColFailPods = "#fca5a5"
	upColNewBg    = "#dbeafe"
	upColNew      = "#2563eb"
	upColEvict    = "#047857"
	upColRefused  = "#dc2626"
	upColForced   = "#7c3aed"
	upColPending  = "#b91c1c"
)

// upRow is one row of the picture: an old node, a new node or the Pending pods.
type upRow struct {
	label, note string
	// from and to are when the node exists in the pool; bands are its coloured spans.
	from, to time.Duration
	bands    []upBand
	// counts are its pods over time, each held until the next.
	counts []upCount
	marks  []upMark
	// repeats are the spans where the last refusals repeat every 5s.
	repeats []span
	// ends: the row ends with a deletion mark; empty: when the node was empty.
	ends           bool
	empty          time.Duration
	fill, blocker  bool
	forever        bool
	countsFillCol  string
	countsFillFrom time.Duration
}

type upBand struct {
	from, to time.Duration
	color    string
}

type upCount struct {
	at time.Duration
	n  int
}

type upMark struct {
	at    time.Duration
	color string
	title string
}

// UpgradeSVG draws an upgrade plan as nodes over time (docs/predict.md): one row per old
// node, then one per new node, time across. An old node's row is grey while it runs, amber
// from its cordon while it drains (red when its drain fails or never ends), and ends with a
// cross where it is deleted, a circle where it was empty; a new node's row is blue from when
// it joins. The shaded height in a row is the node's pods over time (the number at its
// start and end); ticks above it are evictions (green), refusals (red, with the budget in
// the tooltip) and deletions without the Eviction API (violet). A last row counts the pods
// no node could take. Long quiet spans (refusals repeating until a timeout) are drawn
// short, with a break in the axis. The caption gives the result, the first blocker and its
// fix.
func UpgradeSVG(w io.Writer, p *upgrade.Plan) error {
	rows := upgradeRows(p)
	end := p.Duration
	for _, r := range rows {
		end = max(end, r.to)
	}
	scale := newTimeScale(upgradeTimes(p, rows), max(end, time.Second))
	rowH := 22
	if n := len(rows); n > 16 {
		rowH = max(4, min(22, 640/n))
	}
	peak := 1
	for _, r := range rows {
		for _, c := range r.counts {
			peak = max(peak, c.n)
		}
	}
	caption := upgradeCaption(p)
	plotBottom := upTop + len(rows)*rowH
	height := plotBottom + 44 + 2*upLine + len(caption)*upLine + 12
	b := &strings.Builder{}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", upWidth, height, upWidth, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	a := p.Algorithm
	timeout := "no drain timeout"
	if a.DrainTimeout > 0 {
		timeout = fmt.Sprintf("drain timeout %s, then %s", fmtDur(a.DrainTimeout), a.OnTimeout)
	}
	fmt.Fprintf(b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", upLabel, esc(fmt.Sprintf(
		"Upgrade of %d node(s): max surge %s (%d), max unavailable %s (%d), %d at a time, %s", len(p.Pool), a.MaxSurge.String(), p.Surge, a.MaxUnavailable.String(), p.Unavailable, p.BatchSize, timeout)))
	result := fmt.Sprintf("Completes in %s: %d node(s) replaced.", fmtDur(p.Duration), len(p.Pool))
	resultColor := "#065f46"
	if !p.Completed {
		result, resultColor = fmt.Sprintf("Fails after %s.", fmtDur(p.Duration)), upColFailed
		if bl := p.Blocker; bl != nil && strings.HasPrefix(bl.Reason, "the drain never ends") {
			result = fmt.Sprintf("Never completes: the drain of %s is refused forever (from %s).", bl.Node, fmtDur(bl.At))
		}
	}
	fmt.Fprintf(b, `<text x="%d" y="44" font-size="13" font-weight="bold" fill="%s">%s</text>`+"\n", upLabel, resultColor, esc(result))
	// Batch separators and row backgrounds.
	for i, r := range rows {
		y := upTop + i*rowH
		if i%2 == 1 {
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#f9fafb"/>`+"\n", upLabel, y, upWidth-2*upLabel, rowH)
		}
		writeUpRow(b, r, y, rowH, peak, scale)
		if r.blocker {
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s" stroke-width="2"/>`+"\n", upLabel-4, y, upWidth-2*upLabel+8, rowH, upColFailed)
		}
	}
	// The time axis.
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#374151"/>`+"\n", upPlotX, plotBottom, upPlotX+upPlotW, plotBottom)
	for _, t := range scale.ticks() {
		x := scale.x(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#374151"/>`+"\n", x, plotBottom, x, plotBottom+4)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="11">%s</text>`+"\n", x, plotBottom+16, esc(fmtDur(t)))
	}
	for _, g := range scale.gaps {
		x0, x1 := scale.x(g.from), scale.x(g.to)
		mid := (x0 + x1) / 2
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="white" fill-opacity="0.6"/>`+"\n", x0+4, upTop, x1-x0-8, plotBottom-upTop)
		fmt.Fprintf(b, `<path d="M%.1f %d l4 -6 l4 12 l4 -6" fill="none" stroke="#374151"/>`+"\n", mid-6, plotBottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="10" fill="#6b7280">+%s</text>`+"\n", mid, plotBottom+28, esc(fmtDur(g.to-g.from)))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" fill="#6b7280">time since the upgrade starts</text>`+"\n", upPlotX, plotBottom+40)
	// The legend.
	ly := plotBottom + 44 + upLine
	lx := upLabel
	for _, it := range []struct{ kind, color, text string }{
		{"box", upColRunning, "running (shaded height: its pods)"}, {"box", upColDraining, "cordoned, draining"},
		{"box", upColFailPods, "drain failed or never ends"}, {"box", upColNew, "new node"}, {"box", upColPending, "pods no node fits"},
	} {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, ly-9, it.color, lx+16, ly, esc(it.text))
		lx += 30 + len(it.text)*7
	}
	ly += upLine
	lx = upLabel
	for _, it := range []struct{ color, text string }{
		{upColEvict, "eviction"}, {upColRefused, "refused by a budget (429)"}, {upColForced, "deleted without the Eviction API"},
	} {
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s</text>`+"\n", lx+5, ly-10, lx+5, ly, it.color, lx+14, ly, esc(it.text))
		lx += 28 + len(it.text)*7
	}
	fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="4" fill="white" stroke="#111827"/><text x="%d" y="%d">empty</text>`+"\n", lx+5, ly-4, lx+14, ly)
	lx += 60
	fmt.Fprintf(b, `<path d="M%d %d l8 8 M%d %d l-8 8" stroke="#111827" stroke-width="2"/><text x="%d" y="%d">deleted</text>`+"\n", lx+1, ly-9, lx+9, ly-9, lx+14, ly)
	for i, line := range caption {
		weight := ""
		if i == 0 && p.Blocker != nil {
			weight = ` font-weight="bold" fill="` + upColFailed + `"`
		}
		fmt.Fprintf(b, `<text x="%d" y="%d"%s>%s</text>`+"\n", upLabel, ly+(i+1)*upLine+4, weight, esc(line))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func esc(s string) string { return html.EscapeString(s) }

// writeUpRow draws one row at y.
func writeUpRow(b *strings.Builder, r upRow, y, rowH, peak int, sc *timeScale) {
	if rowH >= 9 {
		size := min(12, rowH-3)
		label := r.label
		if r.note != "" && rowH >= 14 {
			label += " " + r.note
		}
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="%d">%s</text>`+"\n", upLabel, y+rowH/2+size/2-1, size, esc(shorten(label, 32)))
	}
	top := float64(y) + 2
	h := float64(rowH) - 3
	for _, bd := range r.bands {
		if bd.to > bd.from {
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", sc.x(bd.from), top, sc.x(bd.to)-sc.x(bd.from), h, bd.color)
		}
	}
	// The pods: a step area whose height is the count.
	for i, c := range r.counts {
		next := r.to
		if i+1 < len(r.counts) {
			next = r.counts[i+1].at
		}
		if c.n == 0 || next <= c.at {
			continue
		}
		col := upColRunning
		switch {
		case r.countsFillCol != "" && c.at >= r.countsFillFrom:
			col = r.countsFillCol
		case r.fill:
			col = upColNew
		}
		bh := h * 0.7 * float64(c.n) / float64(peak)
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%d pod(s) from %s</title></rect>`+"\n",
			sc.x(c.at), top+h-bh, sc.x(next)-sc.x(c.at), bh, col, c.n, esc(fmtDur(c.at)))
	}
	if rowH >= 12 && len(r.counts) > 0 {
		first, last := r.counts[0], r.counts[len(r.counts)-1]
		if first.n > 0 && !r.fill {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="10" text-anchor="end" fill="#374151">%d</text>`+"\n", sc.x(r.from)-2, y+rowH/2+4, first.n)
		}
		if r.fill && last.n > 0 {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="10" fill="#374151">%d</text>`+"\n", sc.x(r.to)+3, y+rowH/2+4, last.n)
		}
	}
	for _, m := range r.marks {
		x := sc.x(m.at)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"><title>%s</title></line>`+"\n", x, top-1, x, top+h+1, m.color, esc(m.title))
	}
	for _, sp := range r.repeats {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="2 3"><title>the refusals repeat every 5s</title></line>`+"\n", sc.x(sp.from), top+1, sc.x(sp.to), top+1, upColRefused)
	}
	if r.forever {
		x := sc.x(r.to)
		fmt.Fprintf(b, `<path d="M%.1f %.1f l8 %.1f l-8 %.1f" fill="%s"/>`+"\n", x, top, h/2, h/2, upColFailed)
	}
	if r.empty >= 0 && rowH >= 8 {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="white" stroke="#111827"><title>empty at %s</title></circle>`+"\n", sc.x(r.empty), top+h/2, min(4, h/3), esc(fmtDur(r.empty)))
	}
	if r.ends {
		x := sc.x(r.to)
		d := min(4, h/2)
		fmt.Fprintf(b, `<path d="M%.1f %.1f l%.1f %.1f M%.1f %.1f l%.1f %.1f" stroke="#111827" stroke-width="2"><title>deleted at %s</title></path>`+"\n",
			x-d, top+h/2-d, 2*d, 2*d, x+d, top+h/2-d, -2*d, 2*d, esc(fmtDur(r.to)))
	}
}

// upgradeRows are the picture's rows: the old nodes in the pool's order, the new nodes as
// they join, then the pods no node could take.
func upgradeRows(p *upgrade.Plan) []upRow {
	// Arrivals on each node: replacements created or scheduled there, wherever the event is.
	arrivals := map[string][]time.Duration{}
	var all [][]drain.Event
	for _, st := range p.Nodes {
		all = append(all, st.Drain.Events, st.Forced, st.Deleted)
	}
	for _, n := range p.NewNodes {
		all = append(all, n.Events)
	}
	for _, evs := range all {
		for _, e := range evs {
			if (e.Kind == drain.EventCreated || e.Kind == drain.EventScheduled) && e.Node != "" {
				arrivals[e.Node] = append(arrivals[e.Node], e.At)
			}
		}
	}
	var rows, newRows []upRow
	for _, st := range p.Nodes {
		r := upRow{label: st.Node, from: 0, to: p.Duration, empty: st.EmptyAt}
		if st.DeletedAt >= 0 {
			r.to, r.ends = st.DeletedAt, true
		}
		r.note = fmt.Sprintf("(batch %d)", st.Batch)
		var departures []time.Duration
		moved := map[string]bool{}
		for _, e := range st.Drain.Events {
			switch e.Kind {
			case drain.EventEvict:
				moved[e.Pod] = true
				r.marks = append(r.marks, upMark{e.At, upColEvict, fmt.Sprintf("%s: evict %s", fmtDur(e.At), e.Pod)})
			case drain.EventEvicted:
				if e.Node == st.Node {
					departures = append(departures, e.At)
				}
			case drain.EventRepeats:
				r.repeats = append(r.repeats, span{e.At, max(st.Drain.End, e.At)})
			case drain.EventRefused, drain.EventFailed:
				moved[e.Pod] = true
				r.marks = append(r.marks, upMark{e.At, upColRefused, fmt.Sprintf("%s: %s refused %d by budget %s", fmtDur(e.At), e.Pod, e.Code, e.Budget)})
			}
		}
		for _, e := range st.Forced {
			if e.Kind == drain.EventDelete && e.Node == st.Node {
				moved[e.Pod] = true
				departures = append(departures, st.EmptyAt)
				r.marks = append(r.marks, upMark{e.At, upColForced, fmt.Sprintf("%s: deleted %s without the Eviction API", fmtDur(e.At), e.Pod)})
			}
		}
		for _, k := range st.Drain.Left {
			moved[k] = true
		}
		r.counts = podCounts(len(moved), arrivals[st.Node], departures, r.to)
		if st.CordonedAt > 0 { // the colour changes at the cordon
			r.counts = splitCounts(r.counts, st.CordonedAt)
		}
		switch st.Outcome {
		case upgrade.NotReached:
			r.note = fmt.Sprintf("(batch %d, not reached)", st.Batch)
		case upgrade.Failed, upgrade.Blocked:
			end := max(st.Drain.End, p.Duration)
			r.bands = append(r.bands, upBand{st.CordonedAt, end, upColFailBg})
			r.countsFillCol, r.countsFillFrom = upColFailPods, st.CordonedAt
			r.forever = st.Outcome == upgrade.Blocked
			r.blocker = p.Blocker != nil && p.Blocker.Node == st.Node
			r.note = fmt.Sprintf("(batch %d, %s)", st.Batch, st.Outcome)
		default:
			r.bands = append(r.bands, upBand{st.CordonedAt, r.to, upColDrainBg})
			r.countsFillCol, r.countsFillFrom = upColDraining, st.CordonedAt
		}
		rows = append(rows, r)
	}
	for _, n := range p.NewNodes {
		kind := "(replacement)"
		if n.Surge {
			kind = "(surge)"
		}
		r := upRow{label: n.Name, note: kind, from: n.AddedAt, to: p.Duration, empty: -1, fill: true,
			bands: []upBand{{n.AddedAt, p.Duration, upColNewBg}}}
		r.counts = podCounts(0, arrivals[n.Name], nil, r.to)
		if len(r.counts) == 0 || r.counts[0].at > n.AddedAt {
			r.counts = append([]upCount{{n.AddedAt, 0}}, r.counts...)
		}
		newRows = append(newRows, r)
	}
	rows = append(groupRows(rows, "old nodes"), groupRows(newRows, "new nodes")...)
	if len(p.Unplaced) > 0 {
		var since, placed []time.Duration
		for _, u := range p.Unplaced {
			since = append(since, u.Since)
			if u.Node != "" {
				placed = append(placed, u.At)
			}
		}
		r := upRow{label: fmt.Sprintf("%d pod(s) Pending", len(p.Unplaced)), note: "(no node fits)", to: p.Duration, empty: -1,
			countsFillCol: upColPending}
		r.counts = podCounts(0, since, placed, r.to)
		rows = append(rows, r)
	}
	return rows
}

// upMaxRows is how many rows of old nodes, and of new nodes, the picture draws: a larger
// pool is drawn as groups of consecutive nodes, each group's pods added up.
const upMaxRows = 30

// groupRows merges consecutive rows into at most upMaxRows groups.
func groupRows(rows []upRow, what string) []upRow {
	if len(rows) <= upMaxRows {
		return rows
	}
	size := (len(rows) + upMaxRows - 1) / upMaxRows
	var out []upRow
	for i := 0; i < len(rows); i += size {
		g := rows[i:min(i+size, len(rows))]
		m := upRow{label: fmt.Sprintf("%s … %s", g[0].label, g[len(g)-1].label), note: fmt.Sprintf("(%d %s)", len(g), what),
			from: g[0].from, to: g[0].to, empty: -1, ends: true, fill: g[0].fill, countsFillCol: g[0].countsFillCol, countsFillFrom: g[0].countsFillFrom}
		for _, r := range g {
			m.from, m.to = min(m.from, r.from), max(m.to, r.to)
			m.bands = append(m.bands, r.bands...)
			m.marks = append(m.marks, r.marks...)
			m.repeats = append(m.repeats, r.repeats...)
			m.ends = m.ends && r.ends
			m.blocker, m.forever = m.blocker || r.blocker, m.forever || r.forever
			if r.countsFillCol != "" {
				m.countsFillFrom = min(m.countsFillFrom, r.countsFillFrom)
			}
			m.counts = addCounts(m.counts, r.counts)
		}
		out = append(out, m)
	}
	return out
}

// addCounts is the sum of two pod counts over time.
func addCounts(a, b []upCount) []upCount {
	at := func(cs []upCount, t time.Duration) int {
		n := 0
		for _, c := range cs {
			if c.at > t {
				break
			}
			n = c.n
		}
		return n
	}
	var times []time.Duration
	for _, c := range a {
		times = append(times, c.at)
	}
	for _, c := range b {
		times = append(times, c.at)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	out := make([]upCount, 0, len(times))
	for _, t := range times {
		out = append(out, upCount{t, at(a, t) + at(b, t)})
	}
	return out
}

// splitCounts has counts change (to the same number) at t too.
func splitCounts(counts []upCount, t time.Duration) []upCount {
	i := sort.Search(len(counts), func(i int) bool { return counts[i].at >= t })
	if i < len(counts) && counts[i].at == t || i == 0 {
		return counts
	}
	return slices.Insert(counts, i, upCount{t, counts[i-1].n})
}

// podCounts is a node's pods over time until end: base pods at the start (those that leave
// it, less those that arrived), one more at each arrival, one fewer at each departure.
func podCounts(leave int, arrive, depart []time.Duration, end time.Duration) []upCount {
	type change struct {
		at time.Duration
		d  int
	}
	var ch []change
	for _, t := range arrive {
		ch = append(ch, change{t, 1})
	}
	for _, t := range depart {
		ch = append(ch, change{t, -1})
	}
	sort.SliceStable(ch, func(i, j int) bool { return ch[i].at < ch[j].at })
	n := max(0, leave-len(arrive))
	out := []upCount{{0, n}}
	for _, c := range ch {
		if c.at > end {
			break
		}
		n = max(0, n+c.d)
		if out[len(out)-1].at == c.at {
			out[len(out)-1].n = n
		} else {
			out = append(out, upCount{c.at, n})
		}
	}
	return out
}

// upgradeTimes are the times something happens in the plan: where the axis must not be
// shortened.
func upgradeTimes(p *upgrade.Plan, rows []upRow) []time.Duration {
	ts := []time.Duration{0, p.Duration}
	for _, r := range rows {
		ts = append(ts, r.from, r.to)
		for _, c := range r.counts {
			ts = append(ts, c.at)
		}
		for _, m := range r.marks {
			ts = append(ts, m.at)
		}
		for _, bd := range r.bands {
			ts = append(ts, bd.from, bd.to)
		}
		if r.empty >= 0 {
			ts = append(ts, r.empty)
		}
	}
	return ts
}

// upgradeCaption is the result's detail under the picture: the first blocker, its budgets,
// the pods it left and its first fix; the pods no node took; the batch note.
func upgradeCaption(p *upgrade.Plan) []string {
	var lines []string
	if bl := p.Blocker; bl != nil {
		text := fmt.Sprintf("First blocker: node %s at %s", bl.Node, fmtDur(bl.At))
		if len(bl.Budgets) > 0 {
			text += ", blocked by budget " + strings.Join(bl.Budgets, ", ")
		}
		if len(bl.Pods) > 0 {
			text += fmt.Sprintf(" (%d pod(s) left: %s)", len(bl.Pods), strings.Join(bl.Pods, ", "))
		}
		lines = append(lines, wrap(text+".", upChars)...)
		if len(bl.Fixes) > 0 {
			lines = append(lines, wrap("Fix: "+bl.Fixes[0], upChars)...)
		}
	}
	never := 0
	for _, u := range p.Unplaced {
		if u.Node == "" {
			never++
		}
	}
	if len(p.Unplaced) > 0 {
		text := fmt.Sprintf("Capacity: %d pod(s) waited for a node", len(p.Unplaced))
		if never > 0 {
			text += fmt.Sprintf("; %d never found one: add capacity to the pool (or surge), or lower the pods' requests", never)
		}
		lines = append(lines, wrap(text+".", upChars)...)
	}
	return lines
}

// timeScale maps times to x across the plot, linear but for long quiet spans (nothing
// happens but refusals repeating until a timeout), each drawn upGapWidth wide.
type timeScale struct {
	end  time.Duration
	gaps []span
	// perPx is the time a pixel stands for outside the gaps.
	perPx float64
}

type span struct{ from, to time.Duration }

// newTimeScale shortens the longest spans between consecutive times when they dwarf the
// rest: a 30-minute timeout after 10 seconds of evictions leaves the 10 seconds readable.
func newTimeScale(times []time.Duration, end time.Duration) *timeScale {
	ts := append([]time.Duration{}, times...)
	ts = append(ts, 0, end)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	var spans []span
	for i := 1; i < len(ts); i++ {
		if ts[i] > ts[i-1] && ts[i] <= end {
			spans = append(spans, span{ts[i-1], ts[i]})
		}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].to-spans[i].from > spans[j].to-spans[j].from })
	sc := &timeScale{end: end}
	// The k longest spans are shortened when the k-th is at least a minute and more than
	// twice all the time outside them; the most such spans, up to 6.
	linear, k, left := end, 0, end
	for i := 0; i < min(6, len(spans)); i++ {
		d := spans[i].to - spans[i].from
		left -= d
		if d >= time.Minute && left > 0 && d > 2*left {
			k, linear = i+1, left
		}
	}
	sc.gaps = append(sc.gaps, spans[:k]...)
	sort.Slice(sc.gaps, func(i, j int) bool { return sc.gaps[i].from < sc.gaps[j].from })
	width := float64(upPlotW - len(sc.gaps)*upGapWidth)
	sc.perPx = float64(max(linear, time.Millisecond)) / width
	return sc
}

// x is where t is drawn.
func (sc *timeScale) x(t time.Duration) float64 {
	x := float64(upPlotX)
	prev := time.Duration(0)
	for _, g := range sc.gaps {
		if t <= g.from {
			break
		}
		x += float64(g.from-prev) / sc.perPx
		if t < g.to {
			return x + float64(t-g.from)/float64(g.to-g.from)*upGapWidth
		}
		x += upGapWidth
		prev = g.to
	}
	return x + float64(t-prev)/sc.perPx
}

// ticks are round times along the linear parts, about every 90 pixels, and each gap's end.
func (sc *timeScale) ticks() []time.Duration {
	step := roundStep(time.Duration(sc.perPx * 90))
	var out []time.Duration
	prev := time.Duration(0)
	segs := append(append([]span{}, sc.gaps...), span{sc.end, sc.end})
	for _, g := range segs {
		for t := (prev + step - 1) / step * step; t <= g.from; t += step {
			if len(out) == 0 || sc.x(t)-sc.x(out[len(out)-1]) >= 70 {
				out = append(out, t)
			}
		}
		if g.to > g.from {
			// A gap's end is labelled, in place of a round tick too close before it.
			if len(out) > 0 && sc.x(g.to)-sc.x(out[len(out)-1]) < 70 {
				out = out[:len(out)-1]
			}
			out = append(out, g.to)
		}
		prev = g.to
	}
	return out
}

// roundStep is the round duration at or above d: 1, 2, 5, 10, 15, 30 of a unit.
func roundStep(d time.Duration) time.Duration {
	for _, s := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour} {
		if s >= d {
			return s
		}
	}
	return 12 * time.Hour
}

// UpgradeHTML writes a self-contained page: the upgrade's picture, then its text report.
func UpgradeHTML(w io.Writer, p *upgrade.Plan) error {
	svg, text := &strings.Builder{}, &strings.Builder{}
	if err := UpgradeSVG(svg, p); err != nil {
		return err
	}
	if err := UpgradeText(text, p); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>kubectl workload predict upgrade</title>
<style>body{font-family:sans-serif;margin:2em} pre{background:#f6f8fa;padding:1em;overflow-x:auto}</style>
</head>
<body>
<h1>Node-pool upgrade prediction</h1>
%s
<pre>%s</pre>
</body>
</html>
`, svg.String(), esc(text.String()))
	return err
}
