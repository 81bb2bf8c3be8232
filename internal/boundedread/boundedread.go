// Package boundedread reads files that come from the input under review (a
// repository's policies, configuration, manifests, chart and values files),
// where a file may be a FIFO that never ends, a device such as /dev/zero, a
// socket, or a symbolic link to one of them. Only regular files are read,
// never more than a limit, and opening one never blocks: a FIFO is refused
// before anything waits on it.
package boundedread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is the error for a path that is not a regular file once
// symbolic links are followed: a FIFO, a device, a socket or a directory.
type NotRegularError struct {
	Name string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; it is not read", e.Name, describe(e.Mode))
}

// describe names a file mode's type as a user would.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// TooLargeError is the error for a file over the limit it was read with.
// Size is the file's size, or -1 when it is known only to be over Limit.
type TooLargeError struct {
	Name        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s is larger than %d bytes; it is not read", e.Name, e.Limit)
	}
	return fmt.Sprintf("%s is %d bytes, more than %d; it is not read", e.Name, e.Size, e.Limit)
}

// Check returns a *NotRegularError unless name, with symbolic links
// followed, is a regular file, and a *TooLargeError if it is larger than
// limit. It opens nothing.
func Check(name string, limit int64) error {
	info, err := os.Stat(name)
	if err != nil {
		return err
	}
	return checkInfo(name, info, limit)
}

func checkInfo(name string, info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return &NotRegularError{Name: name, Mode: info.Mode()}
	}
	if info.Size() > limit {
		return &TooLargeError{Name: name, Size: info.Size(), Limit: limit}
	}
	return nil
}

// ReadFile reads the regular file name, of at most limit bytes. A path that
// is not a regular file once links are followed is a *NotRegularError, found
// before it is opened and checked again on the open file (it may have been
// replaced in between; the open does not block on a FIFO). A file larger
// than limit is a *TooLargeError, and is never read past limit+1 bytes even
// if it grows.
func ReadFile(name string, limit int64) ([]byte, error) {
	if err := Check(name, limit); err != nil {
		return nil, err
	}
	return readChecked(name, limit)
}

// ReadListedFile is ReadFile for a file that its directory's listing gave
// as a regular file, not a symbolic link (a directory walk's): that listing
// stands for the look before it is opened, and the open file is checked as
// ReadFile checks it. It saves a stat a file, a tenth of reading a
// directory of small manifests.
func ReadListedFile(name string, limit int64) ([]byte, error) {
	return readChecked(name, limit)
}

// readChecked is ReadFile past its first check.
func readChecked(name string, limit int64) ([]byte, error) {
	if data, handled, err := readRegular(name, limit); handled {
		return data, err
	}
	return readOpened(name, limit)
}

// readOpened is readChecked through an *os.File: for whatever readRegular
// leaves (a file that is not regular, described by checkInfo), and outside
// Linux.
func readOpened(name string, limit int64) ([]byte, error) {
	f, err := openNonBlocking(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkInfo(name, info, limit); err != nil {
		return nil, err
	}
	// Room for the whole file and one byte more, so that the read ends
	// without growing the buffer (as os.ReadFile does).
	data, err := readAll(make([]byte, 0, info.Size()+1), io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Name: name, Size: -1, Limit: limit}
	}
	return data, nil
}

// readAll appends what r holds to buf, as io.ReadAll does into a buffer it
// grows itself.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
