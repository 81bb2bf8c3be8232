package lint

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-workload/kubectl-workload/manifest"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// Memory. A run keeps, for each object, only what the second pass needs:
// its findings so far, its inventory summary (JSON bytes), the trimmed input
// of the cross-resource rules (rules.Input.Cross: the few fields they read,
// as JSON) and the positions of its fields two levels deep, where
// cross-resource findings point; the last two only for a kind some
// cross-resource rule reports on (not a ConfigMap or a CronJob). Each is
// kept in few allocations, most without pointers: what a collection marks
// grows with the objects kept, and a large run collects often. The parsed document (the YAML node tree,
// the JSON, the defaulted object) is dropped as soon as the first pass is
// done with it, so the memory a run holds grows with what cross-resource
// rules need, not with the YAML.

// shallowIndex is the positions of an object's fields two levels deep,
// sorted by path. A run keeps one per object, so it is two allocations
// the collector need not scan (the paths, each ended by a newline, and
// their positions), not a string per field.
type shallowIndex struct {
	start manifest.Pos
	paths string
	pos   []manifest.Pos
}

// newShallowIndex indexes the given paths, sorted, of those position finds
// exactly.
func newShallowIndex(start manifest.Pos, paths []string, position func(string) (manifest.Pos, bool)) shallowIndex {
	idx := shallowIndex{start: start, pos: make([]manifest.Pos, 0, len(paths))}
	var b strings.Builder
	n := 0
	for _, p := range paths {
		n += len(p) + 1
	}
	b.Grow(n)
	for _, p := range paths {
		if pos, exact := position(p); exact {
			b.WriteString(p)
			b.WriteByte('\n')
			idx.pos = append(idx.pos, pos)
		}
	}
	idx.paths = b.String()
	return idx
}

// lookup returns the position of path, or of its nearest ancestor in the
// index, or the object's start.
func (s *shallowIndex) lookup(path string) manifest.Pos {
	for path != "" {
		if pos, ok := s.exact(path); ok {
			return pos
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return s.start
}

// exact returns the position of path if it is in the index. The index is a
// few dozen paths at most, read only when a cross-resource rule reports.
func (s *shallowIndex) exact(path string) (manifest.Pos, bool) {
	rest := s.paths
	for i := 0; rest != ""; i++ {
		line, after, _ := strings.Cut(rest, "\n")
		if line == path {
			return s.pos[i], true
		}
		rest = after
	}
	return manifest.Pos{}, false
}

// localRules is the per-object half of the Rego tier, prepared once per run
// on first use: a run without objects prepares nothing.
type localRules struct {
	once sync.Once
	run  *rules.Run
	err  error
}

func (lr *localRules) get(ctx context.Context, e *rules.Engine) (*rules.Run, error) {
	lr.once.Do(func() { lr.run, lr.err = e.PrepareLocal(ctx) })
	return lr.run, lr.err
}

// firstPass finishes an object checked by checkObject: it runs the
// per-object Rego rules and user policies, reads its ignore annotations,
// summarizes it for the inventory and keeps what the cross-resource rules
// need. The parsed object is dropped.
func (l *Linter) firstPass(ctx context.Context, c *checked, local *localRules, opts Options, known func() map[string]bool) {
	c.summary = rules.Summarize(c.input)
	in, err := rules.NewInput(c.input)
	if err == nil {
		var run *rules.Run
		if run, err = local.get(ctx, l.rules); err == nil {
			var found []rules.Finding
			// A policy the sandbox stopped is an error; the other
			// rules' findings on the object still count.
			found, err = run.EvalInput(ctx, in)
			c.addRuleFindings(found)
		}
	}
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("%s: document %d: %s: %w", c.file, c.document, c.ref, err))
	}
	l.readGovernance(c, opts, known)
	if in != nil && !in.Rejected() && l.rules.ReportsAcross(in.Cross().Kind()) {
		c.cross = in.Cross()
		c.shallow = newShallowIndex(c.obj.Start, in.ShallowPaths(), c.obj.Position)
	}
	c.obj = nil
	c.input = rules.Object{Namespace: c.input.Namespace, Rejected: c.input.Rejected}
}

// addRuleFindings adds the Rego tier's findings, placed at their fields.
func (c *checked) addRuleFindings(found []rules.Finding) {
	for _, f := range found {
		sev, err := ParseSeverity(f.Severity)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("rule %s: %w", f.RuleID, err))
			return
		}
		c.findings = append(c.findings, c.at(f.RuleID, sev, f.Path, f.Message))
	}
}

// secondPass runs the cross-resource rules on every object, against the
// inventory of the whole run (and the baseline's context objects).
func (l *Linter) secondPass(ctx context.Context, all []*checked, extra []rules.Object, timings *Timings) error {
	if len(all) == 0 || !l.rules.HasCrossResource() {
		return nil
	}
	start := time.Now()
	sums := make([]rules.Summary, 0, len(all)+len(extra))
	for _, c := range all {
		sums = append(sums, c.summary)
		c.summary = rules.Summary{}
	}
	for _, o := range extra {
		sums = append(sums, rules.Summarize(o))
	}
	run, err := l.rules.PrepareCross(ctx, rules.NewInventoryOf(sums))
	if err != nil {
		return err
	}
	timings.Inventory = time.Since(start)
	start = time.Now()
	defer func() { timings.Rules = time.Since(start) }()
	if stopped := parallel(ctx, len(all), func(i int) {
		c := all[i]
		if c.cross == nil {
			return
		}
		found, err := run.EvalCross(ctx, c.cross)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("%s: document %d: %s: %w", c.file, c.document, c.ref, err))
		}
		c.addRuleFindings(found)
		c.cross = nil
	}); stopped >= 0 {
		return fmt.Errorf("rules stopped: %w", ctx.Err())
	}
	return nil
}

// joinErrs joins the objects' errors, in input order.
func joinErrs(all []*checked) error {
	var errs []error
	for _, c := range all {
		errs = append(errs, c.errs...)
	}
	return errors.Join(errs...)
}
