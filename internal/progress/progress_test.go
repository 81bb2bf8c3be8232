package progress

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestOffWhereNoOneWatches: not a terminal (a pipe, a buffer), CI, TERM=dumb or a
// machine format turn progress off, and a nil Reporter writes nothing.
func TestOffWhereNoOneWatches(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	var buf bytes.Buffer
	if Enabled(&buf, "text", env(nil)) {
		t.Errorf("Enabled(a buffer) = true, want false")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if Enabled(w, "text", env(nil)) {
		t.Errorf("Enabled(a pipe) = true, want false")
	}
	if p := New(w, "text"); p != nil {
		t.Errorf("New(a pipe) = %v, want nil", p)
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err == nil {
		defer tty.Close()
		for _, tt := range []struct {
			output string
			env    map[string]string
		}{
			{"json", nil}, {"sarif", nil}, {"text", map[string]string{"CI": "true"}}, {"text", map[string]string{"TERM": "dumb"}},
		} {
			if Enabled(tty, tt.output, env(tt.env)) {
				t.Errorf("Enabled(a terminal, -o %s, env %v) = true, want false", tt.output, tt.env)
			}
		}
		if !Enabled(tty, "text", env(nil)) {
			t.Errorf("Enabled(a terminal, -o text) = false, want true")
		}
	}
	var nilReporter *Reporter
	nilReporter.Printf("x %d", 1)
	nilReporter.Done()
}

// TestLineRewrittenAtMostTenTimesASecond: the line is replaced in place, changes inside
// the interval are dropped, and Done clears it.
func TestLineRewrittenAtMostTenTimesASecond(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	r := &Reporter{w: &buf, now: func() time.Time { return now }}
	r.Printf("%d files read", 1)
	now = now.Add(50 * time.Millisecond)
	r.Printf("%d files read", 2)
	now = now.Add(60 * time.Millisecond)
	r.Printf("%d files read", 3)
	r.Done()
	if got, want := buf.String(), "\r\x1b[K1 files read\r\x1b[K3 files read\r\x1b[K"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}
