package kubectl_workload.rules.resources_cpu_limit_missing_test

import data.kubectl_workload.rules.resources_cpu_limit_missing
import rego.v1

cj(resources) := {"object": {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "job", "resources": resources}]}}}}}}}

test_missing if {
	fs := resources_cpu_limit_missing.findings with input as cj({})
	some f in fs
	f.path == "spec.jobTemplate.spec.template.spec.containers[0].resources"
}

test_set if {
	count(resources_cpu_limit_missing.findings) == 0 with input as cj({"limits": {"cpu": "500m"}})
}
