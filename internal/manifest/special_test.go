//go:build unix

package manifest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

const specialConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"

// loadWithin runs Load, failing the test if it takes more than a few seconds
// (a FIFO opened for reading waits for a writer for ever).
func loadWithin(t *testing.T, paths []string) *Set {
	t.Helper()
	done := make(chan *Set, 1)
	go func() { done <- Load(paths, nil) }()
	select {
	case set := <-done:
		return set
	case <-time.After(10 * time.Second):
		t.Fatalf("Load(%v) still running after 10s", paths)
		return nil
	}
}

// TestLoadSpecialFiles names a FIFO, /dev/zero and links to them as
// manifests: each is a problem naming the file, and the good file beside
// them is still loaded.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(strings.ReplaceAll(specialConfigMap, "%s", "good")), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	set := loadWithin(t, []string{fifo, "/dev/zero", zeroLink, good})
	if len(set.Objects) != 1 || set.Objects[0].Name != "good" {
		t.Errorf("Load objects = %d, want only ConfigMap good", len(set.Objects))
	}
	want := map[string]string{
		fifo:        "is a named pipe (FIFO), not a regular file",
		"/dev/zero": "is a character device, not a regular file",
		zeroLink:    "is a character device, not a regular file",
	}
	for _, p := range set.Problems {
		if w, ok := want[p.File]; ok && p.Kind == Unreadable && strings.Contains(p.Message, w) && strings.Contains(p.Message, p.File) {
			delete(want, p.File)
		}
	}
	for file, w := range want {
		t.Errorf("Load problems = %+v, want an unreadable problem for %s saying it %s", set.Problems, file, w)
	}
}

// TestWalkReportsSymlinks walks a directory holding links to manifests
// inside it and outside it, to a FIFO and to nothing: the link to a file the
// walk does not read otherwise is linted under its own name; every other is
// a skipped input whose reason names its target, never dropped silently.
func TestWalkReportsSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	notes := filepath.Join(dir, "notes", "shared.yaml.txt") // no manifest's file ending: not walked
	for file, name := range map[string]string{filepath.Join(dir, "a.yaml"): "a", outside: "secret", notes: "shared"} {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(specialConfigMap, "%s", name)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"in.yaml": "a.yaml", "out.yaml": outside, "fifo.yml": fifo, "shared.yaml": "notes/shared.yaml.txt",
		"dangling.yaml": "nothing.yaml"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	set := loadWithin(t, []string{dir})
	var objects []string
	for _, o := range set.Objects {
		objects = append(objects, filepath.Base(o.File)+":"+o.Name)
	}
	sort.Strings(objects)
	if got, want := strings.Join(objects, " "), "a.yaml:a shared.yaml:shared"; got != want {
		t.Errorf("Load(%s) objects = %q, want %q", dir, got, want)
	}
	want := map[string]string{
		"in.yaml":       "a symbolic link to " + filepath.Join(dir, "a.yaml") + ", which is linted itself",
		"out.yaml":      "outside " + dir,
		"fifo.yml":      "outside " + dir,
		"dangling.yaml": "does not resolve",
	}
	for _, s := range set.Skipped {
		name := filepath.Base(s.File)
		if w, ok := want[name]; ok && strings.HasPrefix(s.Reason, linkSkipReason) && strings.Contains(s.Reason, w) {
			delete(want, name)
		}
	}
	for name, w := range want {
		t.Errorf("Load(%s) skipped = %+v, want %s skipped saying %q", dir, set.Skipped, name, w)
	}
	if len(set.Problems) != 0 {
		t.Errorf("Load(%s) problems = %+v, want none", dir, set.Problems)
	}
}
