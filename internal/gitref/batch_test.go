package gitref

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// TestReader reads through one git cat-file --batch per work tree what Read reads with a
// process per file: the same contents (framing kept across answers whatever the bytes: no
// trailing newline, a line that looks like an answer, spaces in the name), the same errors, and
// a nested repository's files from that repository.
func TestReader(t *testing.T) {
	dir := repo(t)
	files := map[string]string{
		"deploy/no-newline.yaml":   "kind: x",
		"deploy/answer-like.yaml":  "0123 blob 5\nHEAD:deploy/a.yaml missing\n",
		"deploy/with space.yaml":   "spaced\n",
		"deploy/empty.yaml":        "",
		"nested/sub/inner.yaml":    "inner at its own HEAD\n",
		"deploy/dir/one.yaml":      "one\n",
		"deploy/binary.bin":        "\x00\x01\n\n\xff",
		"deploy/nested-later.yaml": "x\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// nested/ is a repository of its own inside the outer one's work tree.
	nested := filepath.Join(dir, "nested")
	testkit.Git(t, nested, "init", "-q", "-b", "main")
	testkit.Git(t, nested, "add", ".")
	testkit.Git(t, nested, "commit", "-q", "-m", "inner")
	if err := os.WriteFile(filepath.Join(nested, "sub/inner.yaml"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var added []string
	for name := range files {
		if strings.HasPrefix(name, "deploy/") {
			added = append(added, name)
		}
	}
	testkit.Git(t, dir, append([]string{"add", "--"}, added...)...)
	testkit.Git(t, dir, "commit", "-q", "-m", "two")
	for name := range files {
		if strings.HasPrefix(name, "deploy/") {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("changed in the work tree\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	outside := t.TempDir()
	tests := []struct {
		name    string
		ref     string
		path    string
		want    string
		wantErr error
		// wantMsg is part of the error's text when wantErr is nil and an error is expected.
		wantMsg string
	}{
		{name: "changed file", ref: "HEAD", path: "deploy/a.yaml", want: "old\n"},
		{name: "no trailing newline", ref: "HEAD", path: "deploy/no-newline.yaml", want: "kind: x"},
		{name: "content that looks like answers", ref: "HEAD", path: "deploy/answer-like.yaml", want: files["deploy/answer-like.yaml"]},
		{name: "space in the name", ref: "HEAD", path: "deploy/with space.yaml", want: "spaced\n"},
		{name: "empty file", ref: "HEAD", path: "deploy/empty.yaml", want: ""},
		{name: "binary", ref: "HEAD", path: "deploy/binary.bin", want: files["deploy/binary.bin"]},
		{name: "subdirectory", ref: "HEAD", path: "deploy/dir/one.yaml", want: "one\n"},
		{name: "not at the older ref", ref: "HEAD~1", path: "deploy/no-newline.yaml", wantErr: ErrNotAtRef},
		{name: "older ref", ref: "HEAD~1", path: "deploy/a.yaml", want: "old\n"},
		{name: "new file at the older ref", ref: "HEAD~1", path: "deploy/b.yaml", wantErr: ErrNotAtRef},
		{name: "new file", ref: "HEAD", path: "deploy/b.yaml", wantErr: ErrNotAtRef},
		{name: "a directory", ref: "HEAD", path: "deploy/dir", wantMsg: "is a tree, not a file"},
		{name: "nested repository", ref: "HEAD", path: "nested/sub/inner.yaml", want: "inner at its own HEAD\n"},
		{name: "unknown ref", ref: "no-such-branch", path: "deploy/a.yaml", wantErr: ErrUnknownRef},
		{name: "outside any repository", ref: "HEAD", path: filepath.Join(outside, "c.yaml"), wantErr: ErrNotRepository},
	}
	readers := map[string]*Reader{}
	defer func() {
		for ref, r := range readers {
			if err := r.Close(); err != nil {
				t.Errorf("Reader(%s).Close() = %v", ref, err)
			}
		}
	}()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := readers[tt.ref]
			if !ok {
				r = NewReader(context.Background(), tt.ref)
				readers[tt.ref] = r
			}
			path := tt.path
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			got, err := r.Read(path)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Reader(%q).Read(%q) error = %v, want %v", tt.ref, tt.path, err, tt.wantErr)
				}
			case tt.wantMsg != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("Reader(%q).Read(%q) error = %v, want one containing %q", tt.ref, tt.path, err, tt.wantMsg)
				}
			default:
				if err != nil || string(got) != tt.want {
					t.Fatalf("Reader(%q).Read(%q) = %q, %v, want %q", tt.ref, tt.path, got, err, tt.want)
				}
				// Read, one process per file, agrees.
				if old, err := Read(context.Background(), filepath.Dir(path), tt.ref, path); err != nil || string(old) != tt.want {
					t.Errorf("Read(%q, %q) = %q, %v; the Reader read %q", tt.ref, tt.path, old, err, got)
				}
			}
		})
	}
	// One batch per work tree and revision: the outer and the nested repository at HEAD.
	if n := len(readers["HEAD"].roots); n != 2 {
		t.Errorf("Reader(HEAD) runs %d git cat-file processes, want 2 (the outer and the nested work tree)", n)
	}
}
