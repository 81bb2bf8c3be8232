package main

import rego.v1

# An unbounded comprehension: numbers.range builds the whole array before the
# comprehension sees its first element. The sandbox's memory guard stops it.
deny contains msg if {
	xs := [y | some y in numbers.range(0, 1e12)]
	count(xs) > 0
	msg := "never reached"
}

warn contains "team label missing" if {
	not input.metadata.labels.team
}
