//go:build linux

package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular checks the plain-system-call path: it reads a regular
// file whole, refuses one over the limit, and hands anything else back to
// readOpened.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	content := strings.Repeat("kind: ConfigMap\n", 300) // over one growth step
	if err := os.WriteFile(small, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	data, handled, err := readRegular(small, int64(len(content)))
	if string(data) != content || !handled || err != nil {
		t.Errorf("readRegular(small) = %d bytes, %v, %v, want %d bytes, true, nil", len(data), handled, err, len(content))
	}
	_, handled, err = readRegular(small, int64(len(content))-1)
	var tl *TooLargeError
	if !handled || !errors.As(err, &tl) || tl.Size != int64(len(content)) {
		t.Errorf("readRegular(small, limit-1) = %v, %v, want a *TooLargeError of size %d", handled, err, len(content))
	}
	for _, p := range []string{fifo, dir} {
		if _, handled, err := readRegular(p, 100); handled || err != nil {
			t.Errorf("readRegular(%s) = %v, %v, want false, nil", p, handled, err)
		}
	}
	_, handled, err = readRegular(filepath.Join(dir, "missing.yaml"), 100)
	if !handled || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("readRegular(missing) = %v, %v, want true, not exist", handled, err)
	}
}
