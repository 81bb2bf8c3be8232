package gitref

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Reader reads files as they are at one revision, for a whole run: one `git cat-file --batch`
// process per work tree serves every file, where Read runs three or four git processes per
// file. The work tree of a directory is found once (git rev-parse --show-toplevel), and a
// directory under a known work tree's root without a .git entry on the way up belongs to it.
// A Reader is safe for concurrent use; Close ends its processes.
type Reader struct {
	ctx context.Context
	ref string

	mu sync.Mutex
	// repos are the work trees by directory; roots the batches by work tree root.
	repos map[string]*Repo
	roots map[string]*batch
}

// NewReader reads files at ref; its processes run until Close or until ctx ends.
func NewReader(ctx context.Context, ref string) *Reader {
	return &Reader{ctx: ctx, ref: ref, repos: map[string]*Repo{}, roots: map[string]*batch{}}
}

// Read returns the content of path at the Reader's revision, with Repo.Read's errors: a path
// outside a work tree matches ErrNotRepository, a file the revision does not have
// ErrNotAtRef, an unknown revision ErrUnknownRef.
func (r *Reader) Read(path string) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	repo, err := r.repoOf(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	rel, err := repo.Rel(abs)
	if err != nil {
		return nil, err
	}
	b, ok := r.roots[repo.Root]
	if !ok {
		b = &batch{repo: repo}
		b.commit, b.err = repo.Resolve(r.ctx, r.ref)
		if b.err == nil {
			b.err = b.start(r.ctx)
		}
		r.roots[repo.Root] = b
	}
	if b.err != nil {
		return nil, b.err
	}
	if strings.ContainsAny(rel, "\n\r") {
		// The batch protocol is line-based: such a name goes through Repo.Read.
		return repo.Read(r.ctx, r.ref, abs)
	}
	data, err := b.read(rel)
	if errors.Is(err, ErrNotAtRef) {
		return nil, fmt.Errorf("%s at %s: %w", path, r.ref, ErrNotAtRef)
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", path, r.ref, err)
	}
	return data, nil
}

// repoOf finds the work tree of dir: a known one when dir lies under its root with no .git
// entry (a nested repository or submodule) between them, else git rev-parse.
func (r *Reader) repoOf(dir string) (*Repo, error) {
	if repo, ok := r.repos[dir]; ok {
		return repo, nil
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		resolved = dir
	}
	for d := resolved; ; d = filepath.Dir(d) {
		if b, ok := r.roots[d]; ok {
			r.repos[dir] = b.repo
			return b.repo, nil
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			break
		}
	}
	repo, err := Open(r.ctx, dir)
	if err != nil {
		return nil, err
	}
	r.repos[dir] = repo
	return repo, nil
}

// Close ends the Reader's git processes and reports the first failure among them.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, b := range r.roots {
		errs = append(errs, b.close())
	}
	r.roots = map[string]*batch{}
	return errors.Join(errs...)
}

// batch is one `git cat-file --batch` process of a work tree, and the commit it reads.
type batch struct {
	repo   *Repo
	commit string
	// err is why the batch cannot serve (an unknown ref, git failing to start).
	err    error
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
}

func (b *batch) start(ctx context.Context) error {
	b.cmd = exec.CommandContext(ctx, "git", "cat-file", "--batch")
	b.cmd.Dir = b.repo.Root
	b.cmd.Stderr = &b.stderr
	in, err := b.cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	if err := b.cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	b.stdin, b.stdout = in, bufio.NewReader(out)
	return nil
}

// read asks for COMMIT:REL and reads git's answer: "<oid> blob <size>\n<content>\n", or
// "<name> missing\n" (ErrNotAtRef). Anything else (a tree, an ambiguous name) is an error; a
// broken answer stops the batch.
func (b *batch) read(rel string) ([]byte, error) {
	name := b.commit + ":" + rel
	if _, err := io.WriteString(b.stdin, name+"\n"); err != nil {
		return nil, b.fail(err)
	}
	header, err := b.stdout.ReadString('\n')
	if err != nil {
		return nil, b.fail(err)
	}
	header = strings.TrimSuffix(header, "\n")
	if header == name+" missing" {
		return nil, ErrNotAtRef
	}
	if strings.HasSuffix(header, " ambiguous") {
		return nil, fmt.Errorf("git cat-file: %s", header)
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return nil, b.fail(fmt.Errorf("unexpected answer %q", header))
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return nil, b.fail(fmt.Errorf("unexpected answer %q", header))
	}
	// The content and its newline are read whatever the type, so the next answer lines up.
	data := make([]byte, size+1)
	if _, err := io.ReadFull(b.stdout, data); err != nil {
		return nil, b.fail(err)
	}
	if fields[1] != "blob" {
		return nil, fmt.Errorf("%s is a %s, not a file", rel, fields[1])
	}
	return data[:size], nil
}

// fail stops the batch after a broken exchange and returns the error, with git's first line
// of standard error when it wrote one.
func (b *batch) fail(err error) error {
	if b.cmd != nil && b.cmd.Process != nil {
		// git may be blocked writing an answer nobody reads: it is not waited for otherwise.
		_ = b.cmd.Process.Kill()
	}
	_ = b.close()
	if msg, _, _ := strings.Cut(strings.TrimSpace(b.stderr.String()), "\n"); msg != "" {
		err = fmt.Errorf("%w: %s", err, msg)
	}
	b.err = fmt.Errorf("git cat-file --batch: %w", err)
	return b.err
}

// close ends the process: git exits when its standard input closes.
func (b *batch) close() error {
	if b.cmd == nil || b.cmd.Process == nil {
		return nil
	}
	cmd := b.cmd
	b.cmd = nil
	_ = b.stdin.Close()
	if err := cmd.Wait(); err != nil && b.err == nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	return nil
}
