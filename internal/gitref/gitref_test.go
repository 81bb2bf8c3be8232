package gitref

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/testkit"
)

// repo makes a git repository in a temporary directory with one commit
// holding a.yaml, then changes a.yaml and adds b.yaml in the work tree.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) { testkit.Git(t, dir, args...) }
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	write("deploy/a.yaml", "old\n")
	run("add", ".")
	run("commit", "-q", "-m", "one")
	write("deploy/a.yaml", "new\n")
	write("deploy/b.yaml", "added\n")
	return dir
}

func TestRead(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "c.yaml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		ref     string
		path    string
		want    string
		wantErr error
	}{
		{name: "changed file at HEAD", dir: dir, ref: "HEAD", path: filepath.Join(dir, "deploy/a.yaml"), want: "old\n"},
		{name: "branch name", dir: dir, ref: "main", path: filepath.Join(dir, "deploy/a.yaml"), want: "old\n"},
		{name: "new file", dir: dir, ref: "HEAD", path: filepath.Join(dir, "deploy/b.yaml"), wantErr: ErrNotAtRef},
		{name: "unknown ref", dir: dir, ref: "no-such-branch", path: filepath.Join(dir, "deploy/a.yaml"), wantErr: ErrUnknownRef},
		{name: "ref that looks like an option", dir: dir, ref: "--output=/tmp/x", path: filepath.Join(dir, "deploy/a.yaml"), wantErr: ErrUnknownRef},
		{name: "path outside the repository", dir: dir, ref: "HEAD", path: filepath.Join(outside, "c.yaml"), wantErr: ErrNotRepository},
		{name: "directory outside any repository", dir: outside, ref: "HEAD", path: filepath.Join(outside, "c.yaml"), wantErr: ErrNotRepository},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(ctx, tt.dir, tt.ref, tt.path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Read(%q, %q) error = %v, want %v", tt.ref, tt.path, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Read(%q, %q) = %q, %v, want %q", tt.ref, tt.path, got, err, tt.want)
			}
		})
	}
}

func TestReadRelativePath(t *testing.T) {
	dir := repo(t)
	t.Chdir(filepath.Join(dir, "deploy"))
	got, err := Read(context.Background(), ".", "HEAD", "a.yaml")
	if err != nil || string(got) != "old\n" {
		t.Fatalf(`Read(".", "HEAD", "a.yaml") = %q, %v, want "old\n"`, got, err)
	}
}
