//go:build !unix

package boundedread

import "os"

// openNonBlocking opens name for reading. Outside Unix there are no FIFOs in
// the file system to wait on; ReadFile has checked the path is a regular file.
func openNonBlocking(name string) (*os.File, error) {
	return os.Open(name)
}
