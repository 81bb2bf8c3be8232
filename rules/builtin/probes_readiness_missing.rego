# METADATA
# title: Container behind a Service without a readiness probe
# description: |
#   A Service sends connections to the pods it selects once they are Ready,
#   and the kubelet marks a running container without a readinessProbe
#   ready at once and for as long as it runs (a startupProbe only delays the
#   first time): the EndpointSlice controller then keeps the pod among the
#   Service's endpoints while its container starts up, warms up, is
#   overloaded or has lost its database, and clients get errors instead of
#   being sent to another pod. Reported for each container a Service of the
#   input in the workload's namespace targets (the container declaring the
#   Service port's targetPort, by name or number; the only container of the
#   pod when none declares a numeric one) that has no readinessProbe.
#   rollout/no-readiness-probe reports a rolling update whose pods have no
#   readiness or startup probe at all; this rule leaves those workloads to
#   it. Objects owned by a controller are left to their owner, and workloads
#   with 0 replicas are left out.
# custom:
#   id: probes/readiness-missing
#   severity: warning
#   kinds: [Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Pod]
#   remediation: Add a readinessProbe to the container that fails while it cannot serve requests (an HTTP GET on a health endpoint that checks what the container needs).
package kubectl_workload.rules.probes_readiness_missing

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

me := xref.entry(input.key)

# pod_labels are the input's own pod labels; the inventory's entry for its
# key is read only when it carries them (two objects of one Kind/name: the
# last one wins there).
pod_labels := object.get(input.object, ["metadata", "labels"], {}) if {
	input.object.kind == "Pod"
} else := object.get(input.defaulted, ["spec", "template", "metadata", "labels"], {})

pods := me.pods if xref.pod_labels(me) == pod_labels

services := sort([k | some k in xref.selectors_matching(pod_labels, {"Service"})])

# targets contains [index in pods.unready, Service key]: the Service sends
# to that container.
targets contains [i, svc] if {
	some svc in services
	some sp in object.get(xref.entry(svc), ["spec", "ports"], [])
	some i, c in pods.unready
	targeted(sp, c)
}

target_of(sp) := object.get(sp, "targetPort", sp.port)

# targeted(sp, c): the Service port sp sends to container c: c declares its
# named targetPort (name and protocol, as podutil.FindPort), or its numeric
# one, or no container declares that number and c is the pod's only
# container.
targeted(sp, c) if {
	is_string(target_of(sp))
	sprintf("%s/%s", [target_of(sp), object.get(sp, "protocol", "TCP")]) in c.portNames
}

targeted(sp, c) if {
	is_number(target_of(sp))
	target_of(sp) in c.portNumbers
}

targeted(sp, c) if {
	is_number(target_of(sp))
	not target_of(sp) in pods.portNumbers
	pods.regular == 1
	c.field == "containers"
}

# max_named is how many Services a finding names; it counts the others.
max_named := 5

# go_targets is targeted_containers as the inventory computed it once per
# set of selecting Services and pod summary (rules/bounded.go,
# "readiness_targets"): walking every selecting Service's ports for every
# workload is n² work when n Services select the same n workloads. The
# definitions below are the fallback, and the reference the Go code mirrors.
go_targets := t if {
	is_object(pods)
	t := me.readiness_targets
}

# targeted_containers maps the index in pods.unready of each container some
# Service sends to, to the first max_named of those Services' names, sorted,
# and their count.
targeted_containers := go_targets if {
	go_targets
} else := {i: {"first": array.slice(svcs, 0, max_named), "count": count(svcs)} |
	some i in {i | some [i, _] in targets}
	svcs := sort({xref.name_of(s) | some [j, s] in targets; j == i})
}

findings contains f if {
	input.object.kind in {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Pod"}
	not lib.owned_by_controller
	object.get(input.defaulted, ["spec", "replicas"], 1) > 0
	is_object(pods)
	count(pods.unready) > 0 # before the Services are looked up (targets)
	not left_to_rollout_rule
	some i, svcs in targeted_containers
	c := pods.unready[i]
	f := object.union(
		{
			"msg": sprintf(
				"%s %q has no readinessProbe, but %s %s %s connections to it: the pod stays among the endpoints while the container %s, so clients get errors instead of another pod",
				[label(c), c.name, service_word(svcs.count), names_text(svcs), send_word(svcs.count), unready_phrase(c)],
			),
			"path": sprintf("%s.%s[%d]", [pod_spec_path, c.field, c.index]),
		},
		{"related_count": svcs.count | svcs.count > max_named},
	)
}

names_text(svcs) := concat(", ", svcs.first) if {
	svcs.count <= max_named
} else := sprintf("%s and %d more", [concat(", ", svcs.first), svcs.count - max_named])

label(c) := "container" if {
	c.field == "containers"
} else := "sidecar init container"

service_word(n) := "Service" if {
	n == 1
} else := "Services"

send_word(n) := "sends" if {
	n == 1
} else := "send"

unready_phrase(c) := "starts, is overloaded or cannot reach what it depends on" if {
	not c.startup
} else := "is overloaded or cannot reach what it depends on, once its startupProbe has succeeded"

pod_spec_path := "spec" if {
	input.object.kind == "Pod"
} else := "spec.template.spec"

# left_to_rollout_rule: rollout/no-readiness-probe reports the workload (a
# rolling update whose pods have neither readiness nor startup probes).
left_to_rollout_rule if {
	rolling
	not pods.probed
}

rolling if {
	input.object.kind == "Deployment"
	input.defaulted.spec.strategy.type == "RollingUpdate"
}

rolling if {
	input.object.kind in {"StatefulSet", "DaemonSet"}
	input.defaulted.spec.updateStrategy.type == "RollingUpdate"
}
