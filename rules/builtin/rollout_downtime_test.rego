package kubectl_workload.rules.rollout_downtime_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.rollout_downtime
import rego.v1

dep(replicas, surge, unavailable) := {
	"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
	"spec": {"replicas": replicas, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}},
}

# unset_replicas is dep without spec.replicas, as written; defaulted to 1.
unset_replicas(surge, unavailable) := {
	"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
	"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}},
}

hpa(name, min_replicas) := {
	"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2", "name": name,
	"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": min_replicas, "maxReplicas": 10},
}

findings_for(obj, defaulted_replicas, entries) := fs if {
	defaulted := object.union(obj, {"spec": object.union(obj.spec, {"replicas": defaulted_replicas})})
	fs := rollout_downtime.findings with input as object.union(h.with_ns(obj), {"defaulted": defaulted})
		with data.kubectl_workload.inventory as h.inventory(array.concat([h.deployment("web", {"app": "web"}, defaulted_replicas)], entries))
}

test_one_replica_no_surge if {
	fs := findings_for(dep(1, 0, 1), 1, [])
	count(fs) == 1
	some f in fs
	f.path == "spec.strategy.rollingUpdate.maxSurge"
	contains(f.msg, "all 1 pods down")
}

test_percentages_resolving_to_zero_zero_on_three_replicas if {
	# 25% of 3 rounds down to 0; with maxSurge 0 the controller forces 1.
	fs := findings_for(dep(3, 0, "25%"), 3, [])
	count(fs) == 1
	some f in fs
	contains(f.msg, "forces maxUnavailable to 1")
}

test_default_strategy_is_safe if {
	count(findings_for(dep(3, "25%", "25%"), 3, [])) == 0
}

test_surge_without_unavailable_is_safe if {
	count(findings_for(dep(1, 1, 0), 1, [])) == 0
}

# Issue 29: a surge does not keep old pods. With maxUnavailable reaching
# replicas, the controller scales the new ReplicaSet up, then the old one
# down to 0 before the new pod is ready (predict: minimum 0 available).
test_surge_with_all_unavailable_is_reported if {
	fs := findings_for(dep(1, 1, 1), 1, [])
	count(fs) == 1
	some f in fs
	contains(f.msg, "can leave no pod available")
}

# Issue 18: replicas left to an autoscaler (minReplicas 3) are not the
# default 1: maxSurge 0 and maxUnavailable 1 take one pod of three down, not
# all of them.
test_autoscaled_replicas_use_min_replicas if {
	count(findings_for(unset_replicas(0, 1), 1, [hpa("web", 3)])) == 0
}

test_autoscaled_min_replicas_still_reported if {
	fs := findings_for(unset_replicas(0, 1), 1, [hpa("web", 1)])
	count(fs) == 1
	some f in fs
	contains(f.msg, "all 1 pods down")
	contains(f.msg, "the minReplicas of HorizontalPodAutoscaler web")
}

test_unset_replicas_without_autoscaler_is_one if {
	fs := findings_for(unset_replicas(0, 1), 1, [])
	count(fs) == 1
}

test_replicas_set_ignores_autoscaler if {
	# spec.replicas given: hpa/replicas-set reports the conflict; the rollout is
	# checked at the count written.
	count(findings_for(dep(1, 0, 1), 1, [hpa("web", 3)])) == 1
}
