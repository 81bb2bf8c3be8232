package rules

import (
	"fmt"
	"regexp"
)

// hygieneSecretInEnvRule is hygiene/secret-in-env.
var hygieneSecretInEnvRule = GoRule{
	Meta: Rule{
		ID:       "hygiene/secret-in-env",
		Title:    "Secret given as a literal environment value",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_hygiene_secret_in_env.go",
		Description: `An env entry whose name says it holds a credential (PASSWORD, SECRET,
TOKEN, API_KEY, PRIVATE_KEY, CREDENTIALS, ...) with a literal value puts
the secret in the manifest, and so in the repository, in the object the
API server stores unencrypted in etcd, and in the output of kubectl get and
describe for anyone who may read the workload. Values that are empty or
references to other variables ($(VAR)) are not reported.`,
		Remediation: "Move the value to a Secret and reference it with valueFrom.secretKeyRef (or envFrom), or mount it as a file.",
	},
	Check: checkSecretInEnv,
}

var (
	secretEnvName = regexp.MustCompile(`(?i)(^|_)(PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)($|_)`)
	envReference  = regexp.MustCompile(`^\$\([A-Za-z_][A-Za-z0-9_]*\)$`)
)

// checkSecretInEnv reports each env entry whose name says it holds a
// credential and whose value is a literal (not empty, not a $(VAR)
// reference).
func checkSecretInEnv(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	kind := c.Object.GetObjectKind().GroupVersionKind().Kind
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		for i, e := range pc.c.Env {
			if !secretEnvName.MatchString(e.Name) || e.Value == "" || envReference.MatchString(e.Value) || e.ValueFrom != nil {
				continue
			}
			out = append(out, Finding{Path: fmt.Sprintf("%s.env[%d].value", pc.path, i),
				Message: fmt.Sprintf("%s %q: env %s holds a literal value: the secret is in the manifest and readable by anyone who can read the %s",
					containerLabel[pc.field], pc.c.Name, e.Name, kind)})
		}
	}
	return out
}
