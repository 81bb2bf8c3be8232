//go:build linux

package e2e

import "syscall"

// childProcAttr makes the kernel kill a child when the test binary dies, even by a panic
// in a test goroutine or a -timeout, which skip every deferred cleanup.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
