package gctune

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ReleaseStartPages drops the executable's read-only pages from the
// process's resident set (madvise MADV_DONTNEED), after the package inits
// have run: what the rest of the run reads faults back in from the page
// cache, what only the inits read does not count in its peak RSS any more.
// It returns the bytes of address space released. A failure costs memory,
// not correctness: the pages stay mapped. Only pages that the file holds
// as they are mapped are dropped (releasable), so nothing is lost.
//
// Call it first in main, once; it is not safe to call while another
// goroutine maps or unmaps the executable (nothing in Go's runtime does).
func ReleaseStartPages() (int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("release start pages: %w", err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("release start pages: %w", err)
	}
	spans, err := releasable(f, exe)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("release start pages: read %s: %w", f.Name(), err)
	}
	var released int64
	for _, s := range spans {
		// The raw call: the range is an address of the process's own
		// mapping, read from smaps, not memory Go allocated.
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, s.start, s.end-s.start, unix.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("release start pages: madvise %#x-%#x: %w", s.start, s.end, errno)
		}
		released += int64(s.end - s.start)
	}
	return released, nil
}
