//go:build !unix

package bench

// maxRSS is not available here.
func maxRSS() uint64 { return 0 }
