package main

import rego.v1

# One built-in call that would allocate 125 GB.
deny contains msg if {
	n := bits.lsh(1, 1e12)
	msg := sprintf("%d", [n])
}

warn contains "team label missing" if {
	not input.metadata.labels.team
}
