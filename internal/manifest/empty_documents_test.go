package manifest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEmptyDocumentsCount: a file of 4,000,000 "---" lines (16 MB) is over
// MaxDocuments, reported at the first document too many, and splitting it
// keeps no more than MaxDocuments chunks (it used to keep 4,000,000: 1 GB
// allocated). A file with a leading "---" and MaxDocuments documents is
// within the limit.
func TestEmptyDocumentsCount(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte(strings.Repeat("---\n", 4_000_000)), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := Load([]string{empty}, nil)
	runtime.ReadMemStats(&after)
	if len(s.Problems) != 1 || s.Problems[0].Kind != LimitExceeded || s.Problems[0].Pos.Line != maxChunks+1 {
		t.Fatalf("Load(4,000,000 separators) problems = %+v, want one %s at line %d", s.Problems, LimitExceeded, maxChunks+1)
	}
	if !strings.Contains(s.Problems[0].Message, "counting empty ones") {
		t.Errorf("message %q does not say empty documents count", s.Problems[0].Message)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("Load(4,000,000 separators) allocated %d MB, want under 100", alloc>>20)
	}

	var b strings.Builder
	b.WriteString("---\n")
	for range MaxDocuments {
		b.WriteString("a: 1\n---\n")
	}
	full := filepath.Join(dir, "full.yaml")
	if err := os.WriteFile(full, []byte(strings.TrimSuffix(b.String(), "---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := Load([]string{full}, nil); len(s.Problems) != 0 || s.Documents != MaxDocuments {
		t.Errorf("Load(%d documents after a leading ---) = %d documents, problems %+v, want no problem", MaxDocuments, s.Documents, s.Problems)
	}
}
