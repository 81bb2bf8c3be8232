package main

import rego.v1

warn contains 42 if {
	input.kind == "Deployment"
}

deny contains {"message": "no msg key"} if {
	input.kind == "Deployment"
}
