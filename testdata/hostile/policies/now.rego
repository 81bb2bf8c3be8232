package main

import rego.v1

# The clock: the answer would change from run to run.
deny contains "late" if {
	time.now_ns() > 0
}
