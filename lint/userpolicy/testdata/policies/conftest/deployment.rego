package main

import rego.v1

deny contains msg if {
	input.kind == "Deployment"
	not input.spec.template.spec.securityContext.runAsNonRoot
	msg := sprintf("Deployment %s must set runAsNonRoot", [input.metadata.name])
}

deny_privileged contains {"msg": msg, "path": sprintf("spec.template.spec.containers[%d].securityContext.privileged", [i])} if {
	some i, c in input.spec.template.spec.containers
	c.securityContext.privileged
	msg := sprintf("container %s is privileged", [c.name])
}

warn contains {"msg": "team label missing", "path": ["metadata", "labels"]} if {
	not input.metadata.labels.team
}

violation contains {"msg": "images must come from ghcr.io", "details": {"image": c.image}} if {
	some c in input.spec.template.spec.containers
	not startswith(c.image, "ghcr.io/")
}
