package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// DefaultControllers are the kube-controller-manager controllers StartControllers runs when
// ControllerOptions.Controllers is empty: the workload controllers, the disruption controller
// (PodDisruptionBudget status, which evictions read), the TTL-after-finished controller, the
// garbage collector and namespace controller that clean up after them, the service-account
// controller (without it a
// new namespace has no "default" service account and every pod is refused), and the
// node-lifecycle controller, which lifts the node.kubernetes.io/not-ready taint the API server
// puts on every new Node once kwok reports it Ready.
var DefaultControllers = []string{
	"deployment-controller",
	"replicaset-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
	"cronjob-controller",
	"garbage-collector-controller",
	"disruption-controller",
	"ttl-after-finished-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"node-lifecycle-controller",
}

// ControllerOptions configure StartControllers.
type ControllerOptions struct {
	// Nodes is how many kwok Nodes to create, named kwok-node-0, kwok-node-1, …; 0 means 1.
	Nodes int
	// Controllers is kube-controller-manager's --controllers list; empty means
	// DefaultControllers.
	Controllers []string
	// PodStages, when set, is a YAML stream of kwok Stage objects for Pods that replaces kwok's
	// default pod stages (pod-ready, pod-complete, pod-delete: every bound pod turns Running
	// and Ready at once, every deleted pod is removed at once). KwokQuantizedPodStages is one.
	PodStages string
	// ReadyTimeout bounds the wait for every component and every Node to be usable; zero
	// means two minutes.
	ReadyTimeout time.Duration
}

// Controllers are the components StartControllers started beside a Cluster's API server.
// The Cluster owns their processes: Cluster.Stop ends them by PID.
type Controllers struct {
	ControllerManager *Process
	Scheduler         *Process
	Kwok              *Process
	// Nodes are the names of the kwok Nodes, all Ready and schedulable.
	Nodes []string
}

// StartControllers starts kube-controller-manager, kube-scheduler and kwok (from c.BinDir)
// against c, creates opts.Nodes kwok Nodes, and waits until every Node is Ready without the
// not-ready taint and the "default" service account of the "default" namespace exists, so
// that a Deployment applied afterwards gets pods that are scheduled and turn Ready. Every
// process is a child of c: Cluster.Stop ends them by PID. On error the processes already
// started keep running until Cluster.Stop, and the error carries the tail of their logs.
//
// kube-controller-manager runs with leader election off, no serving port, and a client rate
// limit high enough (200 QPS) that several rollouts at once are not throttled; kwok manages
// every Node (--manage-all-nodes).
func (c *Cluster) StartControllers(ctx context.Context, opts ControllerOptions) (*Controllers, error) {
	if opts.Nodes <= 0 {
		opts.Nodes = 1
	}
	if len(opts.Controllers) == 0 {
		opts.Controllers = DefaultControllers
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 2 * time.Minute
	}
	for _, b := range []string{"kube-controller-manager", "kube-scheduler", "kwok"} {
		if _, err := os.Stat(filepath.Join(c.BinDir, b)); err != nil {
			return nil, fmt.Errorf("start controllers: %w (run hack/install-control-plane.sh etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok)", err)
		}
	}
	fail := func(err error) (*Controllers, error) {
		return nil, fmt.Errorf("%w\n%s", err, c.LogTail(30))
	}
	kc := "--kubeconfig=" + c.Kubeconfig
	out := &Controllers{}
	var err error
	out.ControllerManager, err = c.StartProcess("kube-controller-manager", filepath.Join(c.BinDir, "kube-controller-manager"),
		kc,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers="+strings.Join(opts.Controllers, ","),
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		// kwok renews its Node Leases every 10s; on a loaded 2-core machine a late renewal
		// must not make the node-lifecycle controller mark every pod NotReady.
		"--node-monitor-grace-period=5m",
		"--concurrent-deployment-syncs=10",
		"--concurrent-replicaset-syncs=10",
	)
	if err != nil {
		return fail(err)
	}
	out.Scheduler, err = c.StartProcess("kube-scheduler", filepath.Join(c.BinDir, "kube-scheduler"),
		kc,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
	)
	if err != nil {
		return fail(err)
	}
	kwokArgs := []string{kc, "--manage-all-nodes=true"}
	// kwok reads ~/.kwok/kwok.yaml unless told otherwise; point it at a file of ours, empty
	// unless pod stages are given.
	kwokConfig := filepath.Join(c.Dir, "kwok.yaml")
	if err := os.WriteFile(kwokConfig, []byte(opts.PodStages), 0o600); err != nil {
		return fail(fmt.Errorf("start kwok: write %s: %w", kwokConfig, err))
	}
	kwokArgs = append(kwokArgs, "--config="+kwokConfig)
	// kwok serves a fake kubelet API; keep it off the well-known port so that two clusters
	// can run side by side.
	ports, err := freePorts(1)
	if err != nil {
		return fail(fmt.Errorf("start kwok: %w", err))
	}
	kwokArgs = append(kwokArgs, "--node-port="+strconv.Itoa(ports[0]), "--server-address=127.0.0.1:0",
		// With a --config file that holds no KwokConfiguration, kwok v0.7.0 leaves the node
		// lease duration at 0: it then renews no Lease and refreshes Node status only every
		// 10–20 minutes, so the node-lifecycle controller finds every Node unhealthy after its
		// 50s grace period and marks all their pods NotReady (which kwok never undoes).
		"--node-lease-duration-seconds=40")
	out.Kwok, err = c.StartProcess("kwok", filepath.Join(c.BinDir, "kwok"), kwokArgs...)
	if err != nil {
		return fail(err)
	}

	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return fail(fmt.Errorf("start controllers: clientset: %w", err))
	}
	for i := range opts.Nodes {
		name := "kwok-node-" + strconv.Itoa(i)
		if err := createKwokNode(ctx, cs, name); err != nil {
			return fail(err)
		}
		out.Nodes = append(out.Nodes, name)
	}
	procs := []*Process{out.ControllerManager, out.Scheduler, out.Kwok}
	if err := waitFor(ctx, procs, opts.ReadyTimeout, "kwok nodes Ready and untainted", func() (bool, error) {
		return nodesSchedulable(ctx, cs, out.Nodes)
	}); err != nil {
		return fail(err)
	}
	if err := waitFor(ctx, procs, opts.ReadyTimeout, "service account default/default", func() (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}); err != nil {
		return fail(err)
	}
	return out, nil
}

// createKwokNode creates a Node for kwok to manage, with room for a thousand pods.
func createKwokNode(ctx context.Context, cs kubernetes.Interface, name string) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("1000"),
		corev1.ResourceMemory: resource.MustParse("1Ti"),
		corev1.ResourcePods:   resource.MustParse("1000"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": name},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	return nil
}

// nodesSchedulable reports whether every named Node is Ready and carries no NoSchedule or
// NoExecute taint.
func nodesSchedulable(ctx context.Context, cs kubernetes.Interface, names []string) (bool, error) {
	for _, name := range names {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("get node %s: %w", name, err)
		}
		ready := false
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			return false, nil
		}
		for _, t := range n.Spec.Taints {
			if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
				return false, nil
			}
		}
	}
	return true, nil
}

// waitFor polls cond every 200ms until it is true, it errs, one of procs exits, ctx ends, or
// timeout passes.
func waitFor(ctx context.Context, procs []*Process, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		for _, p := range procs {
			if exited, err := p.Exited(); exited {
				return fmt.Errorf("wait for %s: %s exited: %v (log %s)", what, p.Name, err, p.LogPath)
			}
		}
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for %s: not done after %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", what, errors.Join(ctx.Err(), context.Cause(ctx)))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// KwokQuantizedPodStages returns kwok pod stages that make pods become available in waves,
// for rollouts whose pods have minReadySeconds > 0. They are kwok's default stages
// (pod-ready, pod-complete, pod-delete) except that pod-ready dates the Ready condition's
// lastTransitionTime at the next multiple of quantum seconds of the wall clock instead of now.
//
// Why: with the default stages every pod turns Ready a few milliseconds after it is bound, so
// pods the ReplicaSet controller created together turn Ready one by one, and the Deployment
// controller, which counts available pods, sometimes sees a wave as 1 + 2 instead of 3 and
// takes a different step than a simulation in which the wave becomes ready together. A pod is
// available once it has been Ready for minReadySeconds (IsPodAvailable compares
// lastTransitionTime + minReadySeconds with now), and the ReplicaSet controller re-checks at
// exactly that time (FindMinNextPodAvailabilityCheck). Pods whose Ready conditions carry the
// same lastTransitionTime therefore become available in the same ReplicaSet sync, whatever
// order kwok readied them in. The wall clock at quantum boundaries is the shared instant.
//
// Example, quantum 3 and minReadySeconds 1: pods created at 10.3s and 10.5s are Ready with
// lastTransitionTime 12s and both become available at 13s; the pods the Deployment controller
// creates in reaction (at about 13.05s) get 15s and become available at 16s. Every wave takes
// 3s and starts about 1s after a boundary, so a wave splits only if creating, scheduling and
// readying it takes two seconds.
func KwokQuantizedPodStages(quantum int) string {
	return fmt.Sprintf(kwokQuantizedPodStages, quantum)
}

// kwokQuantizedPodStages is kwok v0.7.0's kustomize/stage/pod/fast stages with the Ready time
// quantized. %[1]d is the quantum in seconds.
const kwokQuantizedPodStages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.podIP'
      operator: 'DoesNotExist'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $q := %[1]d }}
      {{ $sec := now | unixEpoch | atoi }}
      {{ $readyAt := dateInZone "2006-01-02T15:04:05Z" (mul (add1 (div $sec $q)) $q) "UTC" }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $readyAt | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $readyAt | Quote }}
        status: "True"
        type: ContainersReady
      {{ range .spec.readinessGates }}
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: {{ .conditionType | Quote }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        {{ if eq .restartPolicy "Always" }}
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
        {{ else }}
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
        {{ end }}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-complete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Running'
    - key: '.metadata.ownerReferences.[].kind'
      operator: 'In'
      values:
      - 'Job'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      {{ $origin := index $root.status.containerStatuses $index }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Succeeded
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
  next:
    finalizers:
      empty: true
    delete: true
`
