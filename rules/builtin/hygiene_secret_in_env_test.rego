package kubectl_workload.rules.hygiene_secret_in_env_test

import data.kubectl_workload.rules.hygiene_secret_in_env
import rego.v1

pod(env) := {"object": {"kind": "Pod", "spec": {"containers": [{"name": "web", "env": env}]}}}

test_password if {
	fs := hygiene_secret_in_env.findings with input as pod([{"name": "LOG_LEVEL", "value": "info"}, {"name": "DB_PASSWORD", "value": "hunter2"}])
	count(fs) == 1
	some f in fs
	f.path == "spec.containers[0].env[1].value"
}

test_api_key if {
	count(hygiene_secret_in_env.findings) == 1 with input as pod([{"name": "STRIPE_API_KEY", "value": "sk_live_x"}])
}

test_secret_ref if {
	count(hygiene_secret_in_env.findings) == 0 with input as pod([{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}])
}

test_reference_and_unrelated if {
	count(hygiene_secret_in_env.findings) == 0 with input as pod([
		{"name": "DB_PASSWORD", "value": "$(MOUNTED_PASSWORD)"},
		{"name": "TOKENIZER_MODE", "value": "fast"},
		{"name": "PASSWORD_FILE_FIELD", "value": ""},
	])
}
