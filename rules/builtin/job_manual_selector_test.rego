package kubectl_workload.rules.job_manual_selector_test

import data.kubectl_workload.lib.xref_test as h
import data.kubectl_workload.rules.job_manual_selector
import rego.v1

job(manual, labels) := {
	"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"},
	"spec": {"manualSelector": manual, "selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}}},
}

test_manual_selector_warns if {
	fs := job_manual_selector.findings with input as h.with_ns(job(true, {"app": "migrate"}))
		with data.kubectl_workload.inventory as h.inventory([])
	count(fs) == 1
	some f in fs
	f.path == "spec.manualSelector"
	contains(f.msg, "its selector app=migrate is used as written")
	not contains(f.msg, "in this input")
}

test_names_other_selected_workloads if {
	entries := [
		{"kind": "Job", "apiVersion": "batch/v1", "name": "migrate", "templateLabels": {"app": "migrate"}, "selector": {"matchLabels": {"app": "migrate"}}},
		h.deployment("migrate-ui", {"app": "migrate"}, 1),
	]
	fs := job_manual_selector.findings with input as h.with_ns(job(true, {"app": "migrate"}))
		with data.kubectl_workload.inventory as h.inventory(entries)
	some f in fs
	contains(f.msg, "it also selects the pods of 1 other workload: Deployment migrate-ui")
}

test_generated_selector_is_fine if {
	count(job_manual_selector.findings) == 0 with input as h.with_ns(job(false, {"app": "migrate"}))
}

test_unset_is_fine if {
	j := {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"}, "spec": {}}
	count(job_manual_selector.findings) == 0 with input as h.with_ns(j)
}
