// Package manifest loads Kubernetes manifests from files, directories and stdin,
// keeping for every object where it came from: the file, the document within it,
// and the line and column of every field. Lint and predict share it.
//
// Loading never stops at the first bad document: a document that does not parse
// becomes a Problem at the line its parser reports, and every other document and
// file is still loaded.
package manifest

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"
)

// StdinName is the file name given to objects read from standard input.
const StdinName = "<stdin>"

// Pos is a 1-based line and column in a file. The zero Pos means "unknown".
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// String renders the position as line:col.
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// Less orders positions by line, then column.
func (p Pos) Less(q Pos) bool {
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Column < q.Column
}

// Source says where a document came from.
type Source struct {
	// File is the path as the user named it (or found it under a named
	// directory); StdinName for standard input.
	File string
	// Document is the 0-based index of the document within the file,
	// counting only documents that hold something other than comments.
	Document int
}

// Object is one Kubernetes object (a document with apiVersion and kind, or an
// item of a List) together with its positions.
type Object struct {
	Source
	// Item is the index of the object in its List's items, or -1 when the
	// document itself is the object.
	Item int

	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	// GenerateName is metadata.generateName, for objects without a name.
	GenerateName string

	// JSON is the object exactly as kubectl would send it to the API server:
	// the YAML converted with kubectl's own YAML-to-JSON step (where a
	// duplicated key keeps its last value).
	JSON []byte

	// Start is the position of the object's first key.
	Start Pos

	// node is the object's mapping in its YAML node tree and lineOffset
	// what turns the tree's lines into the file's (see lookup); nil for an
	// object built otherwise (Parse of JSON without positions).
	node       *yaml.Node
	lineOffset int
	// Duplicates lists every key that appears more than once in one mapping.
	Duplicates []DuplicateKey
	// Rendered is set on an object of a chart or kustomization that
	// Set.Relocate moved to its source file; origin maps its fields there.
	Rendered *RenderedFrom
	origin   Origin
}

// DuplicateKey is a mapping key that appears twice. kubectl keeps the last
// value, so the first one is silently lost.
type DuplicateKey struct {
	// Field is the duplicated field's path, in the API server's notation.
	Field string
	// Pos is where the later (winning) occurrence stands.
	Pos Pos
	// First is where the earlier (lost) occurrence stands.
	First Pos
}

// Position returns the line and column of the field at path, written in the
// API server's field-path notation (spec.template.spec.containers[0].image,
// metadata.labels[app.kubernetes.io/name]). Where the field is absent, it
// returns the position of its nearest existing ancestor, and exact is false.
// An empty path is the object itself.
func (o *Object) Position(path string) (pos Pos, exact bool) {
	if o.origin != nil {
		_, exact = lookup(o.node, o.lineOffset, path, o.Start)
		if loc, ok := o.origin.Locate(o.Rendered.Document, path); ok && loc.File == o.File {
			return loc.Pos, exact
		}
		return o.Start, false
	}
	return lookup(o.node, o.lineOffset, path, o.Start)
}

// Ref names the object for messages: Kind namespace/name, or Kind name.
func (o *Object) Ref() string {
	name := o.Name
	if name == "" && o.GenerateName != "" {
		name = o.GenerateName + "*"
	}
	if o.Namespace != "" {
		return fmt.Sprintf("%s %s/%s", o.Kind, o.Namespace, name)
	}
	return fmt.Sprintf("%s %s", o.Kind, name)
}

// ProblemKind classifies what went wrong with a document or file.
type ProblemKind string

// The problems loading reports.
const (
	// Unparsable: the document is not valid YAML or JSON (a Helm template, say).
	Unparsable ProblemKind = "unparsable"
	// Unreadable: the file or directory could not be read.
	Unreadable ProblemKind = "unreadable"
	// Remote: a kustomization or chart names something remote (a URL, a
	// git repository) that rendering would have to fetch; nothing is
	// fetched, and the directory is not rendered.
	Remote ProblemKind = "remote"
)

// Problem is a document or file that could not be loaded. The rest of the file,
// and every other file, is still loaded.
type Problem struct {
	Source
	Kind    ProblemKind
	Pos     Pos
	Message string
}

// Skipped is a document that parsed but is not a Kubernetes object (it has no
// apiVersion or kind): a CI config, a Kustomize patch, a values file.
type Skipped struct {
	Source
	Pos    Pos
	Reason string
}

// Set is the result of loading.
type Set struct {
	// Files is the number of files read (stdin counts as one).
	Files int
	// Documents is the number of non-empty documents seen, parsable or not.
	Documents int
	// Objects are the Kubernetes objects, in file and document order.
	Objects []*Object
	// Skipped are the documents that are not Kubernetes objects.
	Skipped []Skipped
	// Problems are the documents and files that could not be loaded.
	Problems []Problem
	// Origins map the rendered files (charts, kustomizations) among the
	// objects' files back to the files they were rendered from.
	Origins map[string]Origin
	// Warnings are what rendering a chart or kustomization warned of
	// (kustomize's deprecations), each naming its directory, in input order.
	Warnings []string
}

// before orders places in a load: by file, document, then position.
func before(a Source, pa Pos, b Source, pb Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Document != b.Document {
		return a.Document < b.Document
	}
	return pa.Less(pb)
}

// SortSkipped orders skipped documents by file, document and position.
func SortSkipped(skipped []Skipped) {
	sort.SliceStable(skipped, func(i, j int) bool {
		return before(skipped[i].Source, skipped[i].Pos, skipped[j].Source, skipped[j].Pos)
	})
}

func (s *Set) sort() {
	SortSkipped(s.Skipped)
	sort.SliceStable(s.Problems, func(i, j int) bool {
		return before(s.Problems[i].Source, s.Problems[i].Pos, s.Problems[j].Source, s.Problems[j].Pos)
	})
}
