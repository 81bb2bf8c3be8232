// Package gitref reads files as they were at a git revision, with the git
// command line: lint --base-ref (and predict --base-ref) compare each file
// with its version at that revision. It only reads; it never changes the
// repository, its index or its work tree.
package gitref

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// The failures a caller may want to tell apart (errors.Is).
var (
	// ErrNotRepository: the path is not inside a git work tree.
	ErrNotRepository = errors.New("not inside a git repository")
	// ErrUnknownRef: the revision does not name a commit.
	ErrUnknownRef = errors.New("unknown revision")
	// ErrNotAtRef: the file did not exist at the revision (a new file).
	ErrNotAtRef = errors.New("file does not exist at the revision")
)

// Repo is one git work tree.
type Repo struct {
	// Root is the work tree's top directory, with symbolic links resolved.
	Root string
}

// Open finds the git work tree that holds dir (git rev-parse
// --show-toplevel). Outside a work tree the error matches ErrNotRepository.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRepository)
	}
	root, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		return nil, fmt.Errorf("%s: git work tree: %w", dir, err)
	}
	return &Repo{Root: root}, nil
}

// Resolve returns the commit id that ref names (git rev-parse --verify
// REF^{commit}); an unknown ref matches ErrUnknownRef.
func (r *Repo) Resolve(ctx context.Context, ref string) (string, error) {
	if err := checkRef(ref); err != nil {
		return "", err
	}
	out, err := git(ctx, r.Root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q: %w", ref, ErrUnknownRef)
	}
	return strings.TrimSpace(string(out)), nil
}

// Read returns the content of path (absolute, or relative to the current
// directory) at ref: git show REF:RELPATH, where RELPATH is path relative to
// the work tree's root. A path outside the work tree matches
// ErrNotRepository; a file that ref does not have matches ErrNotAtRef; an
// unknown ref matches ErrUnknownRef.
func (r *Repo) Read(ctx context.Context, ref, path string) ([]byte, error) {
	rel, err := r.Rel(path)
	if err != nil {
		return nil, err
	}
	commit, err := r.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	// cat-file -e tells "missing at the revision" from other failures.
	if _, err := git(ctx, r.Root, "cat-file", "-e", commit+":"+rel); err != nil {
		return nil, fmt.Errorf("%s at %s: %w", path, ref, ErrNotAtRef)
	}
	out, err := git(ctx, r.Root, "cat-file", "blob", commit+":"+rel)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", path, ref, err)
	}
	return out, nil
}

// Rel returns path relative to the work tree's root, with forward slashes,
// as git names it in REF:PATH.
func (r *Repo) Rel(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	// Resolve links in the directory part only: the file itself may be
	// gone from the work tree and still exist at the revision.
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	rel, err := filepath.Rel(r.Root, filepath.Join(dir, filepath.Base(abs)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the git work tree %s: %w", path, r.Root, ErrNotRepository)
	}
	return filepath.ToSlash(rel), nil
}

// Read returns the content of path at ref in the git work tree that holds
// dir: Open(dir), then Repo.Read. See Repo.Read for the errors.
func Read(ctx context.Context, dir, ref, path string) ([]byte, error) {
	r, err := Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return r.Read(ctx, ref, path)
}

// checkRef refuses a ref git would take for an option.
func checkRef(ref string) error {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return fmt.Errorf("%q: %w", ref, ErrUnknownRef)
	}
	return nil
}

// git runs git in dir and returns its standard output; the error carries
// git's first line of standard error.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}
