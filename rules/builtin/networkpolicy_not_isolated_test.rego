package kubectl_workload.rules.networkpolicy_not_isolated_test

import data.kubectl_workload.rules.networkpolicy_not_isolated
import rego.v1

deployment := {"namespace": "shop", "key": "Deployment/web", "object": {"kind": "Deployment", "metadata": {"name": "web"}}, "defaulted": {"spec": {"template": {"metadata": {"labels": {"app": "web"}}}}}}

inventory(selected_by, types) := {"namespaces": {"shop": {
	"by_kind": {"NetworkPolicy": ["NetworkPolicy/db"]},
	"objects": {
		"Deployment/web": {"kind": "Deployment", "name": "web", "templateLabels": {"app": "web"}, "selected_by": selected_by},
		"NetworkPolicy/db": {"kind": "NetworkPolicy", "name": "db", "spec": {"policyTypes": types}},
	},
}}}

test_not_selected if {
	fs := networkpolicy_not_isolated.findings with input as deployment with data.kubectl_workload.inventory as inventory([], ["Ingress"])
	count(fs) == 1
	some f in fs
	f.path == "spec.template"
	contains(f.msg, "no NetworkPolicy of namespace shop selects the pods of Deployment web (pod template labels app=web) for ingress")
}

test_selected if {
	count(networkpolicy_not_isolated.findings) == 0 with input as deployment with data.kubectl_workload.inventory as inventory(["NetworkPolicy/db"], null)
}

test_egress_only if {
	count(networkpolicy_not_isolated.findings) == 1 with input as deployment with data.kubectl_workload.inventory as inventory(["NetworkPolicy/db"], ["Egress"])
}

test_no_policies if {
	inv := {"namespaces": {"shop": {"objects": {"Deployment/web": {"kind": "Deployment", "name": "web", "templateLabels": {"app": "web"}, "selected_by": []}}}}}
	count(networkpolicy_not_isolated.findings) == 0 with input as deployment with data.kubectl_workload.inventory as inv
}
