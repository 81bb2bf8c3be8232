//go:build unix

package bench

import (
	"runtime"
	"syscall"
	"time"
)

// maxRSS returns the process's peak resident set size in bytes, as
// getrusage(2) reports it, or 0 when it cannot be read.
func maxRSS() uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss <= 0 {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss) // bytes
	}
	return uint64(ru.Maxrss) * 1024 // kilobytes
}

// cpuTime returns the CPU time (user and system) the process has used, or 0 when it cannot
// be read.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
