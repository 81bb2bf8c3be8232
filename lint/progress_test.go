package lint

import (
	"context"
	"sync"
	"testing"
)

// TestProgressCountsEveryInput: Options.Progress hears of every input once, ends at the
// total, and counts the objects the result holds.
func TestProgressCountsEveryInput(t *testing.T) {
	l, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	calls, lastDone, lastTotal, maxObjects := 0, 0, 0, 0
	res := l.Run(context.Background(), Options{
		Paths: []string{"../examples/good", "../examples/broken"},
		Progress: func(done, total, objects int) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			lastDone, lastTotal = max(lastDone, done), total
			maxObjects = max(maxObjects, objects)
		},
	})
	if calls == 0 || calls != res.Files || lastDone != lastTotal || lastTotal != res.Files || maxObjects != res.Objects {
		t.Errorf("Progress: %d calls, last %d of %d, %d objects; want one call per file (%d), ending at the total, %d objects",
			calls, lastDone, lastTotal, maxObjects, res.Files, res.Objects)
	}
}
