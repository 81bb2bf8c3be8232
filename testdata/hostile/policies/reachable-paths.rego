package main

import rego.v1

deny contains msg if {
	count(graph.reachable_paths({"a": ["b"], "b": []}, ["a"])) > 0
	msg := "paths"
}
