package lint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/lint/userpolicy"
	"github.com/kubectl-workload/kubectl-workload/rules"
)

// Memory. A run keeps, for each object, only what the second pass needs:
// its findings so far, its inventory entry (rules.Entry, packed: the typed
// objects without their pod specs as protobuf bytes in the run's slab,
// rules.NewPackedEntry) and the positions of its fields two levels deep,
// where cross-resource findings point; the last only for a kind some
// cross-resource rule reports on (not a ConfigMap or a CronJob). The
// positions are pieces of a per-run slab (package slab): what a collection
// marks grows with the number of objects kept, and a large run collects
// often. The parsed document (the
// YAML node tree, the JSON, the defaulted object) is dropped as soon as the
// first pass is done with it, and the second pass holds the inventory of a
// batch of namespaces at a time (secondPass), so the memory a run holds
// grows with what cross-resource rules need, not with the YAML.

// shallowIndex is the positions of an object's fields two levels deep.
// A run keeps one per object, so it is a piece of the run's slab, not a
// string per field: each field's line and column (4 bytes each, little
// endian), then its path, then a newline.
type shallowIndex struct {
	start  manifest.Pos
	fields []byte
}

// newShallowIndex indexes obj's fields where cross-resource findings point
// (shallowFields).
func newShallowIndex(obj *manifest.Object, keep *rules.Keep) shallowIndex {
	buf := shallowBuf.Get().(*shallowScratch)
	buf.fields = shallowFields(obj, buf.fields)
	var idx shallowIndex
	idx, buf.index = indexFields(obj.Start, buf.fields, keep, buf.index)
	clear(buf.fields)
	buf.fields = buf.fields[:0]
	shallowBuf.Put(buf)
	return idx
}

// indexFields indexes fields, sorted by path, in s, encoding them in b
// first (b is returned for reuse).
func indexFields(start manifest.Pos, fields []shallowField, keep *rules.Keep, b []byte) (s shallowIndex, _ []byte) {
	b = b[:0]
	for _, f := range fields {
		b = binary.LittleEndian.AppendUint32(b, uint32(f.pos.Line))
		b = binary.LittleEndian.AppendUint32(b, uint32(f.pos.Column))
		b = append(b, f.path...)
		b = append(b, '\n')
	}
	return shallowIndex{start: start, fields: keep.Copy(b)}, b
}

// shallowScratch is newShallowIndex's reused room.
type shallowScratch struct {
	fields []shallowField
	index  []byte
}

var shallowBuf = sync.Pool{New: func() any { return new(shallowScratch) }}

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
	rest := s.fields
	for len(rest) > 8 {
		line, col := binary.LittleEndian.Uint32(rest), binary.LittleEndian.Uint32(rest[4:])
		p, after, _ := bytes.Cut(rest[8:], []byte{'\n'})
		if string(p) == path {
			return manifest.Pos{Line: int(line), Column: int(col)}, true
		}
		rest = after
	}
	return manifest.Pos{}, false
}

// localRules is the per-object half of a run's rules: the built-in rules
// and the user policies, whose queries are prepared once per run on first
// use (a run without objects prepares nothing).
type localRules struct {
	// goRules are the run's built-in rules.
	goRules *rules.Runner
	// policies is set when the run has user policies to evaluate.
	policies bool
	once     sync.Once
	run      *userpolicy.Run
	err      error
}

func (lr *localRules) get(ctx context.Context, e *userpolicy.Engine) (*userpolicy.Run, error) {
	lr.once.Do(func() { lr.run, lr.err = e.Prepare(ctx) })
	return lr.run, lr.err
}

// firstPass finishes an object checked by checkObject: it runs the
// per-object built-in rules and user policies, reads its ignore
// annotations, reads its inventory entry and keeps the positions the
// cross-resource rules' findings need. The parsed object is dropped.
func (l *Linter) firstPass(ctx context.Context, c *checked, local *localRules, opts Options, known func() map[string]bool) {
	if local.policies {
		// A policy the sandbox stopped is an error; the other rules'
		// findings on the object still count. The policies evaluate alone
		// (userpolicy.Engine.Hold): this goroutine holds nothing meanwhile.
		run, err := local.get(ctx, l.rules)
		if err == nil {
			var found []rules.Finding
			found, err = run.Eval(ctx, *c.input)
			c.addRuleFindings(found)
		}
		if err != nil {
			c.addErr(fmt.Errorf("%s: document %d: %s: %w", c.file, c.document, c.ref, err))
		}
	}
	release := l.rules.Hold()
	defer release()
	c.addRuleFindings(l.goFirstPass(c, local.goRules))
	l.readGovernance(c, opts, known)
	if opts.Settings.HasContainerExemptions() {
		c.nameContainers()
	}
	// Findings made after the first pass (cross-resource rules, Pod
	// Security, references, custom resources) point at these fields.
	if !c.input.Rejected && local.goRules.ReportsAcross(c.ref.Kind) {
		c.shallow = newShallowIndex(c.obj, c.input.Keep)
	}
	c.obj = nil
	c.input = nil
}

// goFirstPass runs the per-object built-in rules on c's object, and reads
// its inventory entry.
func (l *Linter) goFirstPass(c *checked, run *rules.Runner) []rules.Finding {
	// The entry waits for the second pass packed (its typed objects
	// encoded): NewIndex decodes them a batch at a time.
	c.entry = rules.NewPackedEntry(*c.input)
	if c.input.Rejected || c.input.Versioned == nil {
		return nil
	}
	c.goCross = c.entry != nil
	if paths := rules.InjectedContainerPaths(c.input.Versioned); len(paths) > 0 {
		c.set().injected = paths
	}
	return run.Eval(&rules.ObjectContext{Object: c.input.Versioned, JSON: c.input.JSON, Kind: c.ref.Kind,
		APIVersion: c.ref.APIVersion, Name: c.ref.Name, Namespace: c.ref.Namespace, Key: rules.Key(c.ref.Kind, c.ref.Name),
		Deployment: rules.DeploymentFactsOf(c.input.Versioned), AsWritten: c.input.Written})
}

// addRuleFindings adds the rules' findings, placed at their fields.
func (c *checked) addRuleFindings(found []rules.Finding) {
	for _, f := range found {
		sev, err := ParseSeverity(f.Severity)
		if err != nil {
			c.addErr(fmt.Errorf("rule %s: %w", f.RuleID, err))
			return
		}
		found := c.at(f.RuleID, sev, f.Path, f.Message)
		found.Related = f.Related
		c.findings = append(c.findings, found)
	}
}

// secondPass runs the cross-resource rules on every object, against the
// inventory of its namespace in the whole run (and the baseline's context
// objects).
//
// No cross-resource rule reads another namespace than its input's
// (CrossContext holds the input's namespace alone), so the namespaces are
// indexed and evaluated a batch at a time, in batches of up to batchObjects
// objects (or one namespace, if larger): what the second pass holds is the
// inventory of a batch, not of the run's, and that is what each collection
// marks. A run of up to batchObjects objects is one batch.
func (l *Linter) secondPass(ctx context.Context, all []*checked, extra []rules.Object, goRules *rules.Runner, timings *Timings) error {
	if len(all) == 0 {
		return nil
	}
	// Each namespace's objects and entries, in input order.
	type namespace struct {
		objects []*checked
		entries []*rules.Entry
	}
	byName := map[string]*namespace{}
	var names []string
	get := func(name string) *namespace {
		ns, ok := byName[name]
		if !ok {
			ns = &namespace{}
			byName[name] = ns
			names = append(names, name)
		}
		return ns
	}
	for _, c := range all {
		ns := get(c.ref.Namespace) // the namespace of its entry
		ns.objects = append(ns.objects, c)
		ns.entries = append(ns.entries, c.entry)
	}
	for _, o := range extra {
		ns := get(o.Namespace)
		ns.entries = append(ns.entries, rules.NewEntry(o))
	}
	// Namespaces with nothing to evaluate (only context objects) are left
	// out.
	names = slices.DeleteFunc(names, func(name string) bool { return len(byName[name].objects) == 0 })
	type batch struct {
		objects []*checked
		entries []*rules.Entry
	}
	var batches []batch
	for first := 0; first < len(names); {
		var b batch
		next := first
		for ; next < len(names) && (next == first || len(b.entries)+len(byName[names[next]].entries) <= batchObjects); next++ {
			ns := byName[names[next]]
			b.objects = append(b.objects, ns.objects...)
			b.entries = append(b.entries, ns.entries...)
			byName[names[next]] = nil // the batch's lists hold them now
		}
		first = next
		batches = append(batches, b)
	}
	// The inventory of the next batch is built while this one's rules
	// run: building it is serial, and would leave a CPU idle. At most two
	// batches' inventories are held at once.
	indices := make(chan *rules.Index)
	stop := make(chan struct{})
	var inventory time.Duration
	var builder sync.WaitGroup
	builder.Go(func() {
		defer close(indices)
		for i := range batches {
			start := time.Now()
			index := rules.NewIndex(batches[i].entries)
			inventory += time.Since(start)
			select {
			case indices <- index:
			case <-stop:
				return
			}
		}
	})
	defer func() {
		close(stop)
		builder.Wait()
		timings.Inventory += inventory
	}()
	for i := range batches {
		index := <-indices
		objects := batches[i].objects
		batches[i] = batch{} // done with once evaluated, as each object's entry
		if err := l.crossBatch(ctx, objects, index, goRules, timings); err != nil {
			return err
		}
	}
	return nil
}

// batchObjects is the number of objects the second pass indexes together,
// at most, unless one namespace holds more.
var batchObjects = 1024

// crossBatch runs the cross-resource rules on objects, against index, the
// inventory of their namespaces' objects.
func (l *Linter) crossBatch(ctx context.Context, objects []*checked, index *rules.Index, goRules *rules.Runner, timings *Timings) error {
	start := time.Now()
	defer func() { timings.Rules += time.Since(start) }()
	// The objects are handed to the workers crossChunk at a time: most
	// take a microsecond or two, less than handing one over.
	chunks := (len(objects) + crossChunk - 1) / crossChunk
	if stopped := parallel(ctx, chunks, func(i int) {
		for _, c := range objects[i*crossChunk : min((i+1)*crossChunk, len(objects))] {
			if c.goCross && goRules.ReportsAcross(c.entry.Kind) {
				c.addRuleFindings(goRules.EvalCross(&rules.CrossContext{Self: c.entry, NS: index.Namespace(c.entry.Namespace)}))
			}
			c.entry = nil
		}
	}); stopped >= 0 {
		return fmt.Errorf("rules stopped: %w", ctx.Err())
	}
	return nil
}

// crossChunk is the number of objects a second-pass worker takes at once.
const crossChunk = 32

// joinErrs joins the objects' errors, in input order.
func joinErrs(all []*checked) error {
	var errs []error
	for _, c := range all {
		errs = append(errs, c.get().errs...)
	}
	return errors.Join(errs...)
}
