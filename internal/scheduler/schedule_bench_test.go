//go:build unix

package scheduler

import (
	"fmt"
	"syscall"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// benchCluster is 500 nodes in 3 zones holding 10,000 pods of 500 workloads (20 each), each
// pod made by mk; the workloads' pods run round-robin over the nodes.
func benchCluster(b *testing.B, mk func(app string) *v1.Pod) *Scheduler {
	b.Helper()
	var nodes []*v1.Node
	for i := range 500 {
		nodes = append(nodes, ShapedNodes([]string{fmt.Sprintf("node-%03d", i)}, NodeShape{CPU: resource.MustParse("64"), Memory: resource.MustParse("256Gi"), Pods: 110,
			Labels: map[string]string{v1.LabelTopologyZone: fmt.Sprintf("z%d", i%3)}})...)
	}
	sc := New(nodes)
	for i := range 10000 {
		p := mk(fmt.Sprintf("app-%d", i/20))
		p.Name, p.Spec.NodeName = fmt.Sprintf("p-%d", i), nodes[i%500].Name
		sc.Add(p, 1)
	}
	return sc
}

func benchPod(app string) *v1.Pod {
	p := podOf("", app, nil)
	p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}}}
	return p
}

// BenchmarkSchedule is the cost of placing one pod in a 500-node, 10,000-pod cluster: a pod
// without constraints; one with a DoNotSchedule zone spread constraint; one with hostname
// anti-affinity in a cluster where every pod has it.
func BenchmarkSchedule(b *testing.B) {
	withSpread := func(app string) *v1.Pod {
		p := benchPod(app)
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{spread(app, v1.LabelTopologyZone, 1, v1.DoNotSchedule)}
		return p
	}
	withAnti := func(app string) *v1.Pod {
		p := benchPod(app)
		p.Spec.Affinity = antiAffinity(app, v1.LabelHostname)
		return p
	}
	for _, bc := range []struct {
		name string
		mk   func(string) *v1.Pod
	}{{"plain", benchPod}, {"spread", withSpread}, {"anti-affinity", withAnti}} {
		b.Run(bc.name, func(b *testing.B) {
			sc := benchCluster(b, bc.mk)
			p := bc.mk("app-7")
			p.ObjectMeta = metav1.ObjectMeta{Name: "new", Namespace: "default", Labels: p.Labels, OwnerReferences: p.OwnerReferences}
			sc.Schedule(p) // the NodeInfos are built on first need
			// CPU time, not wall time: on a loaded machine the wall clock counts waiting.
			before := cpuTime()
			n := 0
			for b.Loop() {
				if sc.Schedule(p) == "" {
					b.Fatal("no node")
				}
				n++
			}
			b.ReportMetric(float64(cpuTime()-before)/float64(n), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system time so far, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
