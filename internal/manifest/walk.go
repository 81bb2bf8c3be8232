package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// listing is what a directory's entries say about it, as the walk read
// them: whether it is a chart or a kustomization, and whether it is the top
// of a git work tree. The patch index and the chart search read it instead
// of asking the file system again.
type listing struct {
	chart         bool   // it holds Chart.yaml, a regular file
	kustomization string // the name of its kustomization file, "" if none
	git           bool   // it holds .git
}

// listings are the directories the walk read, by absolute path.
type listings struct {
	mu sync.Mutex
	m  map[string]listing
	wd string // the working directory, read once ("" if unknown)
}

func newListings() *listings {
	wd, _ := os.Getwd()
	return &listings{m: map[string]listing{}, wd: wd}
}

// abs is filepath.Abs with the working directory read once: Abs reads it
// (two stats) on every call, and the patch index asks for every file.
func (l *listings) abs(p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if l == nil || l.wd == "" {
		return filepath.Abs(p)
	}
	return filepath.Join(l.wd, p), nil
}

func (l *listings) put(abs string, li listing) {
	if l == nil || abs == "" {
		return
	}
	l.mu.Lock()
	l.m[abs] = li
	l.mu.Unlock()
}

// get returns the listing of the directory abs, read from the file system
// when the walk did not read it.
func (l *listings) get(abs string) listing {
	if l != nil {
		l.mu.Lock()
		li, ok := l.m[abs]
		l.mu.Unlock()
		if ok {
			return li
		}
	}
	li := statListing(abs)
	l.put(abs, li)
	return li
}

// statListing is the listing of dir, asked of the file system name by name.
func statListing(dir string) listing {
	li := listing{chart: isFile(filepath.Join(dir, "Chart.yaml"))}
	for _, name := range kustomizationNames {
		if isFile(filepath.Join(dir, name)) {
			li.kustomization = name
			break
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		li.git = true
	}
	return li
}

// kind is the render kind of a directory with this listing. A directory
// holding both a chart and a kustomization is a chart (helm reads Chart.yaml
// first).
func (li listing) kind() (DirKind, bool) {
	switch {
	case li.chart:
		return Chart, true
	case li.kustomization != "":
		return Kustomization, true
	}
	return "", false
}

// readListing lists dir: its entries, sorted by name, and what they say of
// it. Entries that are symbolic links are resolved only when their names
// matter (Chart.yaml, a kustomization), as a stat would.
func readListing(dir string) ([]os.DirEntry, listing, error) {
	entries, err := os.ReadDir(dir)
	var li listing
	regular := func(e os.DirEntry) bool {
		if e.Type()&os.ModeSymlink != 0 {
			return isFile(filepath.Join(dir, e.Name()))
		}
		return e.Type().IsRegular()
	}
	kust := len(kustomizationNames)
	for _, e := range entries {
		switch name := e.Name(); name {
		case "Chart.yaml":
			li.chart = li.chart || regular(e)
		case ".git":
			li.git = true
		default:
			for i, k := range kustomizationNames {
				// The first of the names that is there, in kustomize's order.
				if name == k && i < kust && regular(e) {
					li.kustomization, kust = k, i
				}
			}
		}
	}
	return entries, li, err
}

// walkTree lists the files under root (a directory) to load, and with render
// the chart and kustomization directories in it, in the order of
// filepath.WalkDir: lexical, depth first, .git directories left out, symbolic
// links not followed below root. Directories are read side by side, on up to
// one goroutine per CPU; what each read says is kept in seen.
func walkTree(root string, render bool, seen *listings) ([]string, []renderDir, []Problem) {
	out := walk(root, render, seen)
	return out.files, out.dirs, out.problems
}

// walk is walkTree, and also returns the symbolic links it did not follow.
func walk(root string, render bool, seen *listings) walked {
	w := &walker{render: render, seen: seen, tokens: make(chan struct{}, runtime.GOMAXPROCS(0)-1)}
	if abs, err := seen.abs(root); err == nil {
		w.absRoot = abs
	}
	var out walked
	w.dir(root, w.absRoot, true, &out)
	return out
}

type walker struct {
	render  bool
	seen    *listings
	absRoot string
	tokens  chan struct{} // a token is a goroutine beside the caller's
}

// walked is what one directory's walk found, in order.
type walked struct {
	files    []string
	dirs     []renderDir
	problems []Problem
	// links are the symbolic links with a manifest's file ending, which
	// are not followed (see linkSkipReason).
	links []string
	// listed is set when files are a directory walk's: each was a regular
	// file in its directory's listing.
	listed bool
}

func (w *walked) add(o *walked) {
	w.files = append(w.files, o.files...)
	w.dirs = append(w.dirs, o.dirs...)
	w.problems = append(w.problems, o.problems...)
	w.links = append(w.links, o.links...)
}

// dir walks the directory path (abs: its absolute path, "" if unknown).
func (w *walker) dir(path, abs string, top bool, out *walked) {
	entries, li, err := readListing(path)
	if err != nil {
		// What the directory is, is asked of the file system, as when it
		// is not listed: a chart's directory is rendered, not read.
		li = statListing(path)
	}
	if abs != "" {
		w.seen.put(abs, li)
	}
	if w.render {
		if kind, ok := li.kind(); ok {
			// A Component is built with the overlays that use it; its
			// files are not linted on their own either.
			if kind != Kustomization || top || !isComponent(path) {
				out.dirs = append(out.dirs, renderDir{dir: path, kind: kind})
			}
			return
		}
	}
	if err != nil {
		out.problems = append(out.problems, Problem{Source: Source{File: path}, Kind: Unreadable,
			Message: fmt.Sprintf("walk %s: %v", path, err)})
		if !top {
			return // the root's entries listed before the error are still walked
		}
	}
	// The subdirectories' walks, in entry order; each may run on a goroutine
	// of its own.
	parts := make([]*walked, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		name := e.Name()
		p := filepath.Join(path, name)
		switch {
		case e.IsDir():
			if name == ".git" {
				continue
			}
			sub := ""
			if abs != "" {
				sub = filepath.Join(abs, name)
			}
			parts[i] = &walked{}
			select {
			case w.tokens <- struct{}{}:
				wg.Go(func() {
					defer func() { <-w.tokens }()
					w.dir(p, sub, false, parts[i])
				})
			default:
				w.dir(p, sub, false, parts[i])
			}
		case e.Type().IsRegular() && extensions[strings.ToLower(filepath.Ext(name))]:
			parts[i] = &walked{files: []string{p}}
		case e.Type()&os.ModeSymlink != 0 && extensions[strings.ToLower(filepath.Ext(name))]:
			parts[i] = &walked{links: []string{p}}
		}
	}
	wg.Wait()
	for _, part := range parts {
		if part != nil {
			out.add(part)
		}
	}
}
