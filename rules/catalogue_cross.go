package rules

// crossRules are the cross-resource built-in rules written in Go: each
// sees one object and its namespace's inventory (CrossContext), and names
// in Meta.Kinds the kinds it reports on. One rule per file,
// cross_<category>_<name>.go; see README.md.
var crossRules = []BuiltinRule{
	availabilityNoPdbRule,
	availabilityNoSpreadRule,
	availabilitySingleReplicaRule,
	availabilitySpreadSelectsNothingRule,
	hpaReplicasSetRule,
	hpaTargetMissingRule,
	ingressBackendMissingRule,
	ingressBackendPortMissingRule,
	jobManualSelectorRule,
	networkpolicyNotIsolatedRule,
	networkpolicySelectsNothingRule,
	pdbNoMatchingWorkloadRule,
	pdbNoScaleRule,
	pdbOverlapRule,
	pdbZeroDisruptionsRule,
	probesReadinessMissingRule,
	rolloutDowntimeRule,
	rolloutVolumeMultiAttachRule,
	selectorBarePodAdoptedRule,
	selectorOverlapRule,
	serviceNoMatchingWorkloadRule,
	serviceTargetPortNotExposedRule,
	statefulsetServiceMissingRule,
	statefulsetServiceNotHeadlessRule,
}
