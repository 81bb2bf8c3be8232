// Package slab keeps byte slices that live as long as a run, carved from
// large chunks.
//
// A lint run keeps a few small pieces of every object between its passes
// (JSON for the cross-resource rules and the inventory, field positions).
// Each piece is pointer-free, but as its own allocation it is one more
// object for every garbage collection to mark, and a run over 100,000
// objects collects some hundred times while those pieces pile up: marking
// cost grows with the number of objects, not their bytes. In a slab, a
// chunk holds hundreds of pieces and is one object to mark.
//
// A chunk is freed once no piece of it is referenced; pieces are never
// freed one by one. Use a slab per run for data that lives until the run
// ends.
package slab

import "sync"

// ChunkSize is the size of a chunk. A piece larger than a quarter of it
// gets its own allocation, so that at most a quarter of a chunk is left
// unused when the next piece does not fit.
const ChunkSize = 256 << 10

// Slab hands out pieces of its chunks. Its methods may be called from
// several goroutines. A nil *Slab allocates every piece on its own.
type Slab struct {
	mu  sync.Mutex
	cur []byte
}

// New returns an empty slab.
func New() *Slab { return &Slab{} }

// Copy returns a copy of b in the slab, nil when b is empty. The copy's
// capacity is its length: appending to it never writes into another piece.
func (s *Slab) Copy(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if s == nil || len(b) > ChunkSize/4 {
		out := make([]byte, len(b))
		copy(out, b)
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cap(s.cur)-len(s.cur) < len(b) {
		s.cur = make([]byte, 0, ChunkSize)
	}
	start := len(s.cur)
	s.cur = append(s.cur, b...)
	return s.cur[start:len(s.cur):len(s.cur)]
}
