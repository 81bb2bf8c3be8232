package rules

// SetFullSummary makes inventory entries keep every spec field (but the pod
// template) instead of summaryFields, and returns the undo.
func SetFullSummary() (undo func()) {
	fullSummary = true
	return func() { fullSummary = false }
}

// SetFullDefaulted makes input.defaulted the whole defaulted object instead
// of the fields the rules read (readFields), and returns the undo.
func SetFullDefaulted() (undo func()) {
	fullDefaulted = true
	return func() { fullDefaulted = false }
}

// SetNoKindGate makes the first pass evaluate every per-object rule on every
// object, whatever its kind (kinds.go), and returns the undo.
func SetNoKindGate() (undo func()) {
	noKindGate = true
	return func() { noKindGate = false }
}

// SetNoServicePorts leaves the inventory's "service_ports" answers out, so
// that service/target-port-not-exposed computes them in Rego, and returns
// the undo.
func SetNoServicePorts() (undo func()) {
	noServicePorts = true
	return func() { noServicePorts = false }
}

// SetNoReadinessTargets leaves the inventory's "readiness_targets" answers
// out, so that probes/readiness-missing computes them in Rego, and returns
// the undo.
func SetNoReadinessTargets() (undo func()) {
	noReadinessTargets = true
	return func() { noReadinessTargets = false }
}
