package plugin

import "testing"

func TestPredictDrainGolden(t *testing.T) {
	const cluster = "testdata/predict/drain-cluster.yaml"
	tests := []struct {
		name     string
		args     []string
		wantExit int
	}{
		// Two pods of web on node-1 under minAvailable 2: the second waits for the first's
		// replacement to be Ready, and goes on the 5s retry.
		{name: "predict-drain-node-1.txt", args: []string{"node-1", "-f", cluster, "--ignore-daemonsets"}, wantExit: 0},
		{name: "predict-drain-node-1.json", args: []string{"node-1", "-f", cluster, "--ignore-daemonsets", "-o", "json"}, wantExit: 0},
		// cache has one replica under minAvailable 1: refused until the timeout, then the fix.
		{name: "predict-drain-node-2-timeout.txt", args: []string{"node-2", "-f", cluster, "--ignore-daemonsets", "--timeout", "1m"}, wantExit: 1},
		// Without --timeout kubectl never returns, and never reaches node-3.
		{name: "predict-drain-forever.txt", args: []string{"node-2", "node-3", "-f", cluster, "--ignore-daemonsets"}, wantExit: 1},
		// Without --ignore-daemonsets kubectl's filter refuses the node before evicting anything.
		{name: "predict-drain-daemonsets.txt", args: []string{"node-1", "-f", cluster}, wantExit: 1},
		// --disable-eviction deletes past the budget; --pod-selector narrows what is drained.
		{name: "predict-drain-disable-eviction.txt", args: []string{"node-2", "-f", cluster, "--ignore-daemonsets", "--disable-eviction", "--pod-selector", "app=cache"}, wantExit: 0},
		// Both nodes, cordoned first: web's replacements all go to node-3.
		{name: "predict-drain-two-nodes.txt", args: []string{"node-1", "node-2", "-f", cluster, "--ignore-daemonsets", "--timeout", "30s", "--ready-after", "10s"}, wantExit: 1},
		// Manifests, not pods: the single replica is placed on node-1 (first by name among
		// equal nodes) and its budget refuses the eviction forever; node-2 is never reached.
		{name: "predict-drain-manifests.txt", args: []string{"node-1", "node-2", "node-3", "-f", "testdata/predict/gatekeeper.yaml", "-f", "testdata/predict/nodes-3.yaml"}, wantExit: 1},
		{name: "predict-drain-manifests.json", args: []string{"node-1", "node-2", "node-3", "-f", "testdata/predict/gatekeeper.yaml", "-f", "testdata/predict/nodes-3.yaml", "-o", "json"}, wantExit: 1},
		// No Node objects: --nodes 3 of a shape; and with nothing, the nodes being drained.
		{name: "predict-drain-manifests-nodes-flag.txt", args: []string{"node-2", "-f", "testdata/predict/gatekeeper.yaml", "--nodes", "3", "--node-cpu", "2", "--node-memory", "8Gi", "--timeout", "20s"}, wantExit: 0},
		{name: "predict-drain-manifests-no-nodes.txt", args: []string{"node-1", "-f", "testdata/predict/gatekeeper.yaml", "--timeout", "12s"}, wantExit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict", "drain"}, tt.args...)...)
			if code != tt.wantExit {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tt.wantExit, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

func TestPredictDrainUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "bad selector", args: []string{"node-1", "-f", "testdata/predict/drain-cluster.yaml", "--pod-selector", "a in ("}},
		{name: "unknown node", args: []string{"node-9", "-f", "testdata/predict/drain-cluster.yaml"}},
		{name: "no node", args: []string{"-f", "testdata/predict/drain-cluster.yaml"}},
		{name: "missing file", args: []string{"node-1", "-f", "testdata/no-such-file.yaml"}},
		{name: "bad output", args: []string{"node-1", "-f", "testdata/predict/drain-cluster.yaml", "-o", "svg"}},
		{name: "bad --nodes", args: []string{"node-1", "-f", "testdata/predict/gatekeeper.yaml", "--nodes", "0"}},
		{name: "bad --node-cpu", args: []string{"node-1", "-f", "testdata/predict/gatekeeper.yaml", "--nodes", "2", "--node-cpu", "lots"}},
		{name: "bad --node-taints", args: []string{"node-1", "-f", "testdata/predict/gatekeeper.yaml", "--nodes", "2", "--node-taints", "a=b:Sometimes"}},
		{name: "--nodes with --nodes-file", args: []string{"node-1", "-f", "testdata/predict/gatekeeper.yaml", "--nodes", "2", "--nodes-file", "testdata/predict/nodes-3.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict", "drain"}, tt.args...)...)
			if code != ExitError || errOut == "" || out != "" {
				t.Errorf("predict drain %v = exit %d, stdout %q, stderr %q; want exit 2, an error and no plan", tt.args, code, out, errOut)
			}
		})
	}
}
