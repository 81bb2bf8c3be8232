package kubectl_workload.rules.probes_readiness_missing_test

import data.kubectl_workload.rules.probes_readiness_missing
import rego.v1

deployment(strategy) := {"namespace": "shop", "key": "Deployment/web", "object": {"kind": "Deployment", "metadata": {"name": "web"}}, "defaulted": {"spec": {"replicas": 2, "strategy": {"type": strategy}, "template": {"metadata": {"labels": {"app": "web"}}}}}}

inventory(pods, target) := {"namespaces": {"shop": {"objects": {
	"Deployment/web": {"kind": "Deployment", "name": "web", "templateLabels": {"app": "web"}, "selected_by": ["Service/web"], "pods": pods},
	"Service/web": {"kind": "Service", "name": "web", "spec": {"ports": [{"port": 80, "targetPort": target}]}},
}}}}

app := {"name": "app", "field": "containers", "index": 1, "portNames": ["http/TCP"], "portNumbers": [8080], "startup": false}

app_startup := object.union(app, {"startup": true})

metrics := {"name": "metrics", "field": "containers", "index": 0, "portNames": ["metrics/TCP"], "portNumbers": [9090], "startup": false}

# pods(unready, probed) has a metrics and an app container; unready lists those without a
# readinessProbe.
pods(unready, probed) := {"portNames": ["metrics/TCP", "http/TCP"], "portNumbers": [9090, 8080], "regular": 2, "probed": probed, "unready": unready}

test_recreate_without_readiness if {
	fs := probes_readiness_missing.findings with input as deployment("Recreate") with data.kubectl_workload.inventory as inventory(pods([metrics, app], false), "http")
	count(fs) == 1
	some f in fs
	f.path == "spec.template.spec.containers[1]"
	contains(f.msg, `container "app" has no readinessProbe, but Service web sends connections to it`)
}

test_rolling_left_to_rollout_rule if {
	count(probes_readiness_missing.findings) == 0 with input as deployment("RollingUpdate") with data.kubectl_workload.inventory as inventory(pods([metrics, app], false), "http")
}

test_rolling_with_startup_probe if {
	fs := probes_readiness_missing.findings with input as deployment("RollingUpdate") with data.kubectl_workload.inventory as inventory(pods([metrics, app_startup], true), 8080)
	count(fs) == 1
	some f in fs
	contains(f.msg, "once its startupProbe has succeeded")
}

test_with_readiness if {
	count(probes_readiness_missing.findings) == 0 with input as deployment("Recreate") with data.kubectl_workload.inventory as inventory(pods([metrics], true), "http")
}

test_untargeted_container_ignored if {
	# The Service targets app; metrics has no probe but gets no traffic from it.
	fs := probes_readiness_missing.findings with input as deployment("Recreate") with data.kubectl_workload.inventory as inventory(pods([metrics], true), 8080)
	count(fs) == 0
}

test_undeclared_number_two_containers if {
	count(probes_readiness_missing.findings) == 0 with input as deployment("Recreate") with data.kubectl_workload.inventory as inventory(pods([metrics, app], false), 3000)
}

test_undeclared_number_one_container if {
	c := {"name": "app", "field": "containers", "index": 0, "portNames": [], "portNumbers": [], "startup": false}
	p := {"portNames": [], "portNumbers": [], "regular": 1, "probed": false, "unready": [c]}
	fs := probes_readiness_missing.findings with input as deployment("Recreate") with data.kubectl_workload.inventory as inventory(p, 3000)
	count(fs) == 1
}
