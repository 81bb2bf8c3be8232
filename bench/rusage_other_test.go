//go:build !unix

package bench

import "time"

// maxRSS is not available here.
func maxRSS() uint64 { return 0 }

// cpuTime is not available here.
func cpuTime() time.Duration { return 0 }
