package rules

// objectRules are the per-object built-in rules written in Go: each sees
// one object (ObjectContext). One rule per file, object_<category>_<name>.go;
// see README.md.
var objectRules = []GoRule{
	cronjobStartingDeadlineTooShortRule,
	cronjobUnboundedConcurrencyRule,
	daemonsetSurgeWithHostportRule,
	hpaMinReplicasOneRule,
	hygieneAutomountTokenRule,
	hygieneSecretInEnvRule,
	imagesDigestRequiredRule,
	imagesPullPolicyMutableTagRule,
	jobNoTtlRule,
	jobOnfailureBackoffRule,
	jobParallelismExceedsCompletionsRule,
	jobPodActiveDeadlineRule,
	kindBarePodRule,
	kindReplicationcontrollerRule,
	namesStatefulsetTooLongRule,
	pdbUnhealthyEvictionPolicyRule,
	probesLivenessEqualsReadinessRule,
	probesLivenessMissingRule,
	probesPortNotDeclaredRule,
	resourcesCpuLimitMissingRule,
	resourcesEphemeralStorageMissingRule,
	resourcesMemoryLimitMissingRule,
	resourcesNotGuaranteedRule,
	resourcesRequestsMissingRule,
	rolloutMutableImageTagRule,
	rolloutNoProgressDeadlineRule,
	rolloutNoReadinessProbeRule,
	rolloutNoRevisionHistoryRule,
	rolloutPausedRule,
	rolloutRecreateRule,
	statefulsetPartitionBlocksUpdatesRule,
	statefulsetZeroGracePeriodRule,
}
