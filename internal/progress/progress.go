// Package progress shows how a long run is going, on one line of standard error that
// is rewritten in place, and only where a person watches it: a terminal, outside CI, for
// text output. In a pipe, a CI log or with -o json nothing is written, so that what is
// captured is only the report.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// interval is how often the line may change: often enough to look alive, rarely enough
// that writing it costs nothing beside the work.
const interval = 100 * time.Millisecond

// Reporter writes the progress line. A nil *Reporter, which New returns where progress is
// off, does nothing, so callers need no checks. It is safe for concurrent use.
type Reporter struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	last  time.Time
	shown bool
}

// New returns a Reporter writing to errOut, or nil unless Enabled(errOut, output).
func New(errOut io.Writer, output string) *Reporter {
	if !Enabled(errOut, output, os.Getenv) {
		return nil
	}
	return &Reporter{w: errOut, now: time.Now}
}

// Enabled reports whether progress shows: errOut is a terminal, the output format is
// text, and neither CI (set by GitHub Actions, GitLab CI, Jenkins' plugins, and most
// others) nor TERM=dumb says no one watches it live.
func Enabled(errOut io.Writer, output string, getenv func(string) string) bool {
	if output != "" && output != "text" {
		return false
	}
	if getenv("CI") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := errOut.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Printf replaces the line with the formatted text, unless the line changed less than
// interval ago (the next change shows).
func (r *Reporter) Printf(format string, args ...any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.shown && now.Sub(r.last) < interval {
		return
	}
	r.last, r.shown = now, true
	fmt.Fprintf(r.w, "\r\x1b[K%s", fmt.Sprintf(format, args...))
}

// Done clears the line, so that what follows starts on a clean one.
func (r *Reporter) Done() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shown {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.shown = false
	}
}

// Files is lint's progress (lint.Options.Progress): inputs read of how many, objects
// linted.
func (r *Reporter) Files(done, total, objects int) {
	r.Printf("%d of %d files read, %d objects linted", done, total, objects)
}

// Listing is a live run's progress (live.Client.Progress): the kind it lists.
func (r *Reporter) Listing(what string) {
	r.Printf("listing %s", what)
}

// Runs is predict --runs' progress (runner.Request.Progress): simulations done of how
// many. The last run clears the line, as the report follows it.
func (r *Reporter) Runs(done, total int) {
	if done >= total {
		r.Done()
		return
	}
	r.Printf("%d of %d runs simulated", done, total)
}
