package scheduler

import (
	"context"
	"fmt"
	goruntime "runtime"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
)

// The upstream plugins run in-process: kube-scheduler's InterPodAffinity and PodTopologySpread
// (pkg/scheduler/framework/plugins), their PreFilter, Filter and, for ScheduleAnyway
// constraints, PodTopologySpread's PreScore, Score and NormalizeScore, over NodeInfos
// (pkg/scheduler/framework) the Scheduler keeps as pods come and go, in place of the
// scheduler cache's snapshot.

// plugin is what the Scheduler calls of an upstream plugin.
type plugin interface {
	fwk.PreFilterPlugin
	fwk.FilterPlugin
}

// upstream holds the plugins and the lister they read the cluster through.
type upstream struct {
	spread   plugin
	scorer   fwk.ScorePlugin
	prescore fwk.PreScorePlugin
	affinity plugin
}

// lister is the scheduler's snapshot lister (fwk.SharedLister) over the Scheduler's NodeInfos:
// only NodeInfos is read by the two plugins.
type lister struct {
	fwk.SharedLister
	sc *Scheduler
}

func (l lister) NodeInfos() fwk.NodeInfoLister { return l }

// List is every node's NodeInfo, cordoned ones too (the plugins count pods on them).
func (l lister) List() ([]fwk.NodeInfo, error) { return l.sc.infoList(), nil }

func (l lister) HavePodsWithAffinityList() ([]fwk.NodeInfo, error) {
	return l.sc.infosWith(func(n *framework.NodeInfo) bool { return len(n.PodsWithAffinity) > 0 }), nil
}

func (l lister) HavePodsWithRequiredAntiAffinityList() ([]fwk.NodeInfo, error) {
	return l.sc.infosWith(func(n *framework.NodeInfo) bool { return len(n.PodsWithRequiredAntiAffinity) > 0 }), nil
}

func (l lister) HavePodsWithRequiredNonHostScopedAntiAffinityList() ([]fwk.NodeInfo, error) {
	return l.sc.infosWith(func(n *framework.NodeInfo) bool { return len(n.PodsWithRequiredNonHostScopedAntiAffinity) > 0 }), nil
}

func (l lister) Get(name string) (fwk.NodeInfo, error) {
	if st := l.sc.state[name]; st != nil && st.node != nil {
		return st.info, nil
	}
	return nil, fmt.Errorf("nodeinfo not found for node name %q", name)
}

// workers runs the plugins' work pieces on GOMAXPROCS goroutines (fwk.Parallelizer, as
// parallelize's Parallelizer does, without the goroutine metrics it records, which only the
// scheduler registers); the plugins merge the pieces' results in piece order, so the outcome
// does not depend on the number of workers.
type workers struct{}

func (workers) Until(ctx context.Context, pieces int, do workqueue.DoWorkPieceFunc, _ string) {
	n := goruntime.GOMAXPROCS(0)
	if pieces < 64 || n == 1 {
		for i := 0; i < pieces && ctx.Err() == nil; i++ {
			do(i)
		}
		return
	}
	workqueue.ParallelizeUntil(ctx, n, pieces, do, workqueue.WithChunkSize(max(1, pieces/(4*n))))
}

// handle is the framework handle the plugins are made with (fwk.Handle): the lister, the
// workers, and namespaces, an informer factory with only the namespace lister InterPodAffinity
// reads (empty: no namespace is known, so a term's non-empty namespaceSelector matches none).
type handle struct {
	fwk.Handle
	lister  lister
	factory informers.SharedInformerFactory
}

func (h handle) SnapshotSharedLister() fwk.SharedLister                 { return h.lister }
func (h handle) Parallelizer() fwk.Parallelizer                         { return workers{} }
func (h handle) SharedInformerFactory() informers.SharedInformerFactory { return h.factory }

// namespaces is a SharedInformerFactory whose only part is Core().V1().Namespaces().Lister(),
// an empty lister; the factory's informers for every API group stay out of the binary
// (informers.NewSharedInformerFactory added 15 MB to it).
type namespaces struct {
	informers.SharedInformerFactory
}

type coreGroup struct{ coreinformers.Interface }

type coreV1 struct{ corev1informers.Interface }

type namespaceInformer struct {
	corev1informers.TypedNamespaceInformer
}

func (namespaces) Core() coreinformers.Interface                  { return coreGroup{} }
func (coreGroup) V1() corev1informers.Interface                   { return coreV1{} }
func (coreV1) Namespaces() corev1informers.TypedNamespaceInformer { return namespaceInformer{} }
func (namespaceInformer) Lister() corelisters.NamespaceLister {
	return corelisters.NewNamespaceLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}))
}

// plugins makes the upstream plugins, once, and fills the NodeInfos, kept from then on: PodTopologySpread with no default constraints (the
// Scheduler's own spread over a controller's pods stands in for the system defaults) and
// InterPodAffinity with its default arguments, the feature gates at their defaults.
func (sc *Scheduler) plugins() (*upstream, error) {
	if sc.up != nil {
		return sc.up, nil
	}
	ctx := context.Background()
	h := handle{lister: lister{sc: sc}, factory: namespaces{}}
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	up := &upstream{}
	for _, p := range []struct {
		args runtime.Object
		new  func(context.Context, runtime.Object, fwk.Handle, feature.Features) (fwk.Plugin, error)
		set  func(fwk.Plugin)
	}{
		{&config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting}, podtopologyspread.New, func(p fwk.Plugin) {
			up.spread, up.scorer, up.prescore = p.(plugin), p.(fwk.ScorePlugin), p.(fwk.PreScorePlugin)
		}},
		{&config.InterPodAffinityArgs{HardPodAffinityWeight: 1}, interpodaffinity.New, func(p fwk.Plugin) { up.affinity = p.(plugin) }},
	} {
		pl, err := p.new(ctx, p.args, h, fts)
		if err != nil {
			return nil, fmt.Errorf("scheduler plugin: %w", err)
		}
		p.set(pl)
	}
	sc.up = up
	for _, st := range sc.state {
		for _, p := range st.pods {
			sc.track(st, p, 1)
		}
	}
	return up, nil
}

// infoList is the NodeInfos of the known nodes, in name order, cordoned ones too.
func (sc *Scheduler) infoList() []fwk.NodeInfo {
	if sc.infos == nil {
		sc.infos = make([]fwk.NodeInfo, 0, len(sc.nodes))
		var last *nodeState
		for _, st := range sc.nodes {
			if st != last {
				sc.infos = append(sc.infos, st.info)
			}
			last = st
		}
	}
	return sc.infos
}

func (sc *Scheduler) infosWith(ok func(*framework.NodeInfo) bool) []fwk.NodeInfo {
	var out []fwk.NodeInfo
	for _, n := range sc.infoList() {
		if ok(n.(*framework.NodeInfo)) {
			out = append(out, n)
		}
	}
	return out
}

// interPod reports whether InterPodAffinity has anything to check for pod: its own pod
// (anti-)affinity, or existing pods' required anti-affinity.
func (sc *Scheduler) interPod(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	return sc.antiAffinityPods > 0 || (a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil))
}

// cycle is one pod's run of the upstream plugins: their PreFilter states, and which Filters
// run.
type cycle struct {
	up               *upstream
	state            fwk.CycleState
	spread, affinity bool
	preFilterUnsched *fwk.Status
	anyway           bool
	ctx              context.Context
	scores           map[string]int64
}

// preFilter runs the plugins' PreFilter for pod (framework.RunPreFilterPlugins): a plugin
// that skips has no Filter; one that rejects the pod rejects every node with its status.
func (sc *Scheduler) preFilter(pod *v1.Pod) (*cycle, error) {
	spread := len(pod.Spec.TopologySpreadConstraints) > 0
	affinity := sc.interPod(pod)
	if !spread && !affinity {
		return nil, nil
	}
	up, err := sc.plugins()
	if err != nil {
		return nil, err
	}
	c := &cycle{up: up, state: framework.NewCycleState(), ctx: context.Background()}
	nodes := sc.infoList()
	for _, p := range []struct {
		on  bool
		pl  plugin
		run *bool
	}{{spread, up.spread, &c.spread}, {affinity, up.affinity, &c.affinity}} {
		if !p.on {
			continue
		}
		_, st := p.pl.PreFilter(c.ctx, c.state, pod, nodes)
		switch {
		case st.IsSkip():
		case st.IsSuccess():
			*p.run = true
		case st.IsRejected():
			if c.preFilterUnsched == nil {
				c.preFilterUnsched = st
			}
		default:
			return nil, fmt.Errorf("%s: %w", p.pl.Name(), st.AsError())
		}
	}
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == v1.ScheduleAnyway {
			c.anyway = true
		}
	}
	return c, nil
}

// filter runs the plugins' Filter on the node, PodTopologySpread first (the default
// profile's order); it returns the first rejection's reasons, nil when the node passes.
func (c *cycle) filter(pod *v1.Pod, info fwk.NodeInfo) []string {
	if c == nil {
		return nil
	}
	if c.preFilterUnsched != nil {
		return c.preFilterUnsched.Reasons()
	}
	if c.spread {
		if st := c.up.spread.Filter(c.ctx, c.state, pod, info); !st.IsSuccess() {
			return reasonsOf(st)
		}
	}
	if c.affinity {
		if st := c.up.affinity.Filter(c.ctx, c.state, pod, info); !st.IsSuccess() {
			return reasonsOf(st)
		}
	}
	return nil
}

func reasonsOf(st *fwk.Status) []string {
	if r := st.Reasons(); len(r) > 0 {
		return r
	}
	return []string{st.Message()}
}

// score runs PodTopologySpread's PreScore, Score and NormalizeScore over the nodes that
// passed the filters when the pod has ScheduleAnyway constraints (framework.RunScorePlugins
// for that one plugin); byName then gives each node's normalized score (higher is better).
func (c *cycle) score(pod *v1.Pod, feasible []fwk.NodeInfo) error {
	if c == nil || !c.anyway || len(feasible) == 0 {
		return nil
	}
	st := c.up.prescore.PreScore(c.ctx, c.state, pod, feasible)
	if st.IsSkip() {
		return nil
	}
	if !st.IsSuccess() {
		return fmt.Errorf("%s prescore: %w", c.up.prescore.Name(), st.AsError())
	}
	scores := make(fwk.NodeScoreList, 0, len(feasible))
	for _, n := range feasible {
		s, st := c.up.scorer.Score(c.ctx, c.state, pod, n)
		if !st.IsSuccess() {
			return fmt.Errorf("%s score: %w", c.up.scorer.Name(), st.AsError())
		}
		scores = append(scores, fwk.NodeScore{Name: n.Node().Name, Score: s})
	}
	if ext := c.up.scorer.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(c.ctx, c.state, pod, scores); !st.IsSuccess() {
			return fmt.Errorf("%s normalize: %w", c.up.scorer.Name(), st.AsError())
		}
	}
	c.scores = make(map[string]int64, len(scores))
	for _, s := range scores {
		c.scores[s.Name] = s.Score
	}
	return nil
}
