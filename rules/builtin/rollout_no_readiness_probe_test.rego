package kubectl_workload.rules.rollout_no_readiness_probe_test

import data.kubectl_workload.rules.rollout_no_readiness_probe
import rego.v1

container(name) := {"name": name, "image": "example/app:1.0"}

probe := {"httpGet": {"path": "/healthz", "port": 8080}}

deployment(pod_spec) := {
	"object": {"kind": "Deployment", "spec": {"replicas": 3, "template": {"spec": pod_spec}}},
	"defaulted": {"kind": "Deployment", "spec": {
		"replicas": 3, "minReadySeconds": 0,
		"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
		"template": {"spec": pod_spec},
	}},
	"facts": {"deployment": {"replicas": 3, "strategy": "RollingUpdate", "maxSurge": 1, "maxUnavailable": 0, "maxSurgeInput": "25%", "maxUnavailableInput": "25%"}},
}

test_deployment_without_probes if {
	fs := rollout_no_readiness_probe.findings with input as deployment({"containers": [container("app"), container("log-shipper")]})
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers"
	contains(f.msg, "none of the 2 containers (app, log-shipper) has a readinessProbe or a startupProbe")
	contains(f.msg, "minReadySeconds 0")
	contains(f.msg, "maxSurge 25% = 1, maxUnavailable 25% = 0 of 3 replicas")
}

test_single_container_message if {
	fs := rollout_no_readiness_probe.findings with input as deployment({"containers": [container("app")]})
	some f in fs
	contains(f.msg, "the only container (app) has no readinessProbe and no startupProbe")
}

test_one_probed_container_is_enough if {
	c := object.union(container("app"), {"readinessProbe": probe})
	count(rollout_no_readiness_probe.findings) == 0 with input as deployment({"containers": [c, container("log-shipper")]})
}

test_startup_probe_gates_readiness if {
	c := object.union(container("app"), {"startupProbe": probe})
	count(rollout_no_readiness_probe.findings) == 0 with input as deployment({"containers": [c]})
}

test_sidecar_with_readiness_probe_counts if {
	sidecar := object.union(container("proxy"), {"restartPolicy": "Always", "readinessProbe": probe})
	count(rollout_no_readiness_probe.findings) == 0 with input as deployment({"initContainers": [sidecar], "containers": [container("app")]})
}

test_plain_init_container_probe_does_not_count if {
	# Only a sidecar (restartPolicy Always) takes part in the pod's readiness.
	init := object.union(container("migrate"), {"readinessProbe": probe})
	fs := rollout_no_readiness_probe.findings with input as deployment({"initContainers": [init], "containers": [container("app")]})
	count(fs) == 1
}

test_sidecar_without_probe_is_named if {
	sidecar := object.union(container("proxy"), {"restartPolicy": "Always"})
	fs := rollout_no_readiness_probe.findings with input as deployment({"initContainers": [sidecar], "containers": [container("app")]})
	some f in fs
	contains(f.msg, "nor does the sidecar init container")
}

test_recreate_is_silent if {
	inp := deployment({"containers": [container("app")]})
	d := json.patch(inp, [
		{"op": "replace", "path": "/defaulted/spec/strategy", "value": {"type": "Recreate"}},
		{"op": "replace", "path": "/facts/deployment", "value": {"replicas": 3, "strategy": "Recreate"}},
	])
	count(rollout_no_readiness_probe.findings) == 0 with input as d
}

test_zero_replicas_is_silent if {
	d := json.patch(deployment({"containers": [container("app")]}), [{"op": "replace", "path": "/defaulted/spec/replicas", "value": 0}])
	count(rollout_no_readiness_probe.findings) == 0 with input as d
}

test_statefulset_rolling_update if {
	pod := {"containers": [container("db")]}
	inp := {
		"object": {"kind": "StatefulSet", "spec": {"template": {"spec": pod}}},
		"defaulted": {"kind": "StatefulSet", "spec": {"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}}, "template": {"spec": pod}}},
	}
	fs := rollout_no_readiness_probe.findings with input as inp
	some f in fs
	contains(f.msg, "maxUnavailable 1) moves on to the next pod")
}

test_statefulset_on_delete_is_silent if {
	pod := {"containers": [container("db")]}
	inp := {
		"object": {"kind": "StatefulSet", "spec": {"updateStrategy": {"type": "OnDelete"}, "template": {"spec": pod}}},
		"defaulted": {"kind": "StatefulSet", "spec": {"replicas": 3, "updateStrategy": {"type": "OnDelete"}, "template": {"spec": pod}}},
	}
	count(rollout_no_readiness_probe.findings) == 0 with input as inp
}

test_daemonset_rolling_update if {
	pod := {"containers": [container("agent")]}
	inp := {
		"object": {"kind": "DaemonSet", "spec": {"template": {"spec": pod}}},
		"defaulted": {"kind": "DaemonSet", "spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}, "template": {"spec": pod}}},
	}
	fs := rollout_no_readiness_probe.findings with input as inp
	some f in fs
	contains(f.msg, "maxUnavailable 1, maxSurge 0")
}

test_other_kinds_are_silent if {
	pod := {"containers": [container("job")]}
	inp := {
		"object": {"kind": "Job", "spec": {"template": {"spec": pod}}},
		"defaulted": {"kind": "Job", "spec": {"template": {"spec": pod}}},
	}
	count(rollout_no_readiness_probe.findings) == 0 with input as inp
}
