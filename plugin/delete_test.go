package plugin

import "testing"

func TestPredictDeleteGolden(t *testing.T) {
	const cluster = "testdata/predict/delete-cluster.yaml"
	tests := []struct {
		name string
		args []string
	}{
		// The Deployment goes first, then both ReplicaSets, then their pods; the pod with a
		// finalizer of its own waits.
		{name: "predict-delete-background.txt", args: []string{"deployment/web", "-f", cluster}},
		// Dependents first: the pod's finalizer holds its ReplicaSet (blockOwnerDeletion), which
		// holds the Deployment.
		{name: "predict-delete-foreground.txt", args: []string{"deployment/web", "-f", cluster, "--cascade", "foreground"}},
		{name: "predict-delete-orphan.json", args: []string{"deploy/web", "-f", cluster, "--cascade", "orphan", "-o", "json"}},
		// The ReplicaSet comes back under its Deployment and adopts the pods it orphaned.
		{name: "predict-delete-rs-orphan.txt", args: []string{"rs", "web-7d4b9c5f6d", "-f", cluster, "--cascade=orphan"}},
		// whenDeleted Delete: the claims go with the set; Retain: they stay.
		{name: "predict-delete-sts-delete.txt", args: []string{"statefulset/db", "-f", cluster, "--cascade", "foreground"}},
		{name: "predict-delete-sts-retain.txt", args: []string{"sts/cache", "-f", cluster}},
		{name: "predict-delete-pod.txt", args: []string{"pod/db-1", "-f", cluster}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict", "delete"}, tt.args...)...)
			if code != 0 || errOut != "" {
				t.Errorf("exit code = %d, stderr %q; want 0 and nothing", code, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

func TestPredictDeleteUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "unknown object", args: []string{"deployment/nope", "-f", "testdata/predict/delete-cluster.yaml"}},
		{name: "unknown kind", args: []string{"service/web", "-f", "testdata/predict/delete-cluster.yaml"}},
		{name: "no name", args: []string{"deployment", "-f", "testdata/predict/delete-cluster.yaml"}},
		{name: "bad cascade", args: []string{"deployment/web", "--cascade", "true", "-f", "testdata/predict/delete-cluster.yaml"}},
		{name: "bad output", args: []string{"deployment/web", "-o", "svg", "-f", "testdata/predict/delete-cluster.yaml"}},
		{name: "missing file", args: []string{"deployment/web", "-f", "testdata/no-such-file.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict", "delete"}, tt.args...)...)
			if code != ExitError || errOut == "" || out != "" {
				t.Errorf("predict delete %v = exit %d, stdout %q, stderr %q; want exit 2, an error and no plan", tt.args, code, out, errOut)
			}
		})
	}
}
