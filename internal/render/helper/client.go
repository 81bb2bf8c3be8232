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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// Name is the helper's executable name (with .exe on Windows). It must not
// start with "kubectl-": kubectl takes every such executable on PATH for a
// plugin, so kubectl-workload-render made `kubectl workload render` a command
// (offered by completion, silent when run). The underscore keeps it beside
// kubectl-workload in a listing, as kubectl's own kubectl_complete-NAME
// convention does.
const Name = "kubectl_workload-render"

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
	Root     string           `json:"root,omitempty"` // the input Dir was found in (manifest.RootedRenderer)
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

// Renderer renders charts and kustomizations in helper processes, as many
// as there are CPUs at most, started as renders need them. It implements
// manifest.Renderer and is safe for concurrent use. Close ends the helpers.
type Renderer struct {
	opts Options

	mu   sync.Mutex
	cond *sync.Cond // signalled when a helper goes idle
	idle []*process
	all  []*process
	max  int
	err  error // why a helper could not start: every render reports it
}

// SetClusterAPIVersions sets Options.ClusterAPIVersions, the target
// cluster's discovery, for the charts rendered from now on: a caller that
// learns it is live only after building the Renderer calls it before the
// first Render. Helpers already started keep the versions they have.
func (r *Renderer) SetClusterAPIVersions(vs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.ClusterAPIVersions = vs
}

// New returns a Renderer with opts (see Check). A helper starts on the
// first Render.
func New(opts Options) (*Renderer, error) {
	opts, err := Check(opts)
	if err != nil {
		return nil, err
	}
	r := &Renderer{opts: opts, max: max(1, runtime.GOMAXPROCS(0))}
	r.cond = sync.NewCond(&r.mu)
	return r, nil
}

// process is one helper. Its requests take turns (mu): a render, and later
// the locate requests about what it rendered.
type process struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
	err error // set once it broke or was closed

	stderr  *tailBuffer   // what it wrote on its standard error
	timeout time.Duration // a render's limit (Limits.Timeout)

	waited  sync.Once
	waitErr error
}

// wait waits for the helper to end, once.
func (p *process) wait() error {
	p.waited.Do(func() { p.waitErr = p.cmd.Wait() })
	return p.waitErr
}

// tailBuffer keeps the first max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// reason is the line of what a helper wrote on its standard error that
// says why it ended: the runtime's "fatal error: ..." or the helper's own
// limit message, else its first line.
func (b *tailBuffer) reason() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	first := ""
	for _, l := range strings.Split(string(b.buf), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "fatal error:"), strings.Contains(l, "limit exceeded"):
			return l
		case first == "" && l != "":
			first = l
		}
	}
	return first
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
			"a krew install and a release archive have it, or, from a clone of the repository: go install ./cmd/...)", name)
	}
	return p, nil
}

// start starts a helper.
func (r *Renderer) start() (*process, error) {
	path, err := Path()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	// The helper's standard error is kept, not shown: a helper that dies
	// (at its memory limit, of a stack overflow) is reported by the
	// directory it was rendering, with the reason it wrote, and without the
	// runtime's goroutine dump (GOTRACEBACK=none). PATH is left out: the
	// helper runs no program (render.Isolate).
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "GOTRACEBACK=")
	}), "GOTRACEBACK=none")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	p := &process{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out)), stderr: stderr, timeout: r.opts.Limits.Timeout}
	if err := p.enc.Encode(r.opts); err != nil { // r.mu is held (acquire)
		_ = in.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// acquire takes an idle helper, or starts one while there are fewer than
// max, or waits for one to go idle.
func (r *Renderer) acquire() (*process, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.err != nil {
			return nil, r.err
		}
		if n := len(r.idle); n > 0 {
			p := r.idle[n-1]
			r.idle = r.idle[:n-1]
			return p, nil
		}
		if len(r.all) < r.max {
			p, err := r.start()
			if err != nil {
				r.err = err
				r.cond.Broadcast()
				return nil, err
			}
			r.all = append(r.all, p)
			return p, nil
		}
		r.cond.Wait()
	}
}

// release makes p idle again.
func (r *Renderer) release(p *process) {
	r.mu.Lock()
	r.idle = append(r.idle, p)
	r.mu.Unlock()
	r.cond.Signal()
}

// drop forgets a broken helper and ends it.
func (r *Renderer) drop(p *process) {
	r.mu.Lock()
	r.all = slices.DeleteFunc(r.all, func(q *process) bool { return q == p })
	r.mu.Unlock()
	r.cond.Signal()
	_ = p.in.Close()
	go func() { _ = p.wait() }()
}

// StoppedError is a helper that ended while rendering: stopped at its time
// limit, at its memory limit, or by the Go runtime (a stack overflow).
type StoppedError struct {
	Reason string
}

func (e *StoppedError) Error() string { return "the helper stopped: " + e.Reason }

// call sends req to p and reads the response. A render that takes longer
// than p.timeout stops the helper.
func (p *process) call(req Request) (Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return Response{}, p.err
	}
	var timedOut atomic.Bool
	if req.Op == "render" && p.timeout > 0 {
		t := time.AfterFunc(p.timeout, func() {
			timedOut.Store(true)
			_ = p.cmd.Process.Kill()
		})
		defer t.Stop()
	}
	var resp Response
	err := p.enc.Encode(req)
	if err == nil {
		err = p.dec.Decode(&resp)
	}
	if err == nil && resp.Error != "" {
		err = errors.New(resp.Error)
	}
	if err != nil {
		switch {
		case timedOut.Load():
			err = &StoppedError{Reason: fmt.Sprintf("rendering took longer than %s, the limit", p.timeout)}
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE):
			_ = p.wait() // its standard error is complete once it has ended
			if why := p.stderr.reason(); why != "" {
				err = &StoppedError{Reason: why}
			} else {
				err = errors.New("the helper ended")
			}
		}
		p.err = fmt.Errorf("%s: %w", Name, err)
		return Response{}, p.err
	}
	return resp, nil
}

// Render implements manifest.Renderer: the helper renders dir, and the set
// is its stream parsed here, with the helper locating its fields.
func (r *Renderer) Render(dir string, kind manifest.DirKind) *manifest.Set {
	return r.RenderIn("", dir, kind)
}

// RenderIn implements manifest.RootedRenderer: Render, where the links of
// the chart in dir may lead anywhere in root, the input it was found in.
func (r *Renderer) RenderIn(root, dir string, kind manifest.DirKind) *manifest.Set {
	p, err := r.acquire()
	var resp Response
	if err == nil {
		if resp, err = p.call(Request{Op: "render", Dir: dir, Root: root, Kind: kind}); err != nil {
			r.drop(p) // broken: a later render starts another
		} else {
			r.release(p)
		}
	}
	var stopped *StoppedError
	if errors.As(err, &stopped) {
		// The input is what broke the helper: a finding of that
		// directory, and the other files are still linted.
		return &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.LimitExceeded,
			Pos: manifest.Pos{Line: 1, Column: 1}, Message: fmt.Sprintf("%s: rendering this %s was stopped: %s", dir, kind, stopped.Reason)}}}
	}
	if err != nil {
		return &manifest.Set{Files: 1, Problems: []manifest.Problem{{Source: manifest.Source{File: dir}, Kind: manifest.Unreadable,
			Pos: manifest.Pos{Line: 1, Column: 1}, Message: fmt.Sprintf("%s: cannot render this %s directory: %v", dir, kind, err)}}}
	}
	var warnings []string
	for _, w := range resp.Warnings {
		// "# Warning: 'bases' is deprecated. ..." as kustomize build prints it,
		// without the overlay it is about.
		warnings = append(warnings, fmt.Sprintf("%s: %s: %s", dir, kind, strings.TrimPrefix(w, "# Warning: ")))
	}
	if f := resp.Failed; f != nil {
		return &manifest.Set{Files: f.Files, Documents: f.Documents, Skipped: f.Skipped, Problems: f.Problems, Warnings: warnings}
	}
	set := manifest.Parse(resp.Name, resp.Stream)
	set.Warnings = warnings
	if resp.Origin {
		if set.Origins == nil {
			set.Origins = map[string]manifest.Origin{}
		}
		set.Origins[resp.Name] = &origin{p: p, name: resp.Name}
	}
	return set
}

// origin locates the fields of one rendered file through the helper that
// rendered it.
type origin struct {
	p    *process
	name string
}

// Locate implements manifest.Origin.
func (o *origin) Locate(document int, path string) (manifest.Location, bool) {
	resp, err := o.p.call(Request{Op: "locate", Name: o.name, Document: document, Path: path})
	if err != nil {
		return manifest.Location{}, false
	}
	return resp.Loc, resp.OK
}

// Close ends the helpers that started.
func (r *Renderer) Close() error {
	r.mu.Lock()
	all := r.all
	r.all, r.idle, r.err = nil, nil, errors.New("closed")
	r.mu.Unlock()
	r.cond.Broadcast()
	var errs []error
	for _, p := range all {
		p.mu.Lock()
		p.err = errors.New("closed")
		_ = p.in.Close()
		errs = append(errs, p.wait())
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}
