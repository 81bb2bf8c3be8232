//go:build unix

package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small.yaml", "a: 1\n")
	big := write("big.yaml", strings.Repeat("x", 101))
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	if err := syscall.Mknod(sock, syscall.S_IFSOCK|0o600, 0); err != nil {
		sock = "" // not every file system makes socket nodes
	}
	tests := []struct {
		name, path string
		want       string // "" for success; a part of the error otherwise
	}{
		{name: "regular", path: small},
		{name: "symlink to regular", path: link("small-link.yaml", small)},
		{name: "too large", path: big, want: "big.yaml is 101 bytes, more than 100; it is not read"},
		{name: "fifo", path: fifo, want: "fifo.yaml is a named pipe (FIFO), not a regular file"},
		{name: "symlink to fifo", path: link("fifo-link.yaml", fifo), want: "fifo-link.yaml is a named pipe (FIFO), not a regular file"},
		{name: "dev zero", path: "/dev/zero", want: "/dev/zero is a character device, not a regular file"},
		{name: "symlink to dev zero", path: link("zero.yaml", "/dev/zero"), want: "zero.yaml is a character device, not a regular file"},
		{name: "directory", path: dir, want: "is a directory, not a regular file"},
		{name: "socket", path: sock, want: "is a socket, not a regular file"},
	}
	// ReadListedFile, which leaves out the check before the open, finds
	// the same on the open file; only a socket, which no listing gives as
	// a regular file, cannot be opened to be looked at.
	for _, read := range []struct {
		name string
		fn   func(string, int64) ([]byte, error)
	}{{"ReadFile", ReadFile}, {"ReadListedFile", ReadListedFile}} {
		for _, tt := range tests {
			if read.name == "ReadListedFile" && tt.name == "socket" {
				continue
			}
			testRead(t, read.name, read.fn, tt.name, tt.path, tt.want)
		}
	}
}

// testRead runs one case of TestReadFile.
func testRead(t *testing.T, readName string, read func(string, int64) ([]byte, error), name, path, want string) {
	t.Helper()
	tt := struct{ path, want string }{path, want}
	t.Run(readName+"/"+name, func(t *testing.T) {
		{
			if tt.path == "" {
				t.Skip("no socket node")
			}
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				defer close(done)
				data, err = read(tt.path, 100)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFile(%s) still blocked after 5s", tt.path)
			}
			if tt.want == "" {
				if err != nil || string(data) != "a: 1\n" {
					t.Fatalf("ReadFile(%s) = %q, %v, want %q, nil", tt.path, data, err, "a: 1\n")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadFile(%s) error = %v, want it to contain %q", tt.path, err, tt.want)
			}
			var nr *NotRegularError
			var tl *TooLargeError
			if !errors.As(err, &nr) && !errors.As(err, &tl) {
				t.Errorf("ReadFile(%s) error %T is neither *NotRegularError nor *TooLargeError", tt.path, err)
			}
		}
	})
}

func TestInside(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(root, "in.yaml")
	if err := os.WriteFile(in, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"up", secret}, {"rel-up", "../" + filepath.Base(outside) + "/secret"}, {"same", "in.yaml"}} {
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		outside bool
	}{
		{"in.yaml", false}, {"same", false}, {"up", true}, {"rel-up", true},
	}
	for _, tt := range tests {
		err := Inside(root, filepath.Join(root, tt.name))
		var oe *OutsideError
		if got := errors.As(err, &oe); got != tt.outside || (!tt.outside && err != nil) {
			t.Errorf("Inside(root, %s) = %v, want outside %v", tt.name, err, tt.outside)
		}
	}
}
