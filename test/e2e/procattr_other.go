//go:build !linux

package e2e

import "syscall"

// childProcAttr has no parent-death signal outside Linux; Cluster.Stop ends the children.
func childProcAttr() *syscall.SysProcAttr {
	return nil
}
