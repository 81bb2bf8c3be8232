//go:build linux

package boundedread

import (
	"io/fs"
	"syscall"
)

// readRegular reads name with plain system calls when the open file is a
// regular file of at most limit bytes, and reports handled false otherwise,
// leaving it to readOpened (an *os.File) to find and describe what it is.
//
// Why not os.Open: an *os.File opened with O_NONBLOCK is offered to the
// runtime's poller, and for a regular file epoll_ctl refuses it (EPERM),
// one wasted system call a file; the *os.File also carries a cleanup for
// the collector. A run over a repository reads thousands of small files,
// so this path keeps to open, fstat, read and close.
func readRegular(name string, limit int64) (data []byte, handled bool, err error) {
	var fd int
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, true, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, true, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, false, nil
	}
	if st.Size > limit {
		return nil, true, &TooLargeError{Name: name, Size: st.Size, Limit: limit}
	}
	// Room for the whole file and one byte more, so that the read ends
	// without growing the buffer; never more than limit+1 bytes in all.
	buf := make([]byte, 0, st.Size+1)
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if over := int64(len(buf)) + int64(len(room)) - (limit + 1); over > 0 {
			room = room[:int64(len(room))-over]
		}
		n, err := syscall.Read(fd, room)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, true, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	if int64(len(buf)) > limit {
		return nil, true, &TooLargeError{Name: name, Size: -1, Limit: limit}
	}
	return buf, true, nil
}
