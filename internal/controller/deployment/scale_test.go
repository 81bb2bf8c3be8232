package deployment

import (
	"testing"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

// TestScale holds the facts of upstream's TestScale (sync_test.go) listed in controllers.md
// B.10. Sizes are listed newest first: new (or newest) ReplicaSet, then older ones. Every
// ReplicaSet carries the annotations the previous Deployment wrote (desired = old replicas,
// max = old replicas + old MaxSurge), unless desired overrides it.
func TestScale(t *testing.T) {
	surge := func(n int32) *intstr.IntOrString { return intOrStr(intstr.FromInt32(n)) }
	tests := []struct {
		name        string
		oldReplicas int32
		oldSurge    *intstr.IntOrString
		replicas    int32
		surge       *intstr.IntOrString
		noNewRS     bool
		sizes       []int32 // newest first; sizes[0] is the new RS unless noNewRS
		desired     map[int]int32
		available   map[int]int32
		want        []int32
	}{
		{name: "10 -> 12", oldReplicas: 10, replicas: 12, sizes: []int32{10}, want: []int32{12}},
		{name: "10 -> 5", oldReplicas: 10, replicas: 5, sizes: []int32{10}, want: []int32{5}},
		{name: "proportional 5 -> 10", oldReplicas: 5, replicas: 10, sizes: []int32{2, 3}, want: []int32{4, 6}},
		{name: "proportional 5 -> 3", oldReplicas: 5, replicas: 3, sizes: []int32{2, 3}, want: []int32{1, 2}},
		{name: "proportional 9 -> 4", oldReplicas: 9, replicas: 4, sizes: []int32{8, 1}, want: []int32{4, 0}},
		{name: "proportional 7 -> 10", oldReplicas: 7, replicas: 10, sizes: []int32{2, 3, 2}, want: []int32{3, 4, 3}},
		{name: "proportional 13 -> 8", oldReplicas: 13, replicas: 8, sizes: []int32{2, 8, 3}, want: []int32{1, 5, 2}},
		{name: "leftover up goes to the newest", oldReplicas: 3, replicas: 4, sizes: []int32{1, 1, 1}, want: []int32{2, 1, 1}},
		{name: "leftover down comes from the oldest", oldReplicas: 3, replicas: 2, sizes: []int32{1, 1, 1}, want: []int32{1, 1, 0}},
		{name: "no new RS, latest first", oldReplicas: 4, replicas: 5, noNewRS: true, sizes: []int32{2, 2}, want: []int32{3, 2}},
		{name: "6 -> 0", oldReplicas: 6, replicas: 0, sizes: []int32{3, 2, 1}, want: []int32{0, 0, 0}},
		{name: "0 -> 6 scales only the newest", oldReplicas: 0, replicas: 6, sizes: []int32{0, 0, 0}, want: []int32{6, 0, 0}},
		{name: "failed rs update", oldReplicas: 5, replicas: 5, sizes: []int32{2, 1, 1}, desired: map[int]int32{1: 3}, want: []int32{2, 2, 1}},
		{name: "surge 2, 10 -> 20", oldReplicas: 10, oldSurge: surge(2), replicas: 20, surge: surge(2), sizes: []int32{6, 6}, want: []int32{11, 11}},
		{name: "surge 3 -> 6, 10 -> 50", oldReplicas: 10, oldSurge: surge(3), replicas: 50, surge: surge(6), sizes: []int32{5, 8}, want: []int32{22, 34}},
		{name: "template changed, 10 -> 14, no new RS", oldReplicas: 10, replicas: 14, noNewRS: true, sizes: []int32{7, 3}, want: []int32{10, 4}},
		{name: "saturated but broken new RS", oldReplicas: 2, oldSurge: surge(1), replicas: 2, surge: surge(1), sizes: []int32{2, 1}, available: map[int]int32{0: 0}, want: []int32{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldD := fixtureDeployment(tt.oldReplicas, tt.oldSurge, nil)
			d := fixtureDeployment(tt.replicas, tt.surge, nil)
			// Creation times one hour apart, newest first in sizes.
			rss := make([]*apps.ReplicaSet, len(tt.sizes))
			for i, size := range tt.sizes {
				ts := newTimestamp.Add(-hours(i))
				rs := fixtureRS("foo-v"+itoa(int32(len(tt.sizes)-i)), size, metaTime(ts))
				desired := tt.oldReplicas
				if v, ok := tt.desired[i]; ok {
					desired = v
				}
				deploymentutil.SetReplicasAnnotations(rs, desired, desired+deploymentutil.MaxSurge(*oldD))
				if v, ok := tt.available[i]; ok {
					rs.Status.AvailableReplicas = v
				}
				rss[i] = rs
			}
			newRS, oldRSs := rss[0], rss[1:]
			if tt.noNewRS {
				newRS, oldRSs = nil, rss
			}
			dc := newFixedClockController(newTimestamp.Time, nil)
			dc.scale(d, newRS, oldRSs)
			for i, rs := range rss {
				if *rs.Spec.Replicas != tt.want[i] {
					t.Errorf("scale(%d -> %d) left %s at %d, want %d", tt.oldReplicas, tt.replicas, rs.Name, *rs.Spec.Replicas, tt.want[i])
				}
			}
		})
	}
}
