package manifest

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DirKind says how a directory is turned into objects: rendered as a Helm
// chart, built as a kustomization, or walked for plain files.
type DirKind string

// The directories a Renderer turns into objects.
const (
	// Chart is a directory holding Chart.yaml.
	Chart DirKind = "helm"
	// Kustomization is a directory holding kustomization.yaml (or .yml, or
	// Kustomization).
	Kustomization DirKind = "kustomize"
)

// Renderer renders a chart or builds a kustomization in process. The Set it
// returns holds the rendered objects under a rendered file name (see
// RenderedName), with Origins mapping their fields back to the files a
// person edits, and the rendering errors as Problems at the lines of those
// files. A Renderer must be safe to call from several goroutines.
type Renderer interface {
	Render(dir string, kind DirKind) *Set
}

// A RootedRenderer is a Renderer that is told the input a directory was
// found in, root (see InputRoot): a chart's symbolic links may lead anywhere
// in it, not only within the chart. Render is RenderIn with root the
// directory itself.
type RootedRenderer interface {
	Renderer
	RenderIn(root, dir string, kind DirKind) *Set
}

// InputRoot is the boundary of the links of the charts found under the path
// argument p: the top of the git work tree holding p (a link from one chart
// of a repository to a library chart beside it stays in what is reviewed),
// else p itself. A work tree at the home directory or the file system's
// root (a repository of dotfiles) is not taken: p is.
func InputRoot(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	home, _ := os.UserHomeDir()
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if d == home || d == filepath.Dir(d) {
				return p
			}
			return d
		}
		if filepath.Dir(d) == d {
			return p
		}
	}
}

// Origin maps the fields of a rendered file's objects back to the files a
// person edits: a chart's templates, an overlay's resources and patches.
type Origin interface {
	// Locate returns where the field at path (the API server's notation,
	// "" for the object itself) of the given document of the rendered file
	// was written. ok is false when no source file is known.
	Locate(document int, path string) (loc Location, ok bool)
}

// Location is a place in a file.
type Location struct {
	File     string
	Document int
	Pos      Pos
}

// RenderedName is the file name given to the objects rendered from dir:
// dir@helm-template or dir@kustomize-build.
func RenderedName(dir string, kind DirKind) string {
	if kind == Chart {
		return filepath.Clean(dir) + "@helm-template"
	}
	return filepath.Clean(dir) + "@kustomize-build"
}

// isComponent reports whether the kustomization in dir is a Component,
// which kustomize builds only as part of an overlay that names it.
func isComponent(dir string) bool {
	_, k, ok := readKustomization(dir)
	return ok && k.Kind == "Component"
}

func isFile(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

// ExpandWith is Expand, where r is not nil, a directory that is a chart or a
// kustomization, named or found while walking, becomes one input that r
// renders: its files are not read on their own. With a nil r, such
// directories are walked for plain files, as Expand does.
func ExpandWith(paths []string, stdin io.Reader, r Renderer) ([]Input, []Problem) {
	return expandAll(paths, stdin, r)
}

// LoadWith is Load with a Renderer for charts and kustomizations (see
// ExpandWith).
func LoadWith(paths []string, stdin io.Reader, r Renderer) *Set {
	inputs, problems := ExpandWith(paths, stdin, r)
	set := &Set{Problems: problems}
	for _, in := range inputs {
		set.Merge(in.Load())
	}
	set.sort()
	return set
}

// RenderKind is the kind of directory the input is, when a Renderer renders
// it.
func (in Input) RenderKind() (DirKind, bool) { return in.kind, in.kind != "" }

// RenderedFrom says where a relocated object (see Set.Relocate) stands in
// the rendered output of a chart or kustomization.
type RenderedFrom struct {
	// File is the rendered file's name (RenderedName), Document the
	// object's document in it.
	File     string
	Document int
	// Dir is the chart or kustomization directory, and Kind which it is.
	Dir  string
	Kind DirKind
}

// Relocate moves the objects rendered from charts and kustomizations to the
// files they were rendered from: File, Document and Start become those of
// the template or resource file, Position returns places in that file (a
// field another file sets, such as a kustomize patch, is given the
// object's start), and Rendered keeps the rendered place. predict uses it;
// lint relocates findings instead (a finding may stand in a patch file).
func (s *Set) Relocate() {
	for _, o := range s.Objects {
		origin, ok := s.Origins[o.File]
		if !ok || o.Rendered != nil {
			continue
		}
		loc, ok := origin.Locate(o.Document, "")
		if !ok {
			continue
		}
		from := &RenderedFrom{File: o.File, Document: o.Document}
		if dir, ok := strings.CutSuffix(o.File, "@helm-template"); ok {
			from.Dir, from.Kind = dir, Chart
		} else if dir, ok := strings.CutSuffix(o.File, "@kustomize-build"); ok {
			from.Dir, from.Kind = dir, Kustomization
		}
		o.Rendered, o.origin = from, origin
		o.File, o.Document, o.Start = loc.File, loc.Document, loc.Pos
	}
}

// maxChartDepth is how many directories above a file are searched for the
// chart that holds it (web/charts/db/templates/x.yaml is 4 below web).
const maxChartDepth = 8

// chartOf returns the outermost chart directory holding the file p, not
// above the top of a git work tree: a template cannot be linted alone.
func chartOf(p string) (string, bool) {
	info, err := os.Stat(p)
	if err != nil || info.IsDir() {
		return "", false
	}
	found := ""
	d := filepath.Dir(p)
	for range maxChartDepth {
		if isFile(filepath.Join(d, "Chart.yaml")) {
			found = d
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d || (d == "." && !filepath.IsAbs(p)) {
			break
		}
		d = parent
	}
	return found, found != ""
}
