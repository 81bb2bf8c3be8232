// Package each runs independent pieces of work on every CPU.
package each

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Index calls fn(i) for every i in [0, n), on up to one goroutine per CPU,
// each taking the next index not yet taken. It returns when every call has.
// fn must touch only what its index owns.
func Index(n int, fn func(i int)) {
	Worker(n, func() func(i int) { return fn })
}

// Worker is Index where each goroutine first makes its own function with
// worker, so that it may keep state across the indices it takes (a cache of
// its own, say).
func Worker(n int, worker func() func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			fn := worker()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}
