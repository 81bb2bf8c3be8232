package gitref

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestExtract: the tree at the ref, not the work tree, is written.
func TestExtract(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := r.Extract(ctx, "HEAD", dest); err != nil {
		t.Fatalf("Extract(HEAD): %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "deploy", "a.yaml")); err != nil || string(got) != "old\n" {
		t.Errorf("deploy/a.yaml = %q, %v; want the committed \"old\\n\"", got, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "deploy", "b.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deploy/b.yaml (not committed) was extracted: %v", err)
	}
	if err := r.Extract(ctx, "no-such-branch", t.TempDir()); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("Extract(no-such-branch) = %v, want ErrUnknownRef", err)
	}
}
