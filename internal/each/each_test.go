package each

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestIndexCallsEveryIndexOnce: every index is called exactly once, for any
// n, including none.
func TestIndexCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 100, 1000} {
		calls := make([]atomic.Int32, n)
		Index(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}

// TestWorkerMakesOneFunctionPerGoroutine: worker is called once per
// goroutine, at most one per CPU, and their functions share the indices.
func TestWorkerMakesOneFunctionPerGoroutine(t *testing.T) {
	var workers, calls atomic.Int32
	Worker(500, func() func(int) {
		workers.Add(1)
		return func(int) { calls.Add(1) }
	})
	if w := workers.Load(); w < 1 || int(w) > runtime.GOMAXPROCS(0) {
		t.Errorf("%d workers", w)
	}
	if c := calls.Load(); c != 500 {
		t.Errorf("%d calls, want 500", c)
	}
}
