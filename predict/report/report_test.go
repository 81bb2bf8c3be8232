package report

import (
	"testing"
	"time"
)

// TestSeconds: durations in the text output are whole seconds (or milliseconds below one
// second), never "103h43m30.387s", which breaks the columns.
func TestSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{100 * time.Millisecond, "100ms"},
		{7*time.Second + time.Millisecond, "7s"},
		{103*time.Hour + 43*time.Minute + 30387*time.Millisecond, "103h43m30s"},
		{21*time.Second + 600*time.Millisecond, "22s"},
	}
	for _, tt := range tests {
		if got := seconds(tt.d); got != tt.want {
			t.Errorf("seconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
