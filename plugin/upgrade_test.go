package plugin

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUpgradeJSON: the GKE preset forces the budget that never allows an eviction after its
// hour, so the upgrade completes, the db pod deleted without the Eviction API; the AKS
// preset fails on it at its 30 minutes (exit 1); a bad flag is a usage error (exit 2).
func TestUpgradeJSON(t *testing.T) {
	out, errOut, code := run(t, "", "predict", "upgrade", "-f", "testdata/predict/upgrade-cluster.yaml", "--selector", "pool=blue", "--preset", "gke", "-o", "json")
	if code != 0 {
		t.Fatalf("predict upgrade --preset gke exit %d, want 0; stderr:\n%s", code, errOut)
	}
	var doc struct {
		Kind      string  `json:"kind"`
		Completed bool    `json:"completed"`
		Duration  float64 `json:"durationSeconds"`
		Nodes     []struct {
			Node   string `json:"node"`
			Forced []struct {
				Kind string `json:"kind"`
				Pod  string `json:"pod"`
			} `json:"forced"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("predict upgrade -o json: %v\n%s", err, out)
	}
	if doc.Kind != "UpgradePlan" || !doc.Completed || len(doc.Nodes) != 2 || doc.Duration < 3600 {
		t.Fatalf("predict upgrade -o json = %+v, want a completed UpgradePlan of 2 nodes over an hour", doc)
	}
	// Every time and duration is seconds (schema version 2): none passes the upgrade's
	// duration, as a nanosecond count would.
	var raw any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	timeKeys := map[string]bool{"at": true, "start": true, "end": true, "cordonedAt": true, "emptyAt": true, "deletedAt": true,
		"addedAt": true, "since": true, "duration": true, "durationSeconds": true, "drainTimeout": true, "nodeReadyAfter": true}
	seen := 0
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(k, x)
			}
		case []any:
			for _, x := range v {
				walk(key, x)
			}
		case float64:
			if timeKeys[key] {
				seen++
				if v > doc.Duration {
					t.Errorf("predict upgrade -o json: %s = %v, after the upgrade's %v seconds: not in seconds", key, v, doc.Duration)
				}
			}
		}
	}
	walk("", raw)
	if m, _ := raw.(map[string]any); m["schemaVersion"] != float64(2) || seen < 20 {
		t.Errorf("predict upgrade -o json: schemaVersion %v with %d times, want 2 and every time in seconds", m["schemaVersion"], seen)
	}
	if f := doc.Nodes[1].Forced; len(f) == 0 || f[0].Kind != "delete" || f[0].Pod != "store/db-7b9c5db5d5-rn6vm" {
		t.Errorf("node %s forced = %+v, want the db pod deleted", doc.Nodes[1].Node, f)
	}
	out, _, code = run(t, "", "predict", "upgrade", "-f", "testdata/predict/upgrade-cluster.yaml", "--selector", "pool=blue", "--preset", "aks")
	if code != 1 || !strings.Contains(out, "Blocker:") {
		t.Errorf("predict upgrade --preset aks exit %d, want 1 with a blocker; output:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"--selector", "pool=blue", "--drain-timeout", "soon"},
		{"--selector", ""},
		{"--selector", "pool=blue", "--max-surge", "0", "--max-unavailable", "0"},
	} {
		full := append([]string{"predict", "upgrade", "-f", "testdata/predict/upgrade-cluster.yaml"}, args...)
		if _, errOut, code := run(t, "", full...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage); stderr:\n%s", full, code, errOut)
		}
	}
}
