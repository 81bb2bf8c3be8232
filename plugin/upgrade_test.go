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

// TestUpgradePicture pins -o svg for the four shapes an upgrade takes (a surge upgrade that
// completes, a budget that blocks it until the timeout, a 20-node pool drained two at a
// time, a capacity shortfall) and checks what each must show at a glance.
func TestUpgradePicture(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantExit int
		want     []string
	}{
		{name: "surge", args: []string{"-f", "testdata/predict/upgrade-surge.yaml"},
			want: []string{"Completes in", "blue-3-upgraded", "(surge)", "<title>deleted at"}},
		{name: "blocked", args: []string{"-f", "testdata/predict/upgrade-cluster.yaml", "--preset", "aks"}, wantExit: 1,
			want: []string{"Fails after 30m10.5s.", "First blocker: node blue-2 at 30m10.5s, blocked by budget db", "Fix: budget store/db", "refused 429 by budget db", "+29m55s"}},
		{name: "pool20", args: []string{"-f", "testdata/predict/upgrade-pool20.yaml", "--preset", "aks"},
			want: []string{"2 at a time", "blue-20 (batch 10)", "blue-20-upgraded"}},
		{name: "capacity", args: []string{"-f", "testdata/predict/upgrade-capacity.yaml", "--max-surge", "0", "--max-unavailable", "1"},
			want: []string{"Pending (no node fits)", "Capacity: 6 pod(s) waited for a node."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"predict", "upgrade", "--selector", "pool=blue", "-o", "svg"}, tt.args...)
			out, errOut, code := run(t, "", args...)
			if code != tt.wantExit {
				t.Fatalf("%v: exit %d, want %d; stderr:\n%s", args, code, tt.wantExit, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%v: the picture lacks %q", args, w)
				}
			}
			if again, _, _ := run(t, "", args...); again != out {
				t.Errorf("%v: two runs drew different pictures", args)
			}
			golden(t, "upgrade-"+tt.name+".svg", out)
		})
	}
	out, _, code := run(t, "", "predict", "upgrade", "--selector", "pool=blue", "-f", "testdata/predict/upgrade-surge.yaml", "-o", "html")
	if code != 0 || !strings.Contains(out, "<svg") || !strings.Contains(out, "Result: the upgrade completes") {
		t.Errorf("predict upgrade -o html: exit %d, want 0 and a page with the picture and the text:\n%.300s", code, out)
	}
}
