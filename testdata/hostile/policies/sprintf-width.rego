package main

import rego.v1

# A sprintf width of 10^9: a 1 GB string in one call.
deny contains msg if {
	msg := sprintf("%999999999d", [1])
}
