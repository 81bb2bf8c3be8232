package rules

// SetFullSummary makes inventory entries keep every spec field (but the pod
// template) instead of summaryFields, and returns the undo.
func SetFullSummary() (undo func()) {
	fullSummary = true
	return func() { fullSummary = false }
}
