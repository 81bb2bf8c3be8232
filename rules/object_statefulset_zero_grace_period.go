package rules

import (
	appsv1 "k8s.io/api/apps/v1"
)

// statefulsetZeroGracePeriodRule is statefulset/zero-grace-period.
var statefulsetZeroGracePeriodRule = BuiltinRule{
	Meta: Rule{
		ID:       "statefulset/zero-grace-period",
		Title:    "StatefulSet pods with a termination grace period of 0",
		Severity: SeverityWarning,
		Kinds:    []string{"StatefulSet"},
		File:     "object_statefulset_zero_grace_period.go",
		Description: `A StatefulSet guarantees at most one pod per identity (name, hostname,
volumes) only as long as a pod object is removed after its containers have
stopped. With terminationGracePeriodSeconds 0 in the pod template, every
deletion that does not give its own grace period (the controller's deletions
in rolling updates and scale-downs, a plain kubectl delete) has a grace
period of 0 (the pod strategy's CheckGracefulDelete), and the API server
removes the pod object at once, as a force deletion does. The controller
then creates the replacement, with the same name and volumes, while the old
containers may still run, indefinitely on a node that is unreachable. The
StatefulSet documentation calls a grace period of 0 unsafe and strongly
discouraged for this reason.`,
		Remediation: "Remove terminationGracePeriodSeconds 0 from the pod template (the default is 30) or set the time a clean shutdown needs.",
	},
	Check: checkZeroGracePeriod,
}

// checkZeroGracePeriod reports a StatefulSet whose pod template has
// terminationGracePeriodSeconds 0.
func checkZeroGracePeriod(c *ObjectContext) []Finding {
	sts, ok := c.Object.(*appsv1.StatefulSet)
	if !ok || sts.Spec.Template.Spec.TerminationGracePeriodSeconds == nil || *sts.Spec.Template.Spec.TerminationGracePeriodSeconds != 0 {
		return nil
	}
	return []Finding{{Path: "spec.template.spec.terminationGracePeriodSeconds",
		Message: "terminationGracePeriodSeconds is 0 (default 30): every deletion of a pod without its own grace period, the controller's own in rolling updates and scale-downs included, removes the pod object at once like a force deletion, so the replacement with the same name and volumes can start while the old containers still run; the StatefulSet documentation calls this unsafe"}}
}
