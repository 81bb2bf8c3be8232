package main

import rego.v1

# replace of "" in a 30 kB string by a 64 kB one: 2 GB in one call.
deny contains msg if {
	s := concat("", ["a" | some _ in numbers.range(1, 30000)])
	big := concat("", ["b" | some _ in numbers.range(1, 65536)])
	r := replace(s, "", big)
	msg := substring(r, 0, 10)
}

warn contains "team label missing" if {
	not input.metadata.labels.team
}
