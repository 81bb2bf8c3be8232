package main

import rego.v1

# A correct policy that takes a few tens of milliseconds and keeps a few MiB:
# the sandbox must never stop it, whatever other workers allocate meanwhile.
deny contains msg if {
	total := sum([y | some x in numbers.range(1, 20000); y := x * x])
	total < 0
	msg := "never reached"
}

warn contains "busy policy ran" if {
	input.kind == "ConfigMap"
}
