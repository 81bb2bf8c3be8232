package gctune

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// The binary's pages. A run's peak RSS counts the pages of the executable
// it has mapped, besides the heap: the package inits of the ~1,600 linked
// packages (Kubernetes' schemes, feature gates, OPA's AST) touch about
// 55 MB of the release binary's text and read-only data before main runs,
// most of which the run itself never reads again. ReleaseStartPages unmaps
// the read-only ones; what the run uses faults back in from the page cache
// (the file is not read again while it is cached), and the rest stays out
// of the process's resident set.

// span is an address range [start, end) of the process.
type span struct {
	start, end uintptr
}

// releasable returns the mappings of exe in smaps (the text of
// /proc/self/smaps) whose pages can be dropped and read again from the
// file: read-only (no 'w' in the permissions) and holding no anonymous
// page. A private mapping that was written before it was made read-only
// (relocations) holds anonymous copies of the file's pages, which dropping
// would lose; such a mapping is left out.
func releasable(smaps io.Reader, exe string) ([]span, error) {
	var out []span
	var cur *span // the mapping whose fields follow, if a candidate
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's header
			if cur != nil {
				out = append(out, *cur)
			}
			cur = nil
			// start-end perms offset dev inode path
			if len(fields) != 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
				continue
			}
			lo, hi, ok := strings.Cut(fields[0], "-")
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if !ok || err1 != nil || err2 != nil || end <= start {
				continue
			}
			cur = &span{start: uintptr(start), end: uintptr(end)}
			continue
		}
		if cur != nil && fields[0] == "Anonymous:" && (len(fields) < 2 || fields[1] != "0") {
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out, sc.Err()
}
