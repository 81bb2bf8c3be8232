package plugin

import "testing"

// TestPredictJobTTLGolden: a Job's plan says when the TTL-after-finished controller deletes
// it (the finish time + ttlSecondsAfterFinished), and a Job that fails is deleted too.
func TestPredictJobTTLGolden(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantExit int
	}{
		{name: "predict-job-ttl.txt", args: []string{"-f", "testdata/predict/job-ttl.yaml"}, wantExit: 0},
		{name: "predict-job-ttl.json", args: []string{"-f", "testdata/predict/job-ttl.yaml", "-o", "json"}, wantExit: 0},
		{name: "predict-job-ttl-failed.txt", args: []string{"-f", "testdata/predict/job-ttl.yaml", "--fail-first", "7"}, wantExit: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict"}, tt.args...)...)
			if code != tt.wantExit {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tt.wantExit, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}
