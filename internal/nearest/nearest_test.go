package nearest

import "testing"

func TestNearest(t *testing.T) {
	tests := []struct {
		s          string
		candidates []string
		want       string
	}{
		{"chekout", []string{"cart", "checkout"}, "checkout"},
		{"web-stabel", []string{"web-stable", "web"}, "web-stable"},
		{"rollout/mutable-image-tags", []string{"rollout/mutable-image-tag", "rollout/paused"}, "rollout/mutable-image-tag"},
		{"primary", []string{"replica", "web"}, ""},
		{"web", []string{"web"}, ""},
	}
	for _, tt := range tests {
		if got := Nearest(tt.s, tt.candidates); got != tt.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", tt.s, tt.candidates, got, tt.want)
		}
	}
}
