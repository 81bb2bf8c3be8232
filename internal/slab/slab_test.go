package slab

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

func TestCopy(t *testing.T) {
	for _, s := range []*Slab{New(), nil} {
		t.Run(fmt.Sprintf("slab=%v", s != nil), func(t *testing.T) {
			if got := s.Copy(nil); got != nil {
				t.Errorf("Copy(nil) = %q, want nil", got)
			}
			src := []byte("abc")
			a := s.Copy(src)
			src[0] = 'x' // the copy does not follow its source
			b := s.Copy([]byte("defg"))
			if string(a) != "abc" || string(b) != "defg" {
				t.Fatalf("pieces %q, %q, want abc, defg", a, b)
			}
			if cap(a) != len(a) || cap(b) != len(b) {
				t.Errorf("capacities %d, %d, want the lengths %d, %d", cap(a), cap(b), len(a), len(b))
			}
			a = append(a, 'Z') // must reallocate, not write into b
			if string(a) != "abcZ" || string(b) != "defg" {
				t.Errorf("appending to one piece changed the next: %q", b)
			}
			big := bytes.Repeat([]byte{'q'}, ChunkSize/4+1)
			if got := s.Copy(big); !bytes.Equal(got, big) {
				t.Errorf("large piece copied wrong")
			}
		})
	}
}

// TestCopyConcurrent copies from several goroutines and checks that no
// piece overlaps another (run with -race).
func TestCopyConcurrent(t *testing.T) {
	s := New()
	const workers, each = 4, 5000
	out := make([][][]byte, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				out[w] = append(out[w], s.Copy([]byte(fmt.Sprintf("w%d-piece-%d-%s", w, i, bytes.Repeat([]byte{'.'}, i%97)))))
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i, got := range out[w] {
			want := fmt.Sprintf("w%d-piece-%d-%s", w, i, bytes.Repeat([]byte{'.'}, i%97))
			if string(got) != want {
				t.Fatalf("piece %d of worker %d = %q, want %q", i, w, got, want)
			}
		}
	}
}
