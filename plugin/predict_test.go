package plugin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPredictGolden(t *testing.T) {
	const dir = "testdata/predict/"
	tests := []struct {
		name     string
		args     []string
		wantExit int
	}{
		{name: "predict-from.txt", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "--chart"}, wantExit: 0},
		{name: "predict-from.json", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "-o", "json"}, wantExit: 0},
		{name: "predict-from.yaml", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "-o", "yaml"}, wantExit: 0},
		{name: "predict-from.svg", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "-o", "svg"}, wantExit: 0},
		{name: "predict-fail-new.txt", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "--fail-new"}, wantExit: 1},
		{name: "predict-pss-refused.txt", args: []string{"-f", dir + "pss-refused.yaml"}, wantExit: 1},
		{name: "predict-pss-refused.json", args: []string{"-f", dir + "pss-refused.yaml", "-o", "json"}, wantExit: 1},
		{name: "predict-selector-changed.txt", args: []string{"-f", dir + "selector-changed.yaml", "--from", dir + "old.yaml"}, wantExit: 1},
		{name: "predict-new.txt", args: []string{"-f", dir + "old.yaml"}, wantExit: 0},
		{name: "predict-same.txt", args: []string{"-f", dir + "old.yaml", "--from", dir + "old.yaml"}, wantExit: 0},
		{name: "predict-state-image.txt", args: []string{"--state", dir + "state.yaml", "deployment/web", "--image", "web=nginx:3.0"}, wantExit: 0},
		{name: "predict-state-undo.txt", args: []string{"--state", dir + "state.yaml", "deployment", "web", "--undo"}, wantExit: 0},
		{name: "predict-state-scale.txt", args: []string{"--state", dir + "state.yaml", "--replicas", "8"}, wantExit: 0},
		{name: "predict-state-file.txt", args: []string{"--state", dir + "state.yaml", "-f", dir + "new.yaml"}, wantExit: 0},
		// A HorizontalPodAutoscaler owns the count: planned at its minReplicas, and said so.
		{name: "predict-hpa.txt", args: []string{"-f", dir + "hpa-new.yaml", "--from", dir + "hpa-old.yaml"}, wantExit: 0},
		{name: "predict-hpa.svg", args: []string{"-f", dir + "hpa-new.yaml", "--from", dir + "hpa-old.yaml", "-o", "svg"}, wantExit: 0},
		{name: "predict-hpa.json", args: []string{"-f", dir + "hpa-new.yaml", "--from", dir + "hpa-old.yaml", "-o", "json"}, wantExit: 0},
		// TYPE/NAME with --from: the old manifest's workload changed; with -f: that one of the files.
		{name: "predict-target-from-image.txt", args: []string{"deployment/web", "--from", dir + "old.yaml", "--image", "web=nginx:3.0"}, wantExit: 0},
		{name: "predict-target-files.txt", args: []string{"statefulset/db", "-f", dir + "new.yaml", "-f", dir + "sts-new.yaml", "--from", dir + "old.yaml", "--from", dir + "sts-old.yaml"}, wantExit: 0},
		{name: "predict-statefulset.txt", args: []string{"-f", dir + "sts-new.yaml", "--from", dir + "sts-old.yaml"}, wantExit: 0},
		{name: "predict-statefulset.json", args: []string{"-f", dir + "sts-new.yaml", "--from", dir + "sts-old.yaml", "-o", "json"}, wantExit: 0},
		{name: "predict-daemonset.txt", args: []string{"-f", dir + "ds-new.yaml", "--from", dir + "ds-old.yaml", "--nodes", "5"}, wantExit: 0},
		{name: "predict-daemonset-default-nodes.txt", args: []string{"-f", dir + "ds-new.yaml", "--from", dir + "ds-old.yaml"}, wantExit: 0},
		// CronJobs: 2026-03-08 is the spring-forward night in New York (no 02:00 or 02:30).
		{name: "predict-cronjob.txt", args: []string{"-f", dir + "cronjob.yaml", "--now", "2026-03-08T05:40:00Z"}, wantExit: 0},
		{name: "predict-cronjob-missed.txt", args: []string{"-f", dir + "cronjob.yaml", "--now", "2026-03-09T07:32:00Z",
			"--last-schedule", "2026-03-09T05:00:00Z"}, wantExit: 0},
		{name: "predict-cronjob-down.txt", args: []string{"-f", dir + "cronjob.yaml", "--now", "2026-03-09T05:40:00Z",
			"--down", "2026-03-09T05:10:00Z,2026-03-09T08:00:00Z"}, wantExit: 1},
		{name: "predict-cronjob-down.json", args: []string{"-f", dir + "cronjob.yaml", "--now", "2026-03-09T05:40:00Z",
			"--down", "2026-03-09T05:10:00Z,2026-03-09T08:00:00Z", "-o", "json"}, wantExit: 1},
		{name: "predict-cronjob-concurrency.txt", args: []string{"-f", dir + "cronjob.yaml", "--now", "2026-03-09T05:40:00Z", "--run-for", "35m"}, wantExit: 0},
		// successfulJobsHistoryLimit 2: each Job's end from the third on deletes the oldest.
		{name: "predict-cronjob-history.txt", args: []string{"-f", dir + "cronjob-history.yaml", "--now", "2026-03-09T05:40:00Z", "--run-for", "4m", "--next", "5"}, wantExit: 0},
		// failedJobsHistoryLimit 2: Jobs that fail (activeDeadlineSeconds 180 under --run-for 4m,
		// or a failed pod with backoffLimit 0) are kept to 2, each failure from the third on
		// deleting the oldest.
		{name: "predict-cronjob-failed-history.txt", args: []string{"-f", dir + "cronjob-failing.yaml", "--now", "2026-03-09T05:40:00Z", "--run-for", "4m", "--next", "5"}, wantExit: 0},
		{name: "predict-cronjob-failed-history.json", args: []string{"-f", dir + "cronjob-failing.yaml", "--now", "2026-03-09T05:40:00Z", "--run-for", "2m", "--fail-first", "1", "--next", "5", "-o", "json"}, wantExit: 0},
		{name: "predict-cronjob-concurrency.yaml", args: []string{"-f", dir + "cronjob.yaml", "--now", "2026-03-09T05:40:00Z", "--run-for", "35m", "-o", "yaml"}, wantExit: 0},
		// Jobs.
		{name: "predict-job.txt", args: []string{"-f", dir + "job.yaml"}, wantExit: 0},
		{name: "predict-job-retry.txt", args: []string{"-f", dir + "job.yaml", "--fail-first", "2", "--run-for", "1m"}, wantExit: 0},
		{name: "predict-job-fail.txt", args: []string{"-f", dir + "job.yaml", "--fail-first", "3"}, wantExit: 1},
		{name: "predict-job-fail.json", args: []string{"-f", dir + "job.yaml", "--fail-first", "3", "-o", "json"}, wantExit: 1},
		{name: "predict-job-fail-rate.txt", args: []string{"-f", dir + "job.yaml", "--fail-rate", "0.3", "--seed", "4"}, wantExit: 0},
		// Scale-down order.
		{name: "predict-scaledown.txt", args: []string{"replicaset/cache", "--replicas", "3", "--state", dir + "scaledown.yaml"}, wantExit: 0},
		{name: "predict-scaledown.json", args: []string{"replicaset/cache", "--replicas", "3", "--state", dir + "scaledown.yaml", "-o", "json"}, wantExit: 0},
		{name: "predict-scaledown-file.txt", args: []string{"-f", dir + "rs.yaml", "--state", dir + "scaledown.yaml"}, wantExit: 0},
		// --ready-spread and --runs: controllers.md's checkout example, with kwok's timing.
		{name: "predict-checkout.txt", args: []string{"-f", dir + "checkout-new.yaml", "--from", dir + "checkout-old.yaml",
			"--ready-after", "20ms", "--terminate-after", "100ms"}, wantExit: 0},
		{name: "predict-checkout-runs.txt", args: []string{"-f", dir + "checkout-new.yaml", "--from", dir + "checkout-old.yaml",
			"--ready-after", "20ms", "--terminate-after", "100ms", "--ready-spread", "100ms", "--runs", "300", "--seed", "1"}, wantExit: 0},
		{name: "predict-checkout-runs.json", args: []string{"-f", dir + "checkout-new.yaml", "--from", dir + "checkout-old.yaml",
			"--ready-after", "20ms", "--terminate-after", "100ms", "--ready-spread", "100ms", "--runs", "300", "--seed", "1", "-o", "json"}, wantExit: 0},
		{name: "predict-statefulset-runs.txt", args: []string{"-f", dir + "sts-new.yaml", "--from", dir + "sts-old.yaml",
			"--ready-spread", "1s", "--runs", "50", "--seed", "3"}, wantExit: 0},
		{name: "predict-daemonset-spread.txt", args: []string{"-f", dir + "ds-new.yaml", "--from", dir + "ds-old.yaml", "--nodes", "5",
			"--ready-spread", "3s", "--seed", "2"}, wantExit: 0},
		// A named timeZone (issue 16, item 1): every run starts, none is Skipped.
		{name: "predict-cronjob-timezone-run-for.txt", args: []string{"-f", "../examples/good/nightly-report.json", "--now", "2026-05-01T00:00:00Z", "--run-for", "30m", "--next", "3"}, wantExit: 0},
		// Suspended workloads (issue 16, item 2): nothing runs until they are resumed.
		{name: "predict-job-suspended.txt", args: []string{"-f", dir + "job-suspended.yaml"}, wantExit: 0},
		{name: "predict-cronjob-suspended.txt", args: []string{"-f", dir + "cronjob-suspended.yaml", "--now", "2026-03-09T05:40:00Z", "--run-for", "35m"}, wantExit: 0},
		{name: "predict-cronjob-suspended-missed.txt", args: []string{"-f", dir + "cronjob-suspended.yaml", "--now", "2026-03-09T07:32:00Z",
			"--last-schedule", "2026-03-09T05:00:00Z"}, wantExit: 0},
		// A dump taken in namespace shop, a manifest and targets naming none (issue 16, item 3).
		{name: "predict-state-shop-file.txt", args: []string{"--state", dir + "state-shop.yaml", "-f", dir + "new.yaml"}, wantExit: 0},
		{name: "predict-state-shop-file-n.txt", args: []string{"-n", "shop", "--state", dir + "state-shop.yaml", "-f", dir + "new.yaml"}, wantExit: 0},
		{name: "predict-state-shop-image.txt", args: []string{"--state", dir + "state-shop.yaml", "deployment/web", "--image", "web=nginx:3.0"}, wantExit: 0},
		{name: "predict-scaledown-shop.txt", args: []string{"replicaset/cache", "--replicas", "3", "--state", dir + "scaledown-shop.yaml"}, wantExit: 0},
		// Exit codes a CI gate can trust (issue 16, item 11): a rollout past its progress
		// deadline fails even when it completes later; OnDelete is not a stall.
		{name: "predict-deadline-then-complete.txt", args: []string{"-f", dir + "new.yaml", "--from", dir + "old.yaml", "--ready-after", "700s"}, wantExit: 1},
		{name: "predict-statefulset-ondelete.txt", args: []string{"-f", dir + "sts-ondelete.yaml", "--from", dir + "sts-ondelete-old.yaml"}, wantExit: 0},
		// Scaled 3 -> 5 as well (issue 35): the plan completes its scale-up and waits for
		// deletions; the OrderedReady wait for db-4 at 2s is not a stall.
		{name: "predict-statefulset-ondelete-scale.txt", args: []string{"-f", dir + "sts-ondelete-scale.yaml", "--from", dir + "sts-ondelete-old.yaml"}, wantExit: 0},
		{name: "predict-daemonset-ondelete.txt", args: []string{"-f", dir + "ds-ondelete.yaml", "--from", dir + "ds-old.yaml", "--nodes", "3"}, wantExit: 0},
		// Created workloads (issue 16, item 12): no "(unchanged)" revision, no deletion notes.
		{name: "predict-statefulset-created-parallel.txt", args: []string{"-f", dir + "sts-parallel.yaml"}, wantExit: 0},
		{name: "predict-daemonset-created.txt", args: []string{"-f", dir + "ds-new.yaml", "--nodes", "2"}, wantExit: 0},
		// Pictures reviewed as PNG renders (rsvg-convert) (issue 16, item 6): pods drawn at every
		// change between events, StatefulSets and DaemonSets reaching full availability,
		// settings with their values, wrapped subtitles, headroom above the peak.
		{name: "predict-statefulset.svg", args: []string{"-f", dir + "sts-new.yaml", "--from", dir + "sts-old.yaml", "-o", "svg"}, wantExit: 0},
		{name: "predict-daemonset.svg", args: []string{"-f", dir + "ds-new.yaml", "--from", dir + "ds-old.yaml", "--nodes", "5", "-o", "svg"}, wantExit: 0},
		{name: "predict-state-scale.svg", args: []string{"--state", dir + "state.yaml", "--replicas", "8", "-o", "svg"}, wantExit: 0},
		// What happens next, with no change (issue 16, item 10): the rollout in progress finishes.
		{name: "predict-state-next.txt", args: []string{"--state", dir + "state.yaml"}, wantExit: 0},
		{name: "predict-state-next-named.txt", args: []string{"--state", dir + "state.yaml", "deployment/web"}, wantExit: 0},
		// What-ifs for StatefulSets by ControllerRevision (issue 16, item 9).
		{name: "predict-sts-state-undo.txt", args: []string{"--state", dir + "sts-state.json", "statefulset/db", "--undo"}, wantExit: 0},
		{name: "predict-sts-state-image.txt", args: []string{"--state", dir + "sts-state.json", "sts", "db", "--image", "db=postgres:18"}, wantExit: 0},
		{name: "predict-sts-state-restart.txt", args: []string{"--state", dir + "sts-state.json", "statefulset/db", "--restart"}, wantExit: 0},
		{name: "predict-ds-state-undo.txt", args: []string{"--state", dir + "ds-state.json", "daemonset/agent", "--undo"}, wantExit: 0},
		{name: "predict-ds-state-image.txt", args: []string{"--state", dir + "ds-state.json", "ds/agent", "--image", "agent=agent:3"}, wantExit: 0},
		{name: "predict-batch.svg", args: []string{"-f", dir + "job.yaml", "-f", dir + "cronjob.yaml", "--now", "2026-03-08T05:40:00Z", "-o", "svg"}, wantExit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict"}, tt.args...)...)
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

// TestPredictJSONShape checks the documented -o json fields a script would read.
func TestPredictJSONShape(t *testing.T) {
	out, _, code := run(t, "", "predict", "-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml", "-o", "json")
	if code != 0 {
		t.Fatalf("exit code = %d, want 0", code)
	}
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Predictions   []struct {
			Plan struct {
				Header struct {
					MaxPods       int    `json:"maxPods"`
					NewReplicaSet string `json:"newReplicaSet"`
				} `json:"header"`
				Steps []struct {
					Message string `json:"message"`
				} `json:"steps"`
				Summary struct {
					Completed bool `json:"completed"`
				} `json:"summary"`
			} `json:"plan"`
		} `json:"predictions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json is not JSON: %v", err)
	}
	if doc.SchemaVersion != 1 || len(doc.Predictions) != 1 {
		t.Fatalf("schemaVersion %d, %d predictions; want 1, 1", doc.SchemaVersion, len(doc.Predictions))
	}
	p := doc.Predictions[0].Plan
	if p.Header.MaxPods != 4 || !p.Summary.Completed || len(p.Steps) != 6 ||
		!strings.HasPrefix(p.Steps[0].Message, "Scaled up replica set "+p.Header.NewReplicaSet+" from 0 to 1") {
		t.Errorf("plan = %+v, want 6 steps starting with the new ReplicaSet from 0 to 1, at most 4 pods, completed", p)
	}
}

func TestPredictUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "nothing", args: nil, want: "nothing to predict"},
		{name: "two baselines", args: []string{"-f", "x.yaml", "--from", "a.yaml", "--state", "b.yaml"}, want: "at most one of"},
		{name: "bad image", args: []string{"--state", "testdata/predict/state.yaml", "--image", "nginx"}, want: "want NAME=IMAGE"},
		{name: "unknown container", args: []string{"--state", "testdata/predict/state.yaml", "--image", "db=postgres"}, want: `unable to find container named "db" (its containers: web)`},
		{name: "unknown container in the files", args: []string{"-f", "testdata/predict/sts-new.yaml", "-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml", "--image", "cache=redis"},
			want: `--image cache=redis: no workload of the files has a container named "cache"; their containers: StatefulSet default/db: db; Deployment default/web: web`},
		{name: "target not in the files", args: []string{"deployment/api", "--from", "testdata/predict/old.yaml", "--image", "web=nginx"},
			want: "deployment/api: not in testdata/predict/old.yaml, which holds deployment/web in namespace default"},
		{name: "from without new manifests or target", args: []string{"--from", "testdata/predict/old.yaml", "--image", "web=nginx"}, want: "--from needs -f (the new manifests), or TYPE/NAME"},
		{name: "not a workload", args: []string{"--state", "testdata/predict/state.yaml", "job/web", "--replicas", "2"}, want: "predict models Deployments, StatefulSets and DaemonSets"},
		{name: "missing deployment", args: []string{"--state", "testdata/predict/state.yaml", "deployment/api", "--replicas", "2"}, want: "deployment default/api: not found in testdata/predict/state.yaml"},
		{name: "two namespaces", args: []string{"--state", "testdata/predict/state-shop.yaml", "--state", "testdata/predict/state-staging.yaml", "-f", "testdata/predict/new.yaml"},
			want: "deployment/web: not in namespace default of [testdata/predict/state-shop.yaml testdata/predict/state-staging.yaml], but in namespaces shop, staging: name one with -n"},
		{name: "two namespaces by name", args: []string{"--state", "testdata/predict/state-shop.yaml", "--state", "testdata/predict/state-staging.yaml", "deployment/web", "--replicas", "2"},
			want: "in namespaces shop, staging: name one with -n"},
		{name: "undo without history", args: []string{"-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml", "--undo"}, want: "no rollout history found"},
		{name: "resume not paused", args: []string{"--state", "testdata/predict/state.yaml", "--resume"}, want: "is not paused"},
		{name: "bad output", args: []string{"-f", "x.yaml", "-o", "png"}, want: `--output "png"`},
		{name: "missing file", args: []string{"-f", "testdata/predict/nope.yaml"}, want: "nope.yaml"},
		{name: "next zero", args: []string{"-f", "testdata/predict/cronjob.yaml", "--next", "0"}, want: "--next 0: must be positive"},
		{name: "bad now", args: []string{"-f", "testdata/predict/cronjob.yaml", "--now", "yesterday"}, want: `--now "yesterday": want an RFC 3339 time`},
		{name: "bad last schedule", args: []string{"-f", "testdata/predict/cronjob.yaml", "--last-schedule", "2026-03-09"}, want: `--last-schedule "2026-03-09"`},
		{name: "down one time", args: []string{"-f", "testdata/predict/cronjob.yaml", "--down", "2026-03-09T05:10:00Z"}, want: "want FROM,TO"},
		{name: "down reversed", args: []string{"-f", "testdata/predict/cronjob.yaml", "--down", "2026-03-09T08:00:00Z,2026-03-09T05:10:00Z"}, want: "TO is before FROM"},
		{name: "run-for zero with a CronJob", args: []string{"-f", "../examples/good/nightly-report.json", "--run-for", "0s"}, want: "--run-for 0s: must be positive"},
		{name: "run-for zero with a Job", args: []string{"-f", "testdata/predict/job.yaml", "--run-for", "0"}, want: "--run-for 0s: must be positive"},
		{name: "nodes zero", args: []string{"-f", "testdata/predict/ds-new.yaml", "--nodes", "0"}, want: "--nodes 0: must be positive"},
		{name: "ready-after zero", args: []string{"-f", "testdata/predict/new.yaml", "--ready-after", "0s"}, want: "--ready-after 0s: must be positive"},
		{name: "terminate-after zero", args: []string{"-f", "testdata/predict/new.yaml", "--terminate-after", "0s"}, want: "--terminate-after 0s: must be positive"},
		// Flags that do not apply to anything predicted (issue 16, item 8).
		{name: "fail-first with a Deployment", args: []string{"-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml", "--fail-first", "2"},
			want: "--fail-first applies to CronJobs and Jobs, and none is predicted here (Deployment default/web)"},
		{name: "down with a Deployment", args: []string{"-f", "testdata/predict/new.yaml", "--down", "2026-03-09T05:10:00Z,2026-03-09T08:00:00Z"}, want: "--down applies to CronJobs"},
		{name: "chart with a Job", args: []string{"-f", "testdata/predict/job.yaml", "--chart"}, want: "--chart applies to Deployments, StatefulSets and DaemonSets, and none is predicted here (Job default/batch)"},
		{name: "nodes with a StatefulSet", args: []string{"-f", "testdata/predict/sts-new.yaml", "--nodes", "4"}, want: "--nodes applies to DaemonSets"},
		{name: "fail-new with a CronJob", args: []string{"-f", "testdata/predict/cronjob.yaml", "--fail-new"}, want: "--fail-new applies to Deployments, StatefulSets and DaemonSets"},
		{name: "next with a Job", args: []string{"-f", "testdata/predict/job.yaml", "--next", "3"}, want: "--next applies to CronJobs"},
		{name: "last schedule after now", args: []string{"-f", "testdata/predict/cronjob.yaml", "--now", "2026-03-09T05:00:00Z", "--last-schedule", "2026-03-09T06:00:00Z"},
			want: "--last-schedule 2026-03-09T06:00:00Z is after --now (2026-03-09T05:00:00Z)"},
		{name: "sts undo to a missing revision", args: []string{"--state", "testdata/predict/sts-state.json", "statefulset/db", "--undo", "--to-revision", "7"},
			want: "statefulset default/db: unable to find specified revision 7 in history"},
		{name: "sts resume", args: []string{"--state", "testdata/predict/sts-state.json", "statefulset/db", "--resume"}, want: "--resume applies to Deployments"},
		{name: "ds replicas", args: []string{"--state", "testdata/predict/ds-state.json", "daemonset/agent", "--replicas", "4"}, want: "a DaemonSet runs one pod per eligible node and has no replicas"},
		{name: "negative run-for", args: []string{"-f", "testdata/predict/job.yaml", "--run-for", "-1s"}, want: "--run-for must not be negative"},
		{name: "fail-first and fail-rate", args: []string{"-f", "testdata/predict/job.yaml", "--fail-first", "1", "--fail-rate", "0.5"}, want: "--fail-first or --fail-rate, not both"},
		{name: "fail-rate above 1", args: []string{"-f", "testdata/predict/job.yaml", "--fail-rate", "1.5"}, want: "--fail-rate 1.5: want a probability from 0 to 1"},
		{name: "negative fail-first", args: []string{"-f", "testdata/predict/job.yaml", "--fail-first", "-2"}, want: "--fail-first -2"},
		{name: "seed without fail-rate", args: []string{"-f", "testdata/predict/job.yaml", "--seed", "3"}, want: "--seed needs --fail-rate or --ready-spread"},
		{name: "ready-spread with a Job", args: []string{"-f", "testdata/predict/job.yaml", "--ready-spread", "1s"}, want: "--ready-spread applies to Deployments, StatefulSets and DaemonSets"},
		{name: "runs without spread", args: []string{"-f", "testdata/predict/new.yaml", "--runs", "10"}, want: "--runs needs --ready-spread"},
		{name: "negative spread", args: []string{"-f", "testdata/predict/new.yaml", "--ready-spread", "-1s"}, want: "--ready-spread -1s: must not be negative"},
		{name: "too many runs", args: []string{"-f", "testdata/predict/new.yaml", "--ready-spread", "1s", "--runs", "20000"}, want: "--runs 20000: at most 10000"},
		{name: "scale-down without replicas", args: []string{"replicaset/cache", "--state", "testdata/predict/scaledown.yaml"}, want: "replicaset/cache: a scale-down needs --replicas N"},
		{name: "scale-down with image", args: []string{"rs/cache", "--replicas", "2", "--image", "cache=redis:8", "--state", "testdata/predict/scaledown.yaml"}, want: "takes only --replicas"},
		{name: "deployment and replicaset", args: []string{"deployment/web", "replicaset/cache", "--replicas", "2", "--state", "testdata/predict/scaledown.yaml"}, want: "not both"},
		{name: "missing replicaset", args: []string{"replicaset/nope", "--replicas", "1", "--state", "testdata/predict/scaledown.yaml"}, want: "replicaset default/nope: not found in testdata/predict/scaledown.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"predict"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit code = %d, want 2 (stdout %q)", code, out)
			}
			if !strings.Contains(errOut+out, tt.want) {
				t.Errorf("output = %q %q, want it to mention %q", out, errOut, tt.want)
			}
			if strings.Contains(errOut, "panic") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("stderr = %q, want one line", errOut)
			}
		})
	}
}

// TestPredictBaseRef: the old version of the file comes from git, so a changed image predicts a
// rollout from the committed version, and a file new since the ref is a creation.
func TestPredictBaseRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	gitCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	old, err := os.ReadFile("testdata/predict/old.yaml")
	if err != nil {
		t.Fatal(err)
	}
	next, err := os.ReadFile("testdata/predict/new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "web.yaml")
	gitCmd("init", "-q")
	if err := os.WriteFile(file, old, 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd("add", "web.yaml")
	gitCmd("commit", "-q", "-m", "v1")
	if err := os.WriteFile(file, next, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "predict", "-f", file, "--base-ref", "HEAD")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "web.yaml at HEAD (assumed fully rolled out and available)") || !strings.Contains(out, "1 → 2") ||
		!strings.Contains(out, "from 0 to 1") {
		t.Errorf("predict --base-ref HEAD =\n%s\nwant a rollout from the committed version", out)
	}
	added := filepath.Join(dir, "added.yaml")
	if err := os.WriteFile(added, next, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, "", "predict", "-f", added, "--base-ref", "HEAD")
	if code != 0 || !strings.Contains(out, "does not exist at HEAD") || !strings.Contains(out, "from 0 to 3") {
		t.Errorf("predict of a file new since HEAD = exit %d\n%s\nwant a creation", code, out)
	}
	_, errOut, code = run(t, "", "predict", "-f", file, "--base-ref", "no-such-ref")
	if code != 2 || !strings.Contains(errOut, "no-such-ref") {
		t.Errorf("predict --base-ref no-such-ref = exit %d, stderr %q; want 2 naming the ref", code, errOut)
	}
}

// TestPredictNamespaceFromContext: a manifest without a namespace is in the kubeconfig
// context's namespace, as kubectl puts it, so a dump of that namespace is its baseline.
func TestPredictNamespaceFromContext(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	const config = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: shop
  context: {cluster: c, user: u, namespace: shop}
current-context: shop
`
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "predict", "--kubeconfig", kubeconfig, "--state", "testdata/predict/state-shop.yaml", "-f", "testdata/predict/new.yaml")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out, "Deployment shop/web") || !strings.Contains(out, "baseline            testdata/predict/state-shop.yaml: 2 ReplicaSets\n") {
		t.Errorf("predict with the context's namespace shop =\n%s\nwant shop/web from the dump, with no note", out)
	}
	out, _, code = run(t, "", "predict", "--kubeconfig", kubeconfig, "replicaset/cache", "--replicas", "3", "--state", "testdata/predict/scaledown-shop.yaml")
	if code != 0 || !strings.HasPrefix(out, "ReplicaSet shop/cache") || strings.Contains(out, "none was named") {
		t.Errorf("predict replicaset/cache with the context's namespace shop = exit %d\n%s\nwant shop/cache, with no note", code, out)
	}
}

// TestPredictTerminateAfterBoundedByGracePeriod: the kubelet kills a pod at the end of
// terminationGracePeriodSeconds (30s by default), however long --terminate-after says it runs.
func TestPredictTerminateAfterBoundedByGracePeriod(t *testing.T) {
	tests := []struct {
		name, flag, want string
	}{
		{name: "beyond the grace period", flag: "2m", want: "pods terminate      30s after deletion (--terminate-after 2m0s, cut to terminationGracePeriodSeconds 30)"},
		{name: "within it", flag: "20s", want: "pods terminate      20s after deletion (--terminate-after)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, files := range [][]string{{"-f", "testdata/predict/new.yaml", "--from", "testdata/predict/old.yaml"},
				{"-f", "testdata/predict/sts-new.yaml", "--from", "testdata/predict/sts-old.yaml"}} {
				out, errOut, code := run(t, "", append(append([]string{"predict"}, files...), "--terminate-after", tt.flag)...)
				if code != 0 || errOut != "" {
					t.Fatalf("%v: exit %d, stderr %q", files, code, errOut)
				}
				if !strings.Contains(out, tt.want) {
					t.Errorf("predict %v --terminate-after %s =\n%s\nwant %q", files, tt.flag, out, tt.want)
				}
			}
		})
	}
}

// TestPredictHelpShowsNoSentinels: a flag's help shows no internal sentinel such as
// "(default -1)".
func TestPredictHelpShowsNoSentinels(t *testing.T) {
	out, _, code := run(t, "", "predict", "--help")
	if code != 0 {
		t.Fatalf("predict --help: exit %d", code)
	}
	if strings.Contains(out, "(default -1)") || !strings.Contains(out, "--replicas int32") {
		t.Errorf("predict --help shows a sentinel default or lacks --replicas:\n%s", out)
	}
}
