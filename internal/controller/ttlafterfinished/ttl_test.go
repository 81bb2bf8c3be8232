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
		want     time.Duration
		wantOK   bool
	}{
		{name: "ttl 5s after a finish at 32s", finished: true, ttl: &five, want: 37 * time.Second, wantOK: true},
		{name: "ttl 0: at the finish", finished: true, ttl: &zero, want: 32 * time.Second, wantOK: true},
		{name: "no ttl: never", finished: true},
		{name: "not finished: never", ttl: &five},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := ExpireAt(tt.finished, 32*time.Second, tt.ttl)
			if ok != tt.wantOK || d.At != tt.want {
				t.Errorf("ExpireAt(%v, 32s, %v) = %v, %v, want %v, %v", tt.finished, tt.ttl, d.At, ok, tt.want, tt.wantOK)
			}
		})
	}
}
