# METADATA
# title: Service targetPort that no selected pod declares
# description: |
#   A Service sends each port's traffic to the targetPort of the pods it
#   selects (the port number itself when targetPort is unset). A named
#   targetPort is looked up among the pod's container ports by name and
#   protocol (podutil.FindPort, which the EndpointSlice controller calls): a
#   pod with no such port is left out of that port's endpoints, so when none
#   of the selected pods has it, the Service has no endpoints for that port
#   and connections to it are refused. A numeric targetPort needs no declared
#   containerPort (a container listens where it listens; ports are
#   informational), so it is reported only when every selected workload
#   declares container ports and none of them is that number: the Service
#   then most likely points at the wrong port (8080 where the container
#   serves 80). Containers and sidecar init containers count. Reported only
#   for a Service with a selector that selects a workload (or Pod) of the
#   input in its namespace: pods defined elsewhere are not checked.
# custom:
#   id: service/target-port-not-exposed
#   severity: warning
#   kinds: [Service]
#   remediation: Set the port's targetPort to the name or number of a containerPort of the pods the Service selects, or declare that port in the container.
package kubectl_workload.rules.service_target_port_not_exposed

import data.kubectl_workload.lib
import data.kubectl_workload.lib.xref
import rego.v1

# selected are the workloads and Pods of the namespace the Service selects
# whose containers the inventory summarizes.
selected := [key |
	some key in xref.all_workloads_selected_by({"matchLabels": input.object.spec.selector})
	is_object(xref.entry(key).pods)
]

# go_ports is what this file computes below about the selected workloads, as
# the inventory computed it once per distinct selector (rules/bounded.go,
# "service_ports"), for the Service's own selector; the definitions below
# are the fallback, and the reference the Go code mirrors. (Walking every
# selected workload for every Service is n² work when n Services select the
# same n workloads.)
go_ports := p if {
	p := xref.entry(input.key).service_ports
	xref.own_selects({"matchLabels": input.object.spec.selector})
}

selected_count := go_ports.count if {
	go_ports
} else := count(selected)

checked if {
	input.object.kind == "Service"
	object.get(input.object, ["spec", "type"], "ClusterIP") != "ExternalName"
	count(object.get(input.object, ["spec", "selector"], {})) > 0
	selected_count > 0
}

findings contains f if {
	checked
	some i, sp in object.get(input.object, ["spec", "ports"], [])
	target := object.get(sp, "targetPort", sp.port)
	is_string(target)
	proto := object.get(sp, "protocol", "TCP")
	not some_named(target, proto)
	f := {
		"msg": sprintf(
			"Service %s port %s targets the port named %q (%s), which no container of %s declares (%s), so the Service has no endpoints for this port and connections to it are refused",
			[lib.display_name, port_label(sp), target, proto, shown, declared],
		),
		"path": sprintf("spec.ports[%d].targetPort", [i]),
	}
}

findings contains f if {
	checked
	some i, sp in object.get(input.object, ["spec", "ports"], [])
	target := object.get(sp, "targetPort", sp.port)
	is_number(target)
	all_numbered
	not some_numbered(target)
	f := {
		"msg": sprintf(
			"Service %s port %s targets port %d, which no container of %s declares (%s): connections go to a port the pods most likely do not listen on",
			[lib.display_name, port_label(sp), target, shown, declared],
		),
		"path": target_path(sp, i),
	}
}

all_numbered if go_ports.all_numbered

all_numbered if {
	not go_ports
	every key in selected {
		count(xref.entry(key).pods.portNumbers) > 0
	}
}

some_named(name, proto) if {
	sprintf("%s/%s", [name, proto]) in go_ports.names
}

some_named(name, proto) if {
	not go_ports
	some key in selected
	sprintf("%s/%s", [name, proto]) in xref.entry(key).pods.portNames
}

some_numbered(n) if {
	n in go_ports.numbers
}

some_numbered(n) if {
	not go_ports
	some key in selected
	n in xref.entry(key).pods.portNumbers
}

target_path(sp, i) := sprintf("spec.ports[%d].targetPort", [i]) if {
	sp.targetPort
} else := sprintf("spec.ports[%d].port", [i])

port_label(sp) := sprintf("%d (%s)", [sp.port, sp.name]) if {
	object.get(sp, "name", "") != ""
} else := sprintf("%d", [sp.port])

shown := go_ports.shown if {
	go_ports
} else := xref.describe_list(selected)

declared := "it declares no ports" if {
	count(port_numbers) == 0
} else := sprintf("declared: %s", [concat(", ", array.concat(port_numbers, port_names))])

port_numbers := [sprintf("%d", [n]) | some n in go_ports.numbers] if {
	go_ports
} else := [sprintf("%d", [n]) | some n in sort({n | some key in selected; some n in xref.entry(key).pods.portNumbers})]

port_names := go_ports.names if {
	go_ports
} else := sort({n | some key in selected; some n in xref.entry(key).pods.portNames})
