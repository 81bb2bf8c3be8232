package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestUpgradeAlgorithmFlagsOverPreset(t *testing.T) {
	tests := []struct {
		name      string
		o         UpgradeOptions
		surge     string
		timeout   time.Duration
		onTimeout string
		wantErr   bool
	}{
		{name: "no preset: surge 1, no timeout, fail", o: UpgradeOptions{}, surge: "1", onTimeout: "fail"},
		{name: "gke preset", o: UpgradeOptions{Preset: "gke"}, surge: "1", timeout: time.Hour, onTimeout: "force"},
		{name: "flags over the preset", o: UpgradeOptions{Preset: "aks", MaxSurge: "50%", DrainTimeout: "0"}, surge: "50%", onTimeout: "fail"},
		{name: "force needs a timeout", o: UpgradeOptions{OnTimeout: "force"}, wantErr: true},
		{name: "unknown preset", o: UpgradeOptions{Preset: "doks"}, wantErr: true},
		{name: "bad timeout", o: UpgradeOptions{DrainTimeout: "soon"}, wantErr: true},
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

// TestUpgradeJSON: the GKE preset forces the budget that never allows an eviction after its
// hour, so the upgrade completes, the db pod deleted without the Eviction API.
func TestUpgradeJSON(t *testing.T) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	failed, err := Upgrade(context.Background(), UpgradeOptions{Filenames: []string{"../plugin/testdata/predict/upgrade-cluster.yaml"},
		Selector: "pool=blue", Preset: "gke", Output: "json", IOStreams: streams})
	if err != nil || failed {
		t.Fatalf("Upgrade() = %v, %v, want a completed upgrade", failed, err)
	}
	var doc struct {
		Kind      string  `json:"kind"`
		Completed bool    `json:"completed"`
		Duration  float64 `json:"durationSeconds"`
		Nodes     []struct {
			Node    string `json:"node"`
			Outcome string `json:"outcome"`
			Forced  []struct {
				Kind string `json:"kind"`
				Pod  string `json:"pod"`
			} `json:"forced"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &doc); err != nil {
		t.Fatalf("Upgrade() -o json: %v", err)
	}
	if doc.Kind != "UpgradePlan" || !doc.Completed || len(doc.Nodes) != 2 || doc.Duration < 3600 {
		t.Fatalf("Upgrade() -o json = %+v, want a completed UpgradePlan of 2 nodes over an hour", doc)
	}
	if f := doc.Nodes[1].Forced; len(f) == 0 || f[0].Kind != "delete" || f[0].Pod != "store/db-7b9c5db5d5-rn6vm" {
		t.Errorf("node %s forced = %+v, want the db pod deleted", doc.Nodes[1].Node, f)
	}
}
