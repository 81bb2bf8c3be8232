package replicaset

import (
	"testing"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/kernel"
)

// TestCreateBatches: a sync's creations are slow-start batches of 1, 2, 4, …, each a batch of
// API calls after the one before, and its deletions come after all of them.
func TestCreateBatches(t *testing.T) {
	c := kernel.NewClock(time.Unix(0, 0))
	s := c.NewSync()
	got := CreateBatches(s, 7)
	if len(got) != 3 || got[0].Count != 1 || got[1].Count != 2 || got[2].Count != 4 {
		t.Fatalf("CreateBatches(7) = %+v, want batches of 1, 2, 4", got)
	}
	for i := 1; i < len(got); i++ {
		if !got[i-1].At.Before(got[i].At) || !got[i].At.Time.Equal(got[0].At.Time) {
			t.Errorf("batch %d at %+v, batch %d at %+v: want the same wall time and a later cause", i-1, got[i-1].At, i, got[i].At)
		}
	}
	if d := s.Delete(); !got[2].At.Before(d) {
		t.Errorf("Delete() = %+v, want after the last batch %+v", d, got[2].At)
	}
}
