package main

import rego.v1

# An invalid constant pattern: the rule would never fire.
deny contains "bad image" if {
	some c in input.spec.containers
	regex.match("^(nginx", c.image)
}
