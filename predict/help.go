package predict

// Help is `kubectl workload predict --help`'s long description: what predict models, its starting points and its exit status.
const Help = `Predict a Deployment rollout with the Deployment controller's own v1.37 arithmetic:
which ReplicaSet scales to what and when, the surge and availability bounds, how
long it takes, and where it stalls when the new pods never become ready.

The starting point is one of:
  --from OLD        the old manifests, assumed fully rolled out and available
  --state DUMP      kubectl get deploy,rs,pods -o yaml output, possibly mid-rollout
  --base-ref REF    each -f file as it was at a git ref
  TYPE/NAME, --live the cluster: the Deployment, its ReplicaSets and their pods,
                    and the namespace's autoscalers, read with one get and three
                    lists (read-only), unless --from, --state or --base-ref is given
  (nothing)         a Deployment created from scratch

Instead of -f, a change can be described as kubectl would make it, on top of the
state or of the --from manifests: --image, --replicas, --undo [--to-revision],
--resume, --restart, for deployment/NAME, and (but --resume) statefulset/NAME and
daemonset/NAME (--undo by ControllerRevision). With no change, the state shows what
happens next. With -f, TYPE/NAME picks that workload among the files, and a change
applies on top of the new manifests (--image to the workloads with that container).

A HorizontalPodAutoscaler that targets the workload (in the files, the dump or the
cluster) owns its replica count: the plan runs at the autoscaler's current count
from a state or the cluster, at its minReplicas from files, and says which.

The new manifest first goes through the API server's validation (an update of the
old object when there is one, so a changed selector is refused as the server
refuses it); a rejected manifest gets that verdict instead of a plan.

Pods become Ready after a time derived from their readiness and startup probes
(container start 2s + initialDelaySeconds + (successThreshold-1) x periodSeconds),
or --ready-after; deleted pods run for 5s (or their preStop sleep), bounded by
terminationGracePeriodSeconds, or --terminate-after.

StatefulSets and DaemonSets in -f are predicted the same way. Other kinds:
  CronJob (batch/v1)  the next --next N scheduled times (default 5) in its timeZone,
                      from --now (default: the current time), each with its Job's
                      name; --last-schedule T: the controller's sync at --now after
                      the times missed since T; --down FROM,TO: its first sync after
                      an outage; --run-for D: concurrencyPolicy when each Job runs D
  Job (batch/v1)      the waves of pods, the pod-failure backoff (10s doubling,
                      10m cap) and the ending, when each pod runs --run-for (default
                      10s) and --fail-first N pods fail, or each fails with
                      probability --fail-rate F (reproducible with --seed S)
  ReplicaSet, ReplicationController (scale-down)
                      which pods go first and the rule behind each step, from the
                      pods of --state or the cluster: replicaset/NAME --replicas N,
                      or -f rs.yaml with a smaller spec.replicas

Exit status: 0 when every rollout completes (OnDelete waiting for pods to be
deleted included); 1 when one is rejected, stalls or passes progressDeadlineSeconds
(even if it completes later), a Job fails (BackoffLimitExceeded, DeadlineExceeded,
failed indexes), or a CronJob's missed schedule starts no Job (past
startingDeadlineSeconds); 2 for usage or tool errors, a flag that applies to none of
the kinds predicted included.`

// Example is `kubectl workload predict --help`'s examples, in kubectl's indented form.
const Example = `  # How will applying web.yaml roll out, starting from what web-v1.yaml deployed?
  kubectl workload predict -f examples/good/web.yaml --from examples/predict/web-v1.yaml

  # The same, with the old version taken from git (pre-commit, PR review)
  kubectl workload predict -f k8s/web.yaml --base-ref origin/main

  # What would kubectl set image do to what web-v1.yaml deployed?
  kubectl workload predict deployment/web --from examples/predict/web-v1.yaml --image web=ghcr.io/example/web:1.5.0

  # From a state dump taken mid-rollout, what would kubectl set image do?
  kubectl get deploy,rs,pods -o yaml > state.yaml
  kubectl workload predict --state state.yaml deployment/web --image web=nginx:1.27

  # Where does the rollout stall if the new pods never become ready?
  kubectl workload predict -f examples/good/web.yaml --from examples/predict/web-v1.yaml --fail-new --chart

  # A picture of the timeline
  kubectl workload predict -f examples/good/web.yaml --from examples/predict/web-v1.yaml -o svg > rollout.svg

  # When does a CronJob run next, and does a Job start after the controller was down?
  kubectl workload predict -f examples/predict/report-cronjob.yaml --next 10
  kubectl workload predict -f examples/predict/report-cronjob.yaml --down 2026-03-08T05:00:00Z,2026-03-08T09:00:00Z

  # How does a Job end when its first 3 pods fail?
  kubectl workload predict -f batch-job.yaml --fail-first 3 --run-for 1m

  # Which pods does a ReplicaSet delete first when scaled to 2?
  kubectl get rs,pods -o yaml > pods.yaml
  kubectl workload predict replicaset/web-5c8f6b7d9 --replicas 2 --state pods.yaml`
