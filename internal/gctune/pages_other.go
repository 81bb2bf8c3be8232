//go:build !linux

package gctune

// ReleaseStartPages does nothing outside Linux, where the executable's
// mappings are not read from /proc/self/smaps; it returns 0.
func ReleaseStartPages() (int64, error) { return 0, nil }
