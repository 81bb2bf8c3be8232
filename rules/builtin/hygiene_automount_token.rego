# METADATA
# title: Service account token mounted (opt-in)
# description: |
#   Unless automountServiceAccountToken is false (in the pod spec or on its
#   ServiceAccount), every container gets a token for the pod's service
#   account at /var/run/secrets/kubernetes.io/serviceaccount: code that does
#   not call the Kubernetes API does not need it, and an attacker who gets into
#   the container can use it. Off by default; reported for pod specs that
#   leave it unset or true, unless the input holds their ServiceAccount with
#   automountServiceAccountToken false.
# custom:
#   id: hygiene/automount-token
#   severity: info
#   default: "off"
#   remediation: Set automountServiceAccountToken false in the pod spec (or on the ServiceAccount) unless the application calls the Kubernetes API.
package kubectl_workload.rules.hygiene_automount_token

import data.kubectl_workload.lib
import rego.v1

findings contains f if {
	count(lib.pod_spec_path) > 0
	not lib.owned_by_controller
	object.get(lib.pod_spec, "automountServiceAccountToken", true) != false
	f := {
		"msg": "the pod spec does not set automountServiceAccountToken false: every container gets a token for the service account",
		"path": lib.path_or_parent(input.object, array.concat(lib.pod_spec_path, ["automountServiceAccountToken"])),
	}
}
