package main

import rego.v1

# Reads the built-in rules' inventory.
deny contains msg if {
	some key, _ in data.kubectl_workload.inventory.namespaces
	msg := key
}
