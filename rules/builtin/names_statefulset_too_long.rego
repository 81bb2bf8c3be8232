# METADATA
# title: StatefulSet name too long for its pods' revision label
# description: |
#   The StatefulSet controller labels every pod with controller-revision-hash
#   set to the name of its ControllerRevision, which is the StatefulSet's name,
#   "-", and a hash of up to 10 characters (ControllerRevisionName,
#   HashControllerRevision: a 32-bit FNV hash written in decimal, 10 digits for
#   about 77% of hashes). Label values are limited to 63 characters, so with a
#   name longer than 52 characters pod creation fails ("must be no more than 63
#   characters", FailedCreate events) whenever the hash is too long for the room
#   left, and from 62 characters on for every hash: the StatefulSet then has no
#   pods (kubernetes/kubernetes#64023, still open). The API server accepts
#   StatefulSet names of up to 63 characters (a DNS label) and rejects longer
#   ones; rejected objects get that api/ error instead, as built-in rules do not
#   run on them, so this rule covers the 53 to 63 characters the API server lets
#   through.
# custom:
#   id: names/statefulset-too-long
#   severity: error
#   remediation: Shorten the StatefulSet name to 52 characters or fewer.
package kubectl_workload.rules.names_statefulset_too_long

import rego.v1

findings contains f if {
	input.object.kind == "StatefulSet"
	name := input.object.metadata.name
	n := count(name)
	n > 52
	n <= 63
	room := (63 - n) - 1
	f := {
		"msg": sprintf(
			"name is %d characters: each pod's controller-revision-hash label holds the ControllerRevision name %s-<hash>, %d+1+up to 10 = up to %d characters, over the 63 a label value may have, so the controller cannot create pods %s",
			[n, name, n, n + 11, when(room)],
		),
		"path": "metadata.name",
	}
}

when(room) := "for any hash" if {
	room < 1
} else := "whenever the hash is longer than 1 character" if {
	room == 1
} else := sprintf("whenever the hash is longer than %d characters (a 32-bit hash in decimal usually has 10)", [room])
