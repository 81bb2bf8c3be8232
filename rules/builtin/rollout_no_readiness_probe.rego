# METADATA
# title: Rolling update without any readiness probe
# description: |
#   The kubelet marks a started container without a readinessProbe ready at once
#   (prober manager: no readiness worker, ready), so a pod whose containers have
#   no readinessProbe is Ready as soon as its containers run, and available after
#   minReadySeconds. The rolling updates of Deployments, StatefulSets and
#   DaemonSets count exactly those ready or available pods: maxUnavailable (and a
#   StatefulSet's wait for each pod to be Running and Ready) then protects
#   nothing, since a new pod that does not serve yet counts as available and the
#   next old pod is stopped. Reported for the RollingUpdate strategy (the default
#   of all three kinds) when no container of the pod template has a
#   readinessProbe. Init containers are ignored, except sidecars (restartPolicy
#   Always), whose readiness counts towards the pod's. A startupProbe also keeps
#   its container unready until it succeeds, so a pod template with one is not
#   reported. Deployments and StatefulSets with 0 replicas are left out. A
#   container that a Service of the input sends connections to, without a
#   readinessProbe, in a workload this rule does not report (another
#   strategy, a bare Pod or ReplicationController, a startupProbe only) is
#   probes/readiness-missing.
# custom:
#   id: rollout/no-readiness-probe
#   severity: warning
#   remediation: Add a readinessProbe to the serving container that succeeds only once it can handle requests, such as an HTTP GET on a health endpoint.
package kubectl_workload.rules.rollout_no_readiness_probe

import rego.v1

spec := input.defaulted.spec

pod := object.get(input.object, ["spec", "template", "spec"], {})

findings contains f if {
	rolling
	count(object.get(pod, "containers", [])) > 0
	not gated
	f := {
		"msg": sprintf(
			"%s%s: a new pod is Ready as soon as its containers run and available after minReadySeconds %d, so %s",
			[containers_phrase, sidecar_note, min_ready, consequence],
		),
		"path": "spec.template.spec.containers",
	}
}

rolling if {
	input.object.kind == "Deployment"
	spec.strategy.type == "RollingUpdate"
	object.get(spec, "replicas", 1) > 0
}

rolling if {
	input.object.kind == "StatefulSet"
	spec.updateStrategy.type == "RollingUpdate"
	object.get(spec, "replicas", 1) > 0
}

rolling if {
	input.object.kind == "DaemonSet"
	spec.updateStrategy.type == "RollingUpdate"
}

# gated: some container (or sidecar) keeps the pod unready until a probe succeeds.
gated if {
	some c in pod.containers
	probed(c)
}

gated if {
	some c in sidecars
	probed(c)
}

probed(c) if c.readinessProbe != null

probed(c) if c.startupProbe != null

containers_phrase := sprintf("the only container (%s) has no readinessProbe and no startupProbe", [pod.containers[0].name]) if {
	count(pod.containers) == 1
} else := sprintf(
	"none of the %d containers (%s) has a readinessProbe or a startupProbe",
	[count(pod.containers), concat(", ", [c.name | some c in pod.containers])],
)

sidecars := [c |
	some c in object.get(pod, "initContainers", [])
	object.get(c, "restartPolicy", "") == "Always"
]

sidecar_note := "" if {
	count(sidecars) == 0
} else := " (nor does the sidecar init container)" if {
	count(sidecars) == 1
} else := sprintf(" (nor do the %d sidecar init containers)", [count(sidecars)])

min_ready := object.get(spec, "minReadySeconds", 0)

consequence := sprintf(
	"the rolling update (maxSurge %s = %d, maxUnavailable %s = %d of %d replicas) stops old pods while the new ones may not serve yet",
	[d.maxSurgeInput, d.maxSurge, d.maxUnavailableInput, d.maxUnavailable, d.replicas],
) if {
	input.object.kind == "Deployment"
	d := input.facts.deployment
	d.maxSurgeInput
} else := sprintf(
	"the rolling update (maxUnavailable %v) moves on to the next pod while the replaced one may not serve yet",
	[object.get(spec, ["updateStrategy", "rollingUpdate", "maxUnavailable"], 1)],
) if {
	input.object.kind == "StatefulSet"
} else := sprintf(
	"the rolling update (maxUnavailable %v, maxSurge %v) moves on to further nodes while the new pods may not serve yet",
	[object.get(spec, ["updateStrategy", "rollingUpdate", "maxUnavailable"], 1), object.get(spec, ["updateStrategy", "rollingUpdate", "maxSurge"], 0)],
) if {
	input.object.kind == "DaemonSet"
} else := "the rolling update stops old pods while the new ones may not serve yet"
