package lint

import "github.com/kubectl-workload/kubectl-workload/internal/manifest"

// toSources moves the findings and linted objects of rendered charts and
// kustomizations to the files they were rendered from (the template line,
// the resource or patch line), keeping the rendered place in
// Finding.Rendered.
func toSources(res *Result, origins map[string]manifest.Origin) {
	if len(origins) == 0 {
		return
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		o, ok := origins[f.File]
		if !ok || f.Object == nil {
			continue
		}
		loc, ok := o.Locate(f.Document, f.Field)
		if !ok {
			continue
		}
		f.Rendered = &Rendered{File: f.File, Document: f.Document, Line: f.Line, Column: f.Column}
		f.File, f.Document, f.Line, f.Column = loc.File, loc.Document, loc.Pos.Line, loc.Pos.Column
	}
	for i := range res.Linted {
		l := &res.Linted[i]
		if o, ok := origins[l.File]; ok {
			if loc, ok := o.Locate(l.Document, ""); ok {
				l.File, l.Document = loc.File, loc.Document
			}
		}
	}
}
