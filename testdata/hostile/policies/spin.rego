package main

import rego.v1

# Burns CPU without holding memory: every pair of a large range is compared.
# The sandbox's per-evaluation timeout stops it.
deny contains msg if {
	some i in numbers.range(0, 100000)
	some j in numbers.range(0, 100000)
	i + j < 0
	msg := "never reached"
}
