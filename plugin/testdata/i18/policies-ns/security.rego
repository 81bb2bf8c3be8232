package k8s.security

import rego.v1

deny contains msg if {
	input.kind == "Deployment"
	msg := "no Deployments"
}
