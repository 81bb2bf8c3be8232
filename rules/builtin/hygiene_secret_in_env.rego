# METADATA
# title: Secret given as a literal environment value
# description: |
#   An env entry whose name says it holds a credential (PASSWORD, SECRET,
#   TOKEN, API_KEY, PRIVATE_KEY, CREDENTIALS, ...) with a literal value puts
#   the secret in the manifest, and so in the repository, in the object the
#   API server stores unencrypted in etcd, and in the output of kubectl get and
#   describe for anyone who may read the workload. Values that are empty or
#   references to other variables ($(VAR)) are not reported.
# custom:
#   id: hygiene/secret-in-env
#   severity: warning
#   remediation: Move the value to a Secret and reference it with valueFrom.secretKeyRef (or envFrom), or mount it as a file.
package kubectl_workload.rules.hygiene_secret_in_env

import data.kubectl_workload.lib
import rego.v1

# secret_name matches names of variables that hold credentials.
secret_name := `(?i)(^|_)(PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)($|_)`

findings contains f if {
	not lib.owned_by_controller
	some pc in lib.pod_containers
	some i, e in object.get(pc.container, "env", [])
	regex.match(secret_name, e.name)
	v := object.get(e, "value", "")
	v != ""
	not regex.match(`^\$\([A-Za-z_][A-Za-z0-9_]*\)$`, v)
	not e.valueFrom
	f := {
		"msg": sprintf("%s %q: env %s holds a literal value: the secret is in the manifest and readable by anyone who can read the %s", [lib.container_label[pc.field], pc.container.name, e.name, input.object.kind]),
		"path": sprintf("%s.env[%d].value", [pc.path, i]),
	}
}
