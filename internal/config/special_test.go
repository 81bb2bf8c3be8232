//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadSpecialFiles: a configuration that is /dev/zero, a FIFO, a link
// to either or larger than MaxFileSize is an error naming it, at once.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxFileSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{fifo, "fifo.yaml is a named pipe (FIFO), not a regular file"},
		{zero, "zero.yaml is a character device, not a regular file"},
		{"/dev/zero", "/dev/zero is a character device, not a regular file"},
		{big, "big.yaml is 1048578 bytes, more than 1048576"},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() {
			_, err := Load(tt.path)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%s) error = %v, want it to contain %q", tt.path, err, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) still running after 10s", tt.path)
		}
	}
}

// TestDiscoverRefusesLinkOut: an auto-discovered configuration that links
// out of the work tree is refused; one that links inside it is found.
func TestDiscoverRefusesLinkOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte("secret: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "app")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(sub, FileName)); err != nil {
		t.Fatal(err)
	}
	if p, err := Discover(sub); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("Discover(%s) = %q, %v, want an error saying the link leads outside", sub, p, err)
	}
	if err := os.WriteFile(filepath.Join(repo, "shared.yaml"), []byte("failOn: error\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(sub, FileName)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared.yaml", filepath.Join(sub, FileName)); err != nil {
		t.Fatal(err)
	}
	if p, err := Discover(sub); err != nil || p != filepath.Join(sub, FileName) {
		t.Errorf("Discover(%s) = %q, %v, want %s", sub, p, err, filepath.Join(sub, FileName))
	}
}
