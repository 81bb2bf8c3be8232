// Package lint checks workload manifests and returns its findings as data.
// It never prints and never exits; the plugin renders the Result.
package lint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/kubectl-workload/kubectl-workload/apicheck"
	"github.com/kubectl-workload/kubectl-workload/manifest"
)

// Rule ids for problems with the input itself.
const (
	RuleUnparsable   = "input/unparsable"
	RuleDuplicateKey = "input/duplicate-key"
)

// Options are lint's inputs.
type Options struct {
	// Paths are files, directories, or "-" for Stdin.
	Paths []string
	Stdin io.Reader
	// Namespace is the namespace for objects that name none, as kubectl
	// would take it from -n; "default" when empty.
	Namespace string
}

// Result is everything a lint run found.
type Result struct {
	// Findings are sorted by file, document, line, column and rule.
	Findings []Finding `json:"findings"`
	// Files, Documents and Objects count what was read.
	Files     int `json:"files"`
	Documents int `json:"documents"`
	Objects   int `json:"objects"`
	// Skipped are the documents that are not Kubernetes objects.
	Skipped []manifest.Skipped `json:"-"`
	// Errors are failures of the tool or its inputs as a whole (a path that
	// does not exist); they make the run exit 2. Findings are still valid.
	Errors []error `json:"-"`
}

// Count returns how many findings have exactly the given severity.
func (r *Result) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Fails reports whether any finding is at or above the threshold.
func (r *Result) Fails(threshold Severity) bool {
	for _, f := range r.Findings {
		if f.Severity >= threshold {
			return true
		}
	}
	return false
}

// Linter holds what is built once and reused across runs.
type Linter struct {
	api *apicheck.Checker
}

// New builds a Linter.
func New() *Linter {
	return &Linter{api: apicheck.New()}
}

// Run loads opts.Paths and lints every object found. Files are loaded and
// linted by one worker per CPU (loading is most of the cost, and files are
// independent); the results are merged in input order and then sorted, so the
// output does not depend on scheduling.
func (l *Linter) Run(ctx context.Context, opts Options) *Result {
	inputs, problems := manifest.Expand(opts.Paths, opts.Stdin)
	res := &Result{}
	addProblems(res, problems)

	type fileResult struct {
		set      *manifest.Set
		findings []Finding
	}
	results := make([]fileResult, len(inputs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(inputs)) {
		wg.Go(func() {
			for i := range jobs {
				set := inputs[i].Load()
				var findings []Finding
				for _, obj := range set.Objects {
					findings = append(findings, l.lintObject(ctx, obj, opts)...)
				}
				results[i] = fileResult{set: set, findings: findings} // each worker owns distinct indices
			}
		})
	}
	var stopped error
feed:
	for i := range inputs {
		if ctx.Err() != nil { // checked first: select picks at random among ready cases
			stopped = fmt.Errorf("lint stopped before %s: %w", inputs[i].Name, ctx.Err())
			break
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			stopped = fmt.Errorf("lint stopped before %s: %w", inputs[i].Name, ctx.Err())
			break feed
		}
	}
	close(jobs)
	wg.Wait()

	for _, r := range results {
		if r.set == nil {
			continue // not reached before cancellation
		}
		res.Files += r.set.Files
		res.Documents += r.set.Documents
		res.Objects += len(r.set.Objects)
		res.Skipped = append(res.Skipped, r.set.Skipped...)
		addProblems(res, r.set.Problems)
		res.Findings = append(res.Findings, r.findings...)
	}
	if stopped != nil {
		res.Errors = append(res.Errors, stopped)
	}
	SortFindings(res.Findings)
	manifest.SortSkipped(res.Skipped)
	return res
}

// addProblems turns loading problems into findings (a document that does not
// parse) or errors (a path that cannot be read).
func addProblems(res *Result, problems []manifest.Problem) {
	for _, p := range problems {
		switch p.Kind {
		case manifest.Unparsable:
			res.Findings = append(res.Findings, Finding{Rule: RuleUnparsable, Severity: SeverityError, Message: p.Message,
				File: p.File, Document: p.Document, Line: p.Pos.Line, Column: p.Pos.Column})
		default:
			res.Errors = append(res.Errors, errors.New(p.Message))
		}
	}
}

// lintObject runs every check on one object.
func (l *Linter) lintObject(ctx context.Context, obj *manifest.Object, opts Options) []Finding {
	ns := obj.Namespace
	if ns == "" {
		ns = opts.Namespace
		if ns == "" {
			ns = "default"
		}
	}
	ref := &ObjectRef{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: ns, Name: obj.Name}
	if ref.Name == "" && obj.GenerateName != "" {
		ref.Name = obj.GenerateName + "*"
	}
	at := func(rule string, sev Severity, fieldPath, msg string) Finding {
		pos, _ := obj.Position(fieldPath)
		return Finding{Rule: rule, Severity: sev, Message: msg, File: obj.File, Document: obj.Document,
			Line: pos.Line, Column: pos.Column, Field: fieldPath, Object: ref}
	}
	var out []Finding
	for _, d := range obj.Duplicates {
		f := at(RuleDuplicateKey, SeverityError, d.Field,
			fmt.Sprintf("%s: duplicate key: it is already set at line %d, and kubectl silently keeps only this last value", d.Field, d.First.Line))
		f.Line, f.Column = d.Pos.Line, d.Pos.Column
		out = append(out, f)
	}
	res := l.api.Check(ctx, apicheck.Object{APIVersion: obj.APIVersion, Kind: obj.Kind, Namespace: obj.Namespace,
		Name: obj.Name, JSON: obj.JSON}, apicheck.Options{Namespace: opts.Namespace})
	for _, is := range res.Issues {
		sev := SeverityError
		if is.Warning {
			sev = SeverityWarning
		}
		fieldPath := is.Field
		if is.Loose {
			if real, ok := obj.ResolveLoose(is.Field, is.ValueType); ok {
				fieldPath = real
			}
		}
		out = append(out, at(is.Rule, sev, fieldPath, is.Message))
	}
	return out
}
