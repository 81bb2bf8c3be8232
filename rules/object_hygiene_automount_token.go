package rules

import (
	"strings"
)

// hygieneAutomountTokenRule is hygiene/automount-token.
var hygieneAutomountTokenRule = BuiltinRule{
	Meta: Rule{
		ID:       "hygiene/automount-token",
		Title:    "Service account token mounted (opt-in)",
		Severity: SeverityInfo,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		OptIn:    true,
		File:     "object_hygiene_automount_token.go",
		Description: `Unless automountServiceAccountToken is false (in the pod spec or on its
ServiceAccount), every container gets a token for the pod's service
account at /var/run/secrets/kubernetes.io/serviceaccount: code that does
not call the Kubernetes API does not need it, and an attacker who gets into
the container can use it. Off by default; reported for pod specs that
leave it unset or true, unless the input holds their ServiceAccount with
automountServiceAccountToken false.`,
		Remediation: "Set automountServiceAccountToken false in the pod spec (or on the ServiceAccount) unless the application calls the Kubernetes API.",
	},
	Check: checkAutomountToken,
}

// checkAutomountToken reports a pod spec that does not set
// automountServiceAccountToken false, unless a controller owns the object.
func checkAutomountToken(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	if spec.AutomountServiceAccountToken != nil && !*spec.AutomountServiceAccountToken {
		return nil
	}
	path := strings.Join(specPath, ".")
	if written, _ := podSpecOf(c.Written()); written != nil && written.AutomountServiceAccountToken != nil {
		path += ".automountServiceAccountToken"
	}
	return []Finding{{
		Path:    path,
		Message: "the pod spec does not set automountServiceAccountToken false: every container gets a token for the service account",
	}}
}
