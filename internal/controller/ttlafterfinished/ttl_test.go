package ttlafterfinished

import (
	"testing"
	"time"
)

func TestExpireAt(t *testing.T) {
	five, zero := int32(5), int32(0)
	tests := []struct {
		name     string
		finished bool
		ttl      *int32
		start    time.Time
		want     time.Duration
		wantOK   bool
	}{
		// Created at .6s: the finish at 32.6s is stored as 32s, deleted at 37s wall, 36.4s
		// after the creation, 4.4s after the finish.
		{name: "ttl 5s, created at .6 of a second: floor of the finish second + 5s", finished: true, ttl: &five,
			start: time.Date(2026, 1, 1, 10, 0, 0, 600e6, time.UTC), want: 36400 * time.Millisecond, wantOK: true},
		{name: "ttl 0, created at .6 of a second: the finish second, floored", finished: true, ttl: &zero,
			start: time.Date(2026, 1, 1, 10, 0, 0, 600e6, time.UTC), want: 31400 * time.Millisecond, wantOK: true},
		{name: "created on a whole second: finish + ttl", finished: true, ttl: &five,
			start: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), want: 37 * time.Second, wantOK: true},
		{name: "ttl 5s after a finish at 32s", finished: true, ttl: &five, want: 37 * time.Second, wantOK: true},
		{name: "ttl 0: at the finish", finished: true, ttl: &zero, want: 32 * time.Second, wantOK: true},
		{name: "no ttl: never", finished: true},
		{name: "not finished: never", ttl: &five},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := ExpireAt(tt.finished, 32*time.Second, tt.ttl, tt.start)
			if ok != tt.wantOK || d.At != tt.want {
				t.Errorf("ExpireAt(%v, 32s, %v) = %v, %v, want %v, %v", tt.finished, tt.ttl, d.At, ok, tt.want, tt.wantOK)
			}
		})
	}
}
