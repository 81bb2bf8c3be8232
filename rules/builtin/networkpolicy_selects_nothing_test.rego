package kubectl_workload.rules.networkpolicy_selects_nothing_test

import data.kubectl_workload.rules.networkpolicy_selects_nothing
import rego.v1

np(sel) := {"object": {"kind": "NetworkPolicy", "metadata": {"name": "web"}, "spec": {"podSelector": sel}}, "namespace": "shop", "key": "NetworkPolicy/web"}

inv := {"namespaces": {"shop": {
	"objects": {"Deployment/web": {"kind": "Deployment", "name": "web", "templateLabels": {"app": "web"}, "selector": {"matchLabels": {"app": "web"}}, "labels": null}},
	"by_kind": {"Deployment": ["Deployment/web"]}, "count": {"Deployment": 1}, "workloads": 1,
	"by_template_label": {"app=web": ["Deployment/web"]}, "by_selector_label": {}, "selectors_without_labels": [],
}}}

test_typo if {
	fs := networkpolicy_selects_nothing.findings with input as np({"matchLabels": {"app": "webb"}}) with data.kubectl_workload.inventory as inv
	count(fs) == 1
	some f in fs
	f.path == "spec.podSelector"
	contains(f.msg, "Deployment web")
}

test_matches if {
	count(networkpolicy_selects_nothing.findings) == 0 with input as np({"matchLabels": {"app": "web"}}) with data.kubectl_workload.inventory as inv
}

test_empty_selects_everything if {
	count(networkpolicy_selects_nothing.findings) == 0 with input as np({}) with data.kubectl_workload.inventory as inv
}
