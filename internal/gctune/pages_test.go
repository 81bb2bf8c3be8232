package gctune

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestReleasable(t *testing.T) {
	const exe = "/usr/local/bin/kubectl-workload"
	smaps := `00400000-02000000 r-xp 00000000 fe:00 42       ` + exe + `
Size:              28672 kB
Rss:               20000 kB
Anonymous:             0 kB
02000000-04000000 r--p 01c00000 fe:00 42       ` + exe + `
Size:              32768 kB
Anonymous:             0 kB
04000000-04100000 rw-p 03c00000 fe:00 42       ` + exe + `
Anonymous:           800 kB
04100000-04200000 r--p 03d00000 fe:00 42       ` + exe + `
Anonymous:             4 kB
04200000-04300000 rw-p 00000000 00:00 0 
Anonymous:          1024 kB
7f0000000000-7f0000001000 r-xp 00000000 fe:00 7        /usr/lib/other
Anonymous:             0 kB
7ffd00000000-7ffd00001000 r--p 00000000 00:00 0        [vvar]
`
	got, err := releasable(strings.NewReader(smaps), exe)
	if err != nil {
		t.Fatal(err)
	}
	want := []span{{0x400000, 0x2000000}, {0x2000000, 0x4000000}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("releasable(smaps) = %x, want %x (read-only mappings of the executable without anonymous pages)", got, want)
	}
}

// TestReleaseStartPages drops this test binary's read-only pages and checks
// that its file-backed resident set shrank, and that the code still runs.
func TestReleaseStartPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	before := rssFile(t)
	released, err := ReleaseStartPages()
	if err != nil {
		t.Fatalf("ReleaseStartPages() error %v", err)
	}
	after := rssFile(t)
	if released == 0 {
		t.Fatal("ReleaseStartPages() released nothing, want the test binary's text")
	}
	if after >= before {
		t.Errorf("RssFile %d kB after ReleaseStartPages, want less than %d kB before", after, before)
	}
	if got := Limit(Floor); got != Floor+Headroom { // code that runs after, faulted back in
		t.Errorf("Limit(Floor) = %d after releasing, want %d", got, Floor+Headroom)
	}
}

func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
