package kubernetes.admission

deny[msg] {
	input.kind == "Pod"
	not input.metadata.labels.owner
	msg := "pods need an owner label"
}
