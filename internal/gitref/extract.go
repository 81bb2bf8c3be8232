package gitref

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxExtract bounds what Extract writes, so that a huge tree cannot fill
// the disk.
const maxExtract = 1 << 30

// Extract writes the work tree's files at ref into dest (git archive REF),
// so that a chart or kustomization, with the bases it names elsewhere in
// the tree, can be rendered as it was. Only regular files and directories
// are written; links and paths leaving dest are skipped.
func (r *Repo) Extract(ctx context.Context, ref, dest string) error {
	commit, err := r.Resolve(ctx, ref)
	if err != nil {
		return err
	}
	out, err := git(ctx, r.Root, "archive", "--format=tar", commit)
	if err != nil {
		return fmt.Errorf("git archive %s: %w", ref, err)
	}
	tr := tar.NewReader(bytes.NewReader(out))
	var written int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read git archive of %s: %w", ref, err)
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			continue
		}
		p := filepath.Join(dest, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return fmt.Errorf("extract %s: %w", ref, err)
			}
		case tar.TypeReg:
			if written += h.Size; written > maxExtract {
				return fmt.Errorf("extract %s: the tree is larger than %d bytes", ref, maxExtract)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("extract %s: %w", ref, err)
			}
			data, err := io.ReadAll(io.LimitReader(tr, h.Size))
			if err != nil {
				return fmt.Errorf("extract %s: %w", ref, err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return fmt.Errorf("extract %s: %w", ref, err)
			}
		}
	}
}
