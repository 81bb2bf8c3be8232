package helper

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/kubectl-workload/kubectl-workload/manifest"
)

// Name is the helper's executable name (with .exe on Windows).
const Name = "kubectl-workload-render"

// EnvPath names the environment variable that, when set, is the helper's
// path.
const EnvPath = "KUBECTL_WORKLOAD_RENDER"

// The protocol: the client writes its Options as one JSON value, then
// Requests, each answered by one Response, all JSON values on the helper's
// standard input and output. The helper ends at the end of its input.

// Request asks the helper to render a directory (Op "render": Dir, Kind) or
// to locate a field of a rendered document (Op "locate": Name, Document,
// Path; see manifest.Origin).
type Request struct {
	Op       string           `json:"op"`
	Dir      string           `json:"dir,omitempty"`
	Kind     manifest.DirKind `json:"kind,omitempty"`
	Name     string           `json:"name,omitempty"`
	Document int              `json:"document,omitempty"`
	Path     string           `json:"path,omitempty"`
}

// Response answers a Request. A render gives the rendered stream under
// Name, which the client parses as the helper would have (manifest.Parse),
// and Origin is set when its fields can be located; or else Failed, the
// set to report (no objects, the problem at the line to fix). A locate gives
// Loc and OK. Error is a failure of the helper itself.
type Response struct {
	Name   string            `json:"name,omitempty"`
	Stream []byte            `json:"stream,omitempty"`
	Origin bool              `json:"origin,omitempty"`
	Failed *FailedSet        `json:"failed,omitempty"`
	Loc    manifest.Location `json:"loc"`
	OK     bool              `json:"ok,omitempty"`
	Error  string            `json:"error,omitempty"`
	// Warnings are what the libraries printed while rendering (kustomize's
	// deprecation warnings).
	Warnings []string `json:"warnings,omitempty"`
}

// FailedSet is a manifest.Set without objects.
type FailedSet struct {
	Files     int                `json:"files,omitempty"`
	Documents int                `json:"documents,omitempty"`
	Skipped   []manifest.Skipped `json:"skipped,omitempty"`
	Problems  []manifest.Problem `json:"problems,omitempty"`
}

// Renderer renders charts and kustomizations in the helper process. It
// implements manifest.Renderer; it is safe for concurrent use (requests
// take turns). Close ends the helper.
type Renderer struct {
	opts Options

	mu      sync.Mutex
	started bool
	proc    *process
	err     error // why the helper could not start, or broke
}

// New returns a Renderer with opts (see Check). The helper starts on the
// first Render.
func New(opts Options) (*Renderer, error) {
	opts, err := Check(opts)
	if err != nil {
		return nil, err
	}
	return &Renderer{opts: opts}, nil
}

type process struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
}

// Path is where the helper is: $KUBECTL_WORKLOAD_RENDER, else beside this
// executable, else on PATH.
func Path() (string, error) {
	name := Name
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p := os.Getenv(EnvPath); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is neither beside this executable nor on PATH (it renders Helm charts and kustomizations; "+
			"a krew install and a release archive have it, or: go install github.com/kubectl-workload/kubectl-workload/cmd/%s@VERSION)", name, Name)
	}
	return p, nil
}

// start starts the helper; r.mu is held.
func (r *Renderer) start() {
	r.started = true
	path, err := Path()
	if err != nil {
		r.err = err
		return
	}
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		r.err = fmt.Errorf("start %s: %w", path, err)
		return
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.err = fmt.Errorf("start %s: %w", path, err)
		return
	}
	if err := cmd.Start(); err != nil {
		r.err = fmt.Errorf("start %s: %w", path, err)
		return
	}
	p := &process{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out))}
	if err := p.enc.Encode(r.opts); err != nil {
		r.err = fmt.Errorf("%s: %w", path, err)
		_ = in.Close()
		_ = cmd.Wait()
		return
	}
	r.proc = p
}

// call sends req and reads the response; r.mu is held.
func (r *Renderer) call(req Request) (Response, error) {
	if !r.started {
		r.start()
	}
	if r.err != nil {
		return Response{}, r.err
	}
	var resp Response
	err := r.proc.enc.Encode(req)
	if err == nil {
		err = r.proc.dec.Decode(&resp)
	}
	if err == nil && resp.Error != "" {
		err = errors.New(resp.Error)
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("the helper ended")
		}
		r.err = fmt.Errorf("%s: %w", Name, err)
		return Response{}, r.err
	}
	return resp, nil
}

// Render implements manifest.Renderer: the helper renders dir, and the set
// is its stream parsed here, with the helper locating its fields.
func (r *Renderer) Render(dir string, kind manifest.DirKind) *manifest.Set {
	r.mu.Lock()
	resp, err := r.call(Request{Op: "render", Dir: dir, Kind: kind})
	r.mu.Unlock()
	if err != nil {
		return &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.Unreadable,
			Pos: manifest.Pos{Line: 1, Column: 1}, Message: fmt.Sprintf("%s: cannot render this %s directory: %v", dir, kind, err)}}}
	}
	for _, w := range resp.Warnings {
		// "# Warning: 'bases' is deprecated. ..." as kustomize build prints it,
		// without the overlay it is about.
		fmt.Fprintf(os.Stderr, "warning: %s: %s: %s\n", dir, kind, strings.TrimPrefix(w, "# Warning: "))
	}
	if f := resp.Failed; f != nil {
		return &manifest.Set{Files: f.Files, Documents: f.Documents, Skipped: f.Skipped, Problems: f.Problems}
	}
	set := manifest.Parse(resp.Name, resp.Stream)
	if resp.Origin {
		if set.Origins == nil {
			set.Origins = map[string]manifest.Origin{}
		}
		set.Origins[resp.Name] = &origin{r: r, name: resp.Name}
	}
	return set
}

// origin locates the fields of one rendered file through the helper.
type origin struct {
	r    *Renderer
	name string
}

// Locate implements manifest.Origin.
func (o *origin) Locate(document int, path string) (manifest.Location, bool) {
	o.r.mu.Lock()
	defer o.r.mu.Unlock()
	resp, err := o.r.call(Request{Op: "locate", Name: o.name, Document: document, Path: path})
	if err != nil {
		return manifest.Location{}, false
	}
	return resp.Loc, resp.OK
}

// Close ends the helper, if it started.
func (r *Renderer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil {
		return nil
	}
	p := r.proc
	r.proc, r.err = nil, errors.New("closed")
	_ = p.in.Close()
	return p.cmd.Wait()
}
