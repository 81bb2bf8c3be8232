package main

import rego.v1

# Reads the environment through opa.runtime: refused at compile time.
deny contains msg if {
	env := opa.runtime().env
	env.HOME != ""
	msg := "has a home"
}
