package kernel

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestScaled(t *testing.T) {
	tests := []struct {
		v       intstr.IntOrString
		total   int
		roundUp bool
		want    int
		text    string
	}{
		{intstr.FromString("25%"), 10, true, 3, "25% of 10 = 2.5 → 3 (rounded up)"},
		{intstr.FromString("25%"), 10, false, 2, "25% of 10 = 2.5 → 2 (rounded down)"},
		{intstr.FromString("50%"), 4, true, 2, "50% of 4 = 2"},
		{intstr.FromString("30%"), 7, true, 3, "30% of 7 = 2.1 → 3 (rounded up)"},
		{intstr.FromInt32(3), 10, false, 3, "3"},
	}
	for _, tt := range tests {
		n, text, err := Scaled(&tt.v, tt.total, tt.roundUp)
		if err != nil || n != tt.want || text != tt.text {
			t.Errorf("Scaled(%s, %d, %v) = %d, %q, %v; want %d, %q", tt.v.String(), tt.total, tt.roundUp, n, text, err, tt.want, tt.text)
		}
	}
	bad := intstr.FromString("lots")
	if _, _, err := Scaled(&bad, 10, true); err == nil {
		t.Errorf("Scaled(lots) error = nil, want one")
	}
}
