package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-workload/kubectl-workload/internal/version"
	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// TestPredictJobTTLDifferential runs real Jobs with ttlSecondsAfterFinished 0 and 5 to the end
// and checks the TTL-after-finished controller deletes each when the plan says: its Complete
// condition's time plus the TTL (the condition's time is stored in whole seconds, so the real
// deletion comes up to a second and the controller's reaction later than the plan's
// finish + TTL, never earlier), its pods gone with it (foreground propagation). kwok completes
// a Job's pods at once, so the finish times themselves are not compared, only the TTL after.
func TestPredictJobTTLDifferential(t *testing.T) {
	c := sharedCluster(t)
	sharedControllers(t)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ns := "ttl-e2e"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, ttl := range []int{0, 5} {
		t.Run(fmt.Sprintf("ttl-%d", ttl), func(t *testing.T) {
			name := fmt.Sprintf("report-ttl-%d", ttl)
			manifest := fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata: {name: %s, namespace: %s}
spec:
  ttlSecondsAfterFinished: %d
  template:
    spec:
      restartPolicy: Never
      containers: [{name: report, image: busybox}]
`, name, ns, ttl)
			path := filepath.Join(t.TempDir(), "job.yaml")
			if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
				t.Fatal(err)
			}
			planned := plannedTTL(t, ctx, path)
			if planned != time.Duration(ttl)*time.Second {
				t.Fatalf("predict: deleted %s after the finish, want ttlSecondsAfterFinished %ds", planned, ttl)
			}
			// A watch, started before the Job exists, sees its Complete condition even when
			// a TTL of 0 deletes it within milliseconds.
			w, err := cs.BatchV1().Jobs(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if out, err := c.Kubectl(ctx, "apply", "-f", path); err != nil {
				t.Fatalf("apply: %v: %s", err, out)
			}
			var finished, gone time.Time
			timeout := time.After(time.Minute)
			for gone.IsZero() {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("watch of job %s ended", name)
					}
					j, isJob := ev.Object.(*batchv1.Job)
					if !isJob {
						continue
					}
					for _, cond := range j.Status.Conditions {
						if (cond.Type == batchv1.JobComplete || cond.Type == batchv1.JobFailed) && cond.Status == corev1.ConditionTrue {
							finished = cond.LastTransitionTime.Time
						}
					}
					if ev.Type == watch.Deleted {
						gone = time.Now()
					}
				case <-timeout:
					t.Fatalf("job %s not deleted within a minute", name)
				}
			}
			if finished.IsZero() {
				t.Fatalf("job %s was deleted before it was seen finished", name)
			}
			after := gone.Sub(finished)
			t.Logf("ttl %ds: finished %s (condition time), gone %s later; plan: %s", ttl, finished.Format(time.RFC3339), after.Round(10*time.Millisecond), planned)
			if after < planned || after > planned+2500*time.Millisecond {
				t.Errorf("job %s gone %s after its Complete condition, want %s to %s", name, after, planned, planned+2500*time.Millisecond)
			}
			pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + name})
			if err != nil {
				t.Fatal(err)
			}
			if len(pods.Items) != 0 {
				t.Errorf("job %s gone with %d pods left, want its pods deleted first (foreground)", name, len(pods.Items))
			}
		})
	}
}

// plannedTTL runs predict on the Job manifest and returns the plan's deletion time after
// the finish.
func plannedTTL(t *testing.T, ctx context.Context, path string) time.Duration {
	t.Helper()
	var out bytes.Buffer
	plan, err := predict.Predict(ctx, predict.Request{Files: []string{path}, Namespace: "default", Next: predict.DefaultNext,
		Clock: time.Now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := planreport.JSON(&out, plan.Result, version.Get().Kubernetes); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Predictions []struct {
			Job *struct {
				TTL *struct {
					Finished float64 `json:"finishedAtSeconds"`
					Deleted  float64 `json:"deletedAtSeconds"`
				} `json:"ttlAfterFinished"`
			} `json:"job"`
		} `json:"predictions"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("predict -o json: %v:\n%s", err, out.String())
	}
	for _, p := range doc.Predictions {
		if p.Job != nil && p.Job.TTL != nil {
			return time.Duration((p.Job.TTL.Deleted - p.Job.TTL.Finished) * float64(time.Second))
		}
	}
	t.Fatalf("predict -o json has no ttlAfterFinished:\n%s", out.String())
	return 0
}
