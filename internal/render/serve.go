package render

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// Serve is the helper process's loop (kubectl_workload-render): it reads the
// Options, then answers helper.Requests on in with helper.Responses on out,
// one at a time, until in ends. It renders as Renderer.Render does, and
// keeps each rendered file's origin to answer the locate requests about it.
// It holds itself to the Options' memory limit (watchMemory): over it, it
// writes why to errOut and calls exit with ExitLimit.
func Serve(in io.Reader, out, errOut io.Writer, exit func(int)) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	var opts Options
	if err := dec.Decode(&opts); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("read options: %w", err)
	}
	// helm's libraries log through slog's default logger, whose output
	// was fixed at start-up: their warnings go where captureStderr looks,
	// to be reported with the directory rendered; their information
	// ("found symbolic link in path", for every linked library chart) is
	// dropped, as helm template drops it without --debug.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderrNow{}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	r, optsErr := New(opts)
	watchMemory(opts.Limits.Memory, errOut, exit)
	origins := map[string]manifest.Origin{}
	for {
		var req helper.Request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		}
		var resp helper.Response
		switch {
		case optsErr != nil:
			resp.Error = optsErr.Error()
		case req.Op == "render":
			var p rendered
			resp.Warnings = captureStderr(func() { p = r.render(req.Root, req.Dir, req.Kind) })
			if p.failed != nil {
				resp.Failed = &helper.FailedSet{Files: p.failed.Files, Documents: p.failed.Documents,
					Skipped: p.failed.Skipped, Problems: p.failed.Problems}
				break
			}
			resp.Name, resp.Stream, resp.Origin = p.name, p.stream, p.origin != nil
			if p.origin != nil {
				origins[p.name] = p.origin
			}
		case req.Op == "locate":
			if o, ok := origins[req.Name]; ok {
				resp.Loc, resp.OK = locate(o, req.Document, req.Path)
			}
		default:
			resp.Error = fmt.Sprintf("unknown request %q", req.Op)
		}
		if err := enc.Encode(resp); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// stderrNow writes to os.Stderr as it is at each write (captureStderr
// replaces it).
type stderrNow struct{}

func (stderrNow) Write(p []byte) (int, error) { return os.Stderr.Write(p) }

// locate is o.Locate, where a panic on a strange field is "not found".
func locate(o manifest.Origin, document int, path string) (loc manifest.Location, ok bool) {
	defer func() {
		if recover() != nil {
			loc, ok = manifest.Location{}, false
		}
	}()
	return o.Locate(document, path)
}

// captureStderr runs fn with os.Stderr going to a pipe, and returns the
// lines written there: the kustomize library prints its deprecation
// warnings to os.Stderr, without saying which overlay they are about, and
// the client prints them naming it. Serve renders one directory at a time,
// so nothing else writes to os.Stderr meanwhile.
func captureStderr(fn func()) []string {
	rd, wr, err := os.Pipe()
	if err != nil {
		fn()
		return nil
	}
	saved := os.Stderr
	os.Stderr = wr
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(rd)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				lines = append(lines, line)
			}
		}
	}()
	func() {
		defer func() {
			os.Stderr = saved
			_ = wr.Close()
		}()
		fn()
	}()
	// The lines are complete once the reader has seen the pipe close.
	<-done
	_ = rd.Close()
	return lines
}
