package kubectl_workload.rules.names_statefulset_too_long_test

import data.kubectl_workload.rules.names_statefulset_too_long
import rego.v1

name(n) := concat("", ["s" | some _ in numbers.range(1, n)])

sts(n) := {"object": {"kind": "StatefulSet", "metadata": {"name": name(n)}}}

test_52_fits if {
	count(names_statefulset_too_long.findings) == 0 with input as sts(52)
}

test_53_overflows_with_a_10_character_hash if {
	fs := names_statefulset_too_long.findings with input as sts(53)
	count(fs) == 1
	some f in fs
	f.path == "metadata.name"
	contains(f.msg, "name is 53 characters")
	contains(f.msg, "53+1+up to 10 = up to 64 characters")
	contains(f.msg, "longer than 9 characters")
}

test_61_leaves_one_character if {
	fs := names_statefulset_too_long.findings with input as sts(61)
	some f in fs
	contains(f.msg, "longer than 1 character")
}

test_62_never_fits if {
	fs := names_statefulset_too_long.findings with input as sts(62)
	some f in fs
	contains(f.msg, "for any hash")
}

test_63_never_fits if {
	count(names_statefulset_too_long.findings) == 1 with input as sts(63)
}

test_over_63_is_left_to_the_api_server if {
	# The API server rejects it (not a DNS label); never reported twice.
	count(names_statefulset_too_long.findings) == 0 with input as sts(64)
}

test_deployments_are_silent if {
	inp := {"object": {"kind": "Deployment", "metadata": {"name": name(60)}}}
	count(names_statefulset_too_long.findings) == 0 with input as inp
}
