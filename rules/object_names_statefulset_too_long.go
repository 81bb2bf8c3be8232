package rules

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// namesStatefulsetTooLongRule is names/statefulset-too-long.
var namesStatefulsetTooLongRule = BuiltinRule{
	Meta: Rule{
		ID:       "names/statefulset-too-long",
		Title:    "StatefulSet name too long for its pods' revision label",
		Severity: SeverityError,
		Kinds:    []string{"StatefulSet"},
		File:     "object_names_statefulset_too_long.go",
		Description: `The StatefulSet controller labels every pod with controller-revision-hash
set to the name of its ControllerRevision, which is the StatefulSet's name,
"-", and a hash of up to 10 characters (ControllerRevisionName,
HashControllerRevision: a 32-bit FNV hash written in decimal, 10 digits for
about 77% of hashes). Label values are limited to 63 characters, so with a
name longer than 52 characters pod creation fails ("must be no more than 63
characters", FailedCreate events) whenever the hash is too long for the room
left, and from 62 characters on for every hash: the StatefulSet then has no
pods (kubernetes/kubernetes#64023, still open). The API server accepts
StatefulSet names of up to 63 characters (a DNS label) and rejects longer
ones; rejected objects get that api/ error instead, as built-in rules do not
run on them, so this rule covers the 53 to 63 characters the API server lets
through.`,
		Remediation: "Shorten the StatefulSet name to 52 characters or fewer.",
	},
	Check: checkStatefulSetNameTooLong,
}

// checkStatefulSetNameTooLong reports a StatefulSet whose name, 53 to 63
// characters long, leaves too little room in a 63-character label value for
// the controller-revision-hash (ControllerRevisionName: name, "-", the
// hash).
func checkStatefulSetNameTooLong(c *ObjectContext) []Finding {
	sts, ok := c.Object.(*appsv1.StatefulSet)
	if !ok {
		return nil
	}
	name := sts.Name
	n := len([]rune(name))
	if n <= 52 || n > 63 {
		return nil
	}
	room := 63 - n - 1
	when := fmt.Sprintf("whenever the hash is longer than %d characters (a 32-bit hash in decimal usually has 10)", room)
	switch {
	case room < 1:
		when = "for any hash"
	case room == 1:
		when = "whenever the hash is longer than 1 character"
	}
	return []Finding{{Path: "metadata.name",
		Message: fmt.Sprintf("name is %d characters: each pod's controller-revision-hash label holds the ControllerRevision name %s-<hash>, %d+1+up to 10 = up to %d characters, over the 63 a label value may have, so the controller cannot create pods %s",
			n, name, n, n+11, when)}}
}
