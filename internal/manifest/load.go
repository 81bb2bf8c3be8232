package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
)

// extensions are the file endings read when walking a directory. A file named
// explicitly is read whatever its name.
var extensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// Input is one file to load: a path found by Expand, or standard input.
type Input struct {
	// Name is the file as findings name it; StdinName for standard input.
	Name string
	// data holds standard input, read once by Expand.
	data  []byte
	stdin bool
	// skip, when set, is why the file is not parsed (a Kustomize patch).
	skip string
	// tooBig is set when standard input holds more than MaxFileSize bytes.
	tooBig bool
	// listed is set for a file found by walking a directory, whose listing
	// gave it as a regular file (readFile).
	listed bool
	// kind is set for a chart or kustomization directory that renderer
	// renders.
	kind     DirKind
	renderer Renderer
	// root is the input a chart or kustomization was found in (InputRoot).
	root string
}

// linkSkipReason starts the reason a symbolic link found while walking a
// directory is not read (linkInput).
const linkSkipReason = "a symbolic link"

// linkInput is the input for a symbolic link with a manifest's name found
// while walking the directory argument root. A link whose target stays
// inside root is linted under the link's name, unless the target is a file
// the walk lints itself, or a file of a chart or kustomization it renders
// (then it is skipped, naming the target). A link leading out of root (to a
// file of the machine running lint, whose content a parse error would
// echo), or that does not resolve, is skipped with the reason, which
// --verbose names and the summary counts; to lint its target, name the link
// itself.
func linkInput(root, link string, walked map[string]bool, dirs []renderDir) Input {
	err := boundedread.Inside(root, link)
	var outside *boundedread.OutsideError
	switch {
	case errors.As(err, &outside):
		return Input{Name: link, skip: fmt.Sprintf("%s to %s, outside %s: not followed; name it to lint its target", linkSkipReason, outside.Target, root)}
	case err != nil:
		return Input{Name: link, skip: fmt.Sprintf("%s that does not resolve: %v", linkSkipReason, err)}
	}
	target, _ := filepath.EvalSymlinks(link)
	target, _ = filepath.Abs(target)
	if walked[target] {
		return Input{Name: link, skip: fmt.Sprintf("%s to %s, which is linted itself", linkSkipReason, target)}
	}
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d.dir)
		if err != nil {
			continue
		}
		if real, err = filepath.Abs(real); err == nil && boundedread.Inside(real, target) == nil {
			return Input{Name: link, skip: fmt.Sprintf("%s to %s, a file of %s, which is rendered", linkSkipReason, target, d.dir)}
		}
	}
	return Input{Name: link} // read as any file named on the command line
}

// realPaths are the walked files' paths with every symbolic link resolved
// (the directory argument may be one).
func realPaths(files []string) map[string]bool {
	out := make(map[string]bool, len(files))
	for _, f := range files {
		if real, err := filepath.EvalSymlinks(f); err == nil {
			if real, err = filepath.Abs(real); err == nil {
				out[real] = true
			}
		}
	}
	return out
}

// Expand turns path arguments into the inputs to load, in order and without
// repeats: a file, a directory (walked recursively for .yaml, .yml and .json
// files, skipping .git), or "-" for stdin, which it reads here, once. Paths
// that cannot be read are returned as Problems; the rest are still returned.
func Expand(paths []string, stdin io.Reader) ([]Input, []Problem) {
	return expandAll(paths, stdin, nil)
}

func expandAll(paths []string, stdin io.Reader, r Renderer) ([]Input, []Problem) {
	var inputs []Input
	var problems []Problem
	seen := map[string]bool{}
	listed := newListings() // the directories walked, for the patch index
	for _, p := range paths {
		if p == "-" {
			if seen[StdinName] {
				continue
			}
			seen[StdinName] = true
			data, err := io.ReadAll(io.LimitReader(stdin, MaxFileSize+1))
			if err != nil {
				problems = append(problems, Problem{Source: Source{File: StdinName}, Kind: Unreadable,
					Message: fmt.Sprintf("read standard input: %v", err)})
				continue
			}
			if len(data) > MaxFileSize {
				inputs = append(inputs, Input{Name: StdinName, stdin: true, tooBig: true})
				continue
			}
			if len(bytes.TrimSpace(data)) == 0 {
				// Unlike an empty file, empty standard input is almost always a
				// command before the pipe that failed (helm template with an
				// error prints nothing on stdout): passing would hide it.
				problems = append(problems, Problem{Source: Source{File: StdinName}, Kind: Unreadable,
					Message: "standard input is empty: nothing to lint (did the command before the pipe fail?)"})
				continue
			}
			inputs = append(inputs, Input{Name: StdinName, data: data, stdin: true})
			continue
		}
		if r != nil {
			// A file of a chart (a template, values.yaml), as a pre-commit
			// hook names it: the chart is what is linted.
			if chart, ok := chartOf(p); ok {
				p = chart
			}
		}
		w := expand(p, r != nil, listed)
		root := ""
		if len(w.dirs) > 0 {
			root = InputRoot(p)
		}
		problems = append(problems, w.problems...)
		// Sized once: a walk finds thousands of files, and growing the
		// inputs by doubling copies them on one CPU before any is read.
		inputs = slices.Grow(inputs, len(w.links)+len(w.files)+len(w.dirs))
		if len(seen) == 0 {
			seen = make(map[string]bool, len(w.links)+len(w.files)+len(w.dirs))
		}
		var walkedFiles map[string]bool
		if len(w.links) > 0 {
			walkedFiles = realPaths(w.files)
		}
		for _, f := range w.links {
			if c := filepath.Clean(f); !seen[c] {
				seen[c] = true
				inputs = append(inputs, linkInput(p, f, walkedFiles, w.dirs))
			}
		}
		for _, f := range w.files {
			if c := filepath.Clean(f); !seen[c] {
				seen[c] = true
				inputs = append(inputs, Input{Name: f, listed: w.listed})
			}
		}
		for _, d := range w.dirs {
			if seen[filepath.Clean(d.dir)+"/"] {
				continue
			}
			seen[filepath.Clean(d.dir)+"/"] = true
			inputs = append(inputs, Input{Name: d.dir, kind: d.kind, renderer: r, root: root})
		}
	}
	// Patches are known once every file is: a kustomization may list a patch
	// in another directory than its own.
	files := make([]string, 0, len(inputs))
	for _, in := range inputs {
		if !in.stdin && in.kind == "" {
			files = append(files, in.Name)
		}
	}
	patches := newPatchIndex(listed)
	for _, d := range kustomizationDirs(files, listed) {
		patches.addDir(d)
	}
	// The kustomizations the run renders name their patches too, wherever
	// those are (../../common/patch.yaml, a sibling of the overlay), and
	// whether or not the render succeeds.
	for _, in := range inputs {
		if in.kind == Kustomization {
			patches.addDir(in.Name)
		}
	}
	for i := range inputs {
		if inputs[i].stdin || inputs[i].kind != "" {
			continue
		}
		if kf, ok := patches.patchOf(inputs[i].Name); ok {
			inputs[i].skip = "a Kustomize patch, listed in " + kf + "; lint the output of kustomize build instead"
		}
	}
	return inputs, problems
}

// Load reads and parses one input. Inputs are independent, so several may
// load at once.
func (in Input) Load() *Set {
	if in.kind != "" {
		var set *Set
		if rr, ok := in.renderer.(RootedRenderer); ok && in.root != "" {
			set = rr.RenderIn(in.root, in.Name, in.kind)
		} else {
			set = in.renderer.Render(in.Name, in.kind)
		}
		set.sort()
		return set
	}
	set := &Set{}
	if in.skip != "" {
		// Not read at all: a patch is not linted, and a link may lead
		// anywhere (linkSkipReason).
		set.Files++
		set.Skipped = append(set.Skipped, Skipped{Source: Source{File: in.Name}, Pos: Pos{Line: 1, Column: 1}, Reason: in.skip})
		return set
	}
	data := in.data
	if !in.stdin {
		var err error
		if data, err = readFile(in.Name, in.listed); err != nil {
			var tooBig *boundedread.TooLargeError
			if errors.As(err, &tooBig) {
				set.Files++
				set.Problems = append(set.Problems, Problem{Source: Source{File: in.Name}, Kind: LimitExceeded, Pos: Pos{Line: 1, Column: 1},
					Message: tooBigMessage(tooBig)})
				return set
			}
			set.Problems = append(set.Problems, Problem{Source: Source{File: in.Name}, Kind: Unreadable, Message: err.Error()})
			return set
		}
	}
	set.Files++
	if in.tooBig {
		set.Problems = append(set.Problems, Problem{Source: Source{File: in.Name}, Kind: LimitExceeded, Pos: Pos{Line: 1, Column: 1},
			Message: fmt.Sprintf("standard input holds more than %d bytes (manifest.MaxFileSize); it is not read", MaxFileSize)})
		return set
	}
	parse(set, in.Name, data)
	set.sort()
	return set
}

// tooBigMessage says a file is over MaxFileSize.
func tooBigMessage(e *boundedread.TooLargeError) string {
	if e.Size < 0 {
		return fmt.Sprintf("%s is larger than %d bytes (manifest.MaxFileSize); it is not read", e.Name, MaxFileSize)
	}
	return fmt.Sprintf("%s is %d bytes, more than %d (manifest.MaxFileSize); it is not read", e.Name, e.Size, MaxFileSize)
}

// readFile reads a file of at most MaxFileSize bytes (boundedread.ReadFile):
// a larger one is not read, nor is anything but a regular file (a FIFO
// named as a manifest would otherwise hang the run, /dev/zero fill memory).
//
// A file its directory's listing gave as a regular file (listed) is not
// looked at again before it is opened (boundedread.ReadListedFile).
func readFile(name string, listed bool) ([]byte, error) {
	read := boundedread.ReadFile
	if listed {
		read = boundedread.ReadListedFile
	}
	data, err := read(name, MaxFileSize)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("read %s: %w", name, pe.Err)
	}
	return data, err
}

// Load reads every path (see Expand) and parses every file, one after the
// other. It never stops early: a file that cannot be read or a document that
// does not parse is recorded as a Problem and loading goes on.
func Load(paths []string, stdin io.Reader) *Set {
	inputs, problems := Expand(paths, stdin)
	set := &Set{Problems: problems}
	for _, in := range inputs {
		set.Merge(in.Load())
	}
	set.sort()
	return set
}

// Merge appends o's contents to s.
func (s *Set) Merge(o *Set) {
	s.Files += o.Files
	s.Documents += o.Documents
	s.Objects = append(s.Objects, o.Objects...)
	s.Skipped = append(s.Skipped, o.Skipped...)
	s.Problems = append(s.Problems, o.Problems...)
	s.Warnings = append(s.Warnings, o.Warnings...)
	for name, o := range o.Origins {
		if s.Origins == nil {
			s.Origins = map[string]Origin{}
		}
		s.Origins[name] = o
	}
}

// renderDir is a chart or kustomization directory found by expand.
type renderDir struct {
	dir  string
	kind DirKind
}

// expand turns a path argument into the files it names, and the problems met
// on the way. With render set, a chart or kustomization directory (the path
// itself or one found while walking) is returned in dirs, and its files are
// not walked. A directory named by the argument is walked even when the
// argument is a symbolic link to it; below it, links are not followed.
func expand(p string, render bool, seen *listings) walked {
	info, err := os.Stat(p)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = fmt.Sprintf("%s: %v", p, pe.Err)
		}
		return walked{problems: []Problem{{Source: Source{File: p}, Kind: Unreadable, Message: msg}}}
	}
	if !info.IsDir() {
		return walked{files: []string{p}}
	}
	w := walk(p, render, seen)
	w.listed = true
	return w
}

// parse splits one file's bytes into documents and loads each one.
func parse(set *Set, file string, data []byte) {
	parseDocuments(set, file, data, true)
}

// parseDocuments is parse; with fast unset, every YAML document's JSON comes
// from sigs.k8s.io/yaml and every header from encoding/json, as before
// treeJSON existed (tests compare the two).
func parseDocuments(set *Set, file string, data []byte, fast bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	if looksLikeJSON(data) {
		parseJSONStream(set, file, data)
		return
	}
	chunks := splitYAML(data)
	if !withinDocumentLimit(set, file, chunks) {
		return
	}
	budget := &aliasBudget{}
	doc := 0
	for _, c := range chunks {
		if c.badSeparator != "" {
			set.Problems = append(set.Problems, Problem{Source: Source{File: file, Document: doc}, Kind: Unparsable,
				Pos: Pos{Line: c.startLine - 1, Column: 1}, Message: c.badSeparator})
		}
		if isBlank(c.text) {
			continue
		}
		set.Documents++
		loadYAMLDocument(set, Source{File: file, Document: doc}, c, budget, fast)
		doc++
	}
}

// withinDocumentLimit reports whether a file's documents are no more than
// MaxDocuments; if not, it records the problem at the first one too many.
// Empty documents count too (a file of 4,000,000 "---" lines is over the
// limit, not 4,000,000 documents to skip), with one to spare for the
// empty document before a leading "---".
func withinDocumentLimit(set *Set, file string, chunks []chunk) bool {
	if len(chunks) <= maxChunks {
		return true
	}
	c := chunks[maxChunks]
	set.Problems = append(set.Problems, Problem{Source: Source{File: file, Document: MaxDocuments}, Kind: LimitExceeded,
		Pos: Pos{Line: c.startLine, Column: 1}, Message: fmt.Sprintf(
			"the file holds more than %d documents (manifest.MaxDocuments), counting empty ones; the file is not linted", MaxDocuments)})
	return false
}

// maxChunks is the most chunks splitYAML makes of a file within
// MaxDocuments: the documents, and the empty one before a leading "---".
const maxChunks = MaxDocuments + 1

// looksLikeJSON sniffs the stream the way kubectl's YAMLOrJSONDecoder does: a
// stream whose first non-space byte is '{' is JSON.
func looksLikeJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// chunk is one YAML document's text and the file line it starts on.
type chunk struct {
	text      []byte
	startLine int
	// badSeparator is set when the line that ended the previous chunk began
	// with "---" but was followed by something other than a comment.
	badSeparator string
}

// splitYAML splits a YAML stream at separator lines, as kubectl's YAMLReader
// (k8s.io/apimachinery/pkg/util/yaml) does: a line that starts with "---" and
// has nothing after it but spaces or a comment. It stops after the chunk one
// over maxChunks (see withinDocumentLimit), so that a file of separators
// costs no more memory than one of MaxDocuments documents.
func splitYAML(data []byte) []chunk {
	var chunks []chunk
	cur := chunk{startLine: 1}
	line := 1
	start := 0 // where cur's text starts in data: a document's lines are contiguous
	for pos := 0; pos < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		l := data[pos:end]
		if bytes.HasPrefix(l, []byte("---")) {
			// kubectl rejects a separator followed by anything but a
			// comment; it is reported, and the split is made all the same so
			// that the documents around it are still read.
			rest := strings.TrimSpace(string(l[3:]))
			bad := ""
			if rest != "" && rest[0] != '#' {
				bad = fmt.Sprintf("invalid YAML document separator %q: only a comment may follow \"---\"", strings.TrimSpace(string(l)))
			}
			cur.text = text(data, start, pos)
			chunks = append(chunks, cur)
			cur = chunk{startLine: line + 1, badSeparator: bad}
			start = end
			if len(chunks) > maxChunks {
				return chunks
			}
		}
		pos = end
		line++
	}
	cur.text = text(data, start, len(data))
	chunks = append(chunks, cur)
	return chunks
}

// text is data[start:end] with no room to append into the next document,
// or nil when empty.
func text(data []byte, start, end int) []byte {
	if start == end {
		return nil
	}
	return data[start:end:end]
}

// isBlank reports whether a chunk holds nothing but white space and comments.
func isBlank(text []byte) bool {
	for len(text) > 0 {
		l := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("...")) {
			return false
		}
	}
	return true
}

var yamlLineErr = regexp.MustCompile(`^(?:error converting YAML to JSON: )?yaml: line (\d+): (.*)$`)

// yamlProblem turns a YAML parser error into a Problem at the file line it
// names. A document holding a template expression ({{ }}) gets advice instead
// of the parser's account of what the braces parsed as.
func yamlProblem(src Source, c chunk, err error) Problem {
	msg := err.Error()
	pos := Pos{Line: c.startLine, Column: 1}
	m := yamlLineErr.FindStringSubmatch(msg)
	if m != nil {
		n, _ := strconv.Atoi(m[1])
		pos.Line = c.startLine + n - 1
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, "error converting YAML to JSON: "), "yaml: ")
	}
	if line, col, what, ok := notText(c.text); ok {
		return Problem{Source: src, Kind: Unparsable, Pos: Pos{Line: c.startLine + line - 1, Column: col}, Message: fmt.Sprintf(
			"cannot parse YAML: %s; is this a binary file, or text not saved as UTF-8?", what)}
	}
	if m != nil && tabIndented(c.text, pos.Line-c.startLine+1) {
		msg += "; YAML does not allow tabs as indentation: indent with spaces"
	}
	if line, ok := templateLine(c); ok {
		detail := ""
		if m != nil {
			detail = " (" + msg + ")"
		} else {
			pos.Line = line
		}
		return Problem{Source: src, Kind: Unparsable, Pos: pos, Message: fmt.Sprintf(
			"cannot parse YAML%s: the document holds a template expression ({{ }}) at line %d: render the template first, for example with helm template, and lint its output",
			detail, line)}
	}
	return Problem{Source: src, Kind: Unparsable, Pos: pos, Message: "cannot parse YAML: " + msg}
}

// notText finds the first byte of a document that YAML cannot read as text:
// invalid UTF-8, or a control character other than tab, line feed and
// carriage return. It returns its 1-based line and column in the document.
func notText(text []byte) (line, col int, what string, ok bool) {
	line, start := 1, 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			what = fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", text[i])
		case r == '\n':
			line, start = line+1, i+1
		case r == '\t' || r == '\r' || r == '\ufeff':
		case r < 0x20 || r == 0x7f:
			what = fmt.Sprintf("control character 0x%02x", r)
		}
		if what != "" {
			return line, utf8.RuneCount(text[start:i]) + 1, what, true
		}
		i += size
	}
	return 0, 0, "", false
}

// tabIndented reports whether the given 1-based line of a document starts
// with a tab.
func tabIndented(text []byte, line int) bool {
	lines := bytes.SplitN(text, []byte("\n"), line+1)
	return line >= 1 && line <= len(lines) && bytes.HasPrefix(bytes.TrimLeft(lines[line-1], " "), []byte("\t"))
}

// templateLine returns the file line of the first "{{" in a chunk.
func templateLine(c chunk) (int, bool) {
	i := bytes.Index(c.text, []byte("{{"))
	if i < 0 {
		return 0, false
	}
	return c.startLine + bytes.Count(c.text[:i], []byte("\n")), true
}

// loadYAMLDocument parses one YAML document: yaml.v3 for positions and
// duplicate keys; its JSON is what kubectl's own YAML-to-JSON conversion
// gives, written from the yaml.v3 tree when treeJSON can, else by that
// conversion itself (see documentJSON).
func loadYAMLDocument(set *Set, src Source, c chunk, budget *aliasBudget, fast bool) {
	if fast {
		// The common manifest without yaml.v3's general scanner; it gives
		// the same tree (fastYAML), and cannot hold a second document.
		if root, ok := fastYAML(c.text); ok {
			if checkedShape(set, src, c, root, budget) {
				addYAMLDocument(set, src, c, root, fast)
			}
			return
		}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(c.text))
	if err := dec.Decode(&root); err != nil {
		set.Problems = append(set.Problems, yamlProblem(src, c, err))
		return
	}
	if !checkedShape(set, src, c, &root, budget) {
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		// Something only yaml.v3 reads as a second document, such as "--- !tag".
		set.Problems = append(set.Problems, Problem{Source: src, Kind: Unparsable,
			Pos: Pos{Line: c.startLine + extra.Line - 1, Column: 1}, Message: "cannot parse YAML: a second document starts inside this one; separate documents with a line of \"---\""})
		return
	} else if !errors.Is(err, io.EOF) {
		set.Problems = append(set.Problems, yamlProblem(src, c, err))
		return
	}
	addYAMLDocument(set, src, c, &root, fast)
}

// checkedShape checks a parsed document against the limits before anything
// expands aliases or recurses over the content (checkShape), and records the
// problem when it is over one.
func checkedShape(set *Set, src Source, c chunk, root *yaml.Node, budget *aliasBudget) bool {
	if msg, at := checkShape(root, budget); at != nil {
		set.Problems = append(set.Problems, Problem{Source: src, Kind: LimitExceeded,
			Pos: Pos{Line: c.startLine + at.Line - 1, Column: at.Column}, Message: msg})
		return false
	}
	return true
}

// addYAMLDocument converts a parsed document to JSON and adds its objects.
func addYAMLDocument(set *Set, src Source, c chunk, root *yaml.Node, fast bool) {
	d, err := documentJSON(root, c.text, fast)
	if err != nil {
		set.Problems = append(set.Problems, yamlProblem(src, c, err))
		return
	}
	addDocument(set, src, root, c.startLine-1, d)
}

// parseJSONStream loads a stream of JSON values, as kubectl does for a file
// that starts with '{'. The values are split first, so that a file over
// MaxDocuments is refused before any is parsed.
func parseJSONStream(set *Set, file string, data []byte) {
	type value struct {
		raw   json.RawMessage
		start int64
	}
	var values []value
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		before := dec.InputOffset()
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if len(values) == MaxDocuments {
			set.Documents += len(values) + 1
			set.Problems = append(set.Problems, Problem{Source: Source{File: file, Document: MaxDocuments}, Kind: LimitExceeded,
				Pos: offsetPos(data, before), Message: fmt.Sprintf(
					"the file holds more than %d JSON values (manifest.MaxDocuments); the file is not linted", MaxDocuments)})
			return
		}
		if err != nil && strings.Contains(err.Error(), "exceeded max depth") {
			// encoding/json stops at 10,000 levels, beyond MaxDepth.
			set.Documents++
			set.Problems = append(set.Problems, Problem{Source: Source{File: file, Document: len(values)}, Kind: LimitExceeded,
				Pos: offsetPos(data, before), Message: fmt.Sprintf(
					"document nests more than %d levels deep (manifest.MaxDepth); it is not linted, nor is the rest of the file", MaxDepth)})
			break
		}
		if err != nil {
			set.Documents++
			off := before
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &se):
				off = se.Offset
			case errors.As(err, &te):
				off = te.Offset
			}
			// The values before the error are still loaded.
			set.Problems = append(set.Problems, Problem{Source: Source{File: file, Document: len(values)}, Kind: Unparsable,
				Pos: offsetPos(data, off), Message: fmt.Sprintf("cannot parse JSON: %v (the rest of the file is not read)", err)})
			break
		}
		end := dec.InputOffset()
		values = append(values, value{raw: raw, start: end - int64(len(raw))})
	}
	for doc, v := range values {
		set.Documents++
		src := Source{File: file, Document: doc}
		pos := offsetPos(data, v.start)
		if off := jsonDepth(v.raw); off >= 0 {
			set.Problems = append(set.Problems, Problem{Source: src, Kind: LimitExceeded, Pos: offsetPos(data, v.start+int64(off)),
				Message: fmt.Sprintf("document nests more than %d levels deep (manifest.MaxDepth); it is not linted", MaxDepth)})
			continue
		}
		// Parse the value again with yaml.v3 for positions: pad it so that its
		// columns match the file's, and turn tabs (only ever white space in
		// valid JSON) into spaces, which YAML accepts anywhere.
		text := strings.Repeat(" ", pos.Column-1) + yamlSafeJSON(strings.ReplaceAll(string(v.raw), "\t", " "))
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(text), &root); err != nil {
			set.Problems = append(set.Problems, yamlProblem(src, chunk{text: []byte(text), startLine: pos.Line}, err))
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, v.raw); err != nil {
			set.Problems = append(set.Problems, Problem{Source: src, Kind: Unparsable, Pos: pos,
				Message: fmt.Sprintf("cannot parse JSON: %v", err)})
			continue
		}
		addDocument(set, src, &root, pos.Line-1, docJSON{js: compact.Bytes()})
	}
}

// yamlSafeJSON returns a JSON text that yaml.v3 parses to the same tree
// with the same positions: yaml.v3 knows every JSON escape but "\/" (an
// escaped slash, which JSON encoders such as PHP's write by default), so
// each is written as "/" and the column it frees is given back after the
// string's closing quote, where JSON allows white space.
func yamlSafeJSON(text string) string {
	if !strings.Contains(text, `\/`) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	inString, freed := false, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && c == '\\' && i+1 < len(text) && text[i+1] == '/':
			b.WriteByte('/')
			freed++
			i++
		case inString && c == '\\' && i+1 < len(text):
			b.WriteByte(c)
			b.WriteByte(text[i+1])
			i++
		case c == '"':
			b.WriteByte(c)
			if inString {
				b.WriteString(strings.Repeat(" ", freed))
				freed = 0
			}
			inString = !inString
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// offsetPos converts a byte offset in data to a line and column.
func offsetPos(data []byte, off int64) Pos {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return Pos{Line: line, Column: col}
}

// header is what loading reads of every object.
type header struct {
	APIVersion any `json:"apiVersion"`
	Kind       any `json:"kind"`
	Metadata   struct {
		Name         any `json:"name"`
		Namespace    any `json:"namespace"`
		GenerateName any `json:"generateName"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// addDocument records a parsed document: an object, the items of a List, or a
// skipped non-Kubernetes document.
func addDocument(set *Set, src Source, root *yaml.Node, lineOffset int, d docJSON) {
	node := root
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	start := Pos{Line: node.Line + lineOffset, Column: node.Column}
	if node.Kind != yaml.MappingNode {
		set.Skipped = append(set.Skipped, Skipped{Source: src, Pos: start, Reason: "not a Kubernetes object (not a mapping)"})
		return
	}
	var h header
	if d.fromTree && treeHeader(node, &h) {
		h.Items = d.items
	} else {
		// A header that does not decode (metadata as a list, say) still
		// names the kind; the API tier reports the decoding error itself.
		// encoding/json fills every field it can and reports only the first
		// mismatch, so the error is not needed here.
		h = header{}
		_ = json.Unmarshal(d.js, &h)
	}
	apiVersion, kind := str(h.APIVersion), str(h.Kind)
	if apiVersion == "" || kind == "" {
		set.Skipped = append(set.Skipped, Skipped{Source: src, Pos: start, Reason: "not a Kubernetes object (no apiVersion or kind)"})
		return
	}
	if itemsNode := mappingValue(node, "items"); strings.HasSuffix(kind, "List") && itemsNode != nil && itemsNode.Kind == yaml.SequenceNode {
		for i, item := range itemsNode.Content {
			if i >= len(h.Items) {
				break
			}
			before := len(set.Objects)
			addObject(set, src, i, item, lineOffset, h.Items[i], nil, d.fromTree)
			if len(set.Objects) == before {
				set.Skipped[len(set.Skipped)-1].Reason += fmt.Sprintf(" (item %d of %s)", i, kind)
			}
		}
		return
	}
	addObject(set, src, -1, node, lineOffset, d.js, &h, d.fromTree)
}

// addObject records one object (a document, or a List item). h is the
// object's header when the caller has decoded it already; fromTree is set
// when treeJSON wrote js from node, so that treeHeader may read the header.
func addObject(set *Set, src Source, item int, node *yaml.Node, lineOffset int, js []byte, h *header, fromTree bool) {
	start := Pos{Line: node.Line + lineOffset, Column: node.Column}
	if node.Kind != yaml.MappingNode {
		set.Skipped = append(set.Skipped, Skipped{Source: src, Pos: start, Reason: "not a Kubernetes object (not a mapping)"})
		return
	}
	if h == nil {
		h = &header{}
		if !fromTree || !treeHeader(node, h) {
			*h = header{}
			_ = json.Unmarshal(js, h) // see addDocument
		}
	}
	if str(h.APIVersion) == "" || str(h.Kind) == "" {
		set.Skipped = append(set.Skipped, Skipped{Source: src, Pos: start, Reason: "not a Kubernetes object (no apiVersion or kind)"})
		return
	}
	d := &dupFinder{lineOffset: lineOffset}
	d.walk(node)
	set.Objects = append(set.Objects, &Object{
		Source:       src,
		Item:         item,
		APIVersion:   str(h.APIVersion),
		Kind:         str(h.Kind),
		Namespace:    str(h.Metadata.Namespace),
		Name:         str(h.Metadata.Name),
		GenerateName: str(h.Metadata.GenerateName),
		JSON:         js,
		Start:        start,
		node:         node,
		lineOffset:   lineOffset,
		Duplicates:   d.dups,
	})
}
