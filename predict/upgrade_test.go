package predict

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestUpgradeAlgorithmFlagsOverPreset(t *testing.T) {
	half, negative, never := intstr.FromString("50%"), intstr.FromInt32(-1), time.Duration(0)
	tests := []struct {
		name      string
		o         UpgradeRequest
		surge     string
		timeout   time.Duration
		onTimeout string
		wantErr   bool
	}{
		{name: "no preset: surge 1, no timeout, fail", o: UpgradeRequest{}, surge: "1", onTimeout: "fail"},
		{name: "gke preset", o: UpgradeRequest{Preset: "gke"}, surge: "1", timeout: time.Hour, onTimeout: "force"},
		{name: "flags over the preset", o: UpgradeRequest{Preset: "aks", MaxSurge: &half, DrainTimeout: &never}, surge: "50%", onTimeout: "fail"},
		{name: "force needs a timeout", o: UpgradeRequest{OnTimeout: "force"}, wantErr: true},
		{name: "unknown preset", o: UpgradeRequest{Preset: "doks"}, wantErr: true},
		{name: "negative surge", o: UpgradeRequest{MaxSurge: &negative}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alg, _, err := tt.o.algorithm()
			if (err != nil) != tt.wantErr {
				t.Fatalf("algorithm() error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if alg.MaxSurge.String() != tt.surge || alg.DrainTimeout != tt.timeout || alg.OnTimeout != tt.onTimeout {
				t.Errorf("algorithm() = surge %s, timeout %s, on timeout %s, want %s, %s, %s", alg.MaxSurge.String(), alg.DrainTimeout, alg.OnTimeout, tt.surge, tt.timeout, tt.onTimeout)
			}
		})
	}
}
