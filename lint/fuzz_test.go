package lint_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// FuzzLintDocument runs the whole lint pipeline (load, API tier, Rego rules,
// governance) on arbitrary bytes given as standard input. It must never panic
// or fail as a tool, and every finding must name the input and a line in it.
func FuzzLintDocument(f *testing.F) {
	for _, dir := range []string{"../examples", "../testdata/hostile", "../internal/manifest/testdata"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				f.Add(data)
			}
			return nil
		})
		if err != nil {
			f.Fatalf("seed corpus %s: %v", dir, err)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte(" \n\t\n"))
	l, err := lint.New(lint.Config{})
	if err != nil {
		f.Fatalf("lint.New: %v", err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res := l.Run(context.Background(), lint.Options{Paths: []string{"-"}, Stdin: bytes.NewReader(data)})
		if len(bytes.TrimSpace(data)) == 0 {
			// The one documented error: empty standard input is almost
			// always a failed command before the pipe (exit 2).
			if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), "standard input is empty") || len(res.Findings) != 0 {
				t.Errorf("Run(%q) = errors %v, findings %v, want the one error that standard input is empty", data, res.Errors, res.Findings)
			}
			return
		}
		if len(res.Errors) > 0 {
			t.Errorf("Run() errors = %v, want none for any input but an empty one", res.Errors)
		}
		// Lines as YAML counts them: CR LF, LF, a lone CR, NEL, LS and PS.
		lines := 1
		for i, r := range string(data) {
			switch {
			case r == '\n' && (i == 0 || data[i-1] != '\r'), r == '\r', r == '\u0085', r == '\u2028', r == '\u2029':
				lines++
			}
		}
		for _, f := range res.Findings {
			if f.File != manifest.StdinName || f.Rule == "" || f.Message == "" {
				t.Errorf("finding %+v: want file %s, a rule and a message", f, manifest.StdinName)
			}
			if f.Line < 1 || f.Line > lines || f.Column < 1 {
				t.Errorf("finding %+v: position %d:%d outside the input's %d lines", f, f.Line, f.Column, lines)
			}
		}
	})
}
