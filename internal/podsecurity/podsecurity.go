// Package podsecurity evaluates pods and pod templates against the Pod
// Security Standards with k8s.io/pod-security-admission, the code the API
// server's PodSecurity admission plugin runs, so that verdicts and messages
// are the server's own.
package podsecurity

import (
	"fmt"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// Rule ids.
const (
	// RuleBaseline reports each baseline check a pod template fails, when
	// its namespace carries no Pod Security labels in the input.
	RuleBaseline = "pss/baseline"
	// RuleRestricted is RuleBaseline for the restricted level's own checks
	// (opt-in).
	RuleRestricted = "pss/restricted"
	// RuleEnforce reports a pod the namespace's enforce label refuses, or a
	// workload whose pods it refuses.
	RuleEnforce = "pss/enforce"
	// RuleWarn reports what the namespace's warn label makes the server warn
	// about.
	RuleWarn = "pss/warn"
	// RuleAudit reports what the namespace's audit label makes the server
	// record in its audit log.
	RuleAudit = "pss/audit"
)

// Rules lists the rule ids of the Pod Security checks, sorted.
func Rules() []string {
	return []string{RuleAudit, RuleBaseline, RuleEnforce, RuleRestricted, RuleWarn}
}

// OptIn reports whether a rule is off unless the configuration enables it
// (rules.enable, or profile all). pss/baseline is: without the namespace's
// Pod Security labels in sight, admission enforces nothing (the cluster's
// default is privileged), and the checks it reports are a chart's
// deliberate choice for node agents (hostPath logs, host ports,
// privileged storage and mesh daemons). The labels' verdicts (pss/enforce,
// pss/warn, pss/audit) stay on.
func OptIn(rule string) bool { return rule == RuleRestricted || rule == RuleBaseline }

// Violation is one check a pod template fails, at one field.
type Violation struct {
	// Level is the level whose check fails: baseline or restricted.
	Level api.Level
	// Field is the offending field, in the API server's notation, relative
	// to the object ("spec.template.spec.containers[0].securityContext.privileged").
	Field string
	// Container is the container's name when the field is in one.
	Container string
	// Message is upstream's check text: its reason, and its detail in
	// parentheses ("privileged (container "web" must not set securityContext.privileged=true)").
	Message string
}

// Result is what the Pod Security Standards say about one object's pods.
type Result struct {
	// Pod is true for a Pod, which admission refuses; false for objects
	// that create pods, which admission accepts with a warning.
	Pod bool
	// SpecField is the pod spec's path in the object ("spec.template.spec").
	SpecField string
	// Baseline and Restricted are the aggregated details of the failing
	// checks at each level's latest version, as admission words them
	// (AggregateCheckResult.ForbiddenDetail); "" when the level allows the pod.
	Baseline, Restricted string
	// Violations lists each failing check per container, volume or pod field.
	Violations []Violation
}

// Detail returns the aggregated detail at level, "" when it allows the pod.
func (r *Result) Detail(level api.Level) string {
	switch level {
	case api.LevelBaseline:
		return r.Baseline
	case api.LevelRestricted:
		return r.Restricted
	}
	return ""
}

// evaluator is built on first use: a run without pods builds nothing.
var evaluator = sync.OnceValues(func() (policy.Evaluator, error) {
	return policy.NewEvaluator(policy.DefaultChecks(), nil)
})

// checks are the default checks, each at its latest version, by level.
var checks = sync.OnceValue(func() []policy.Check { return policy.DefaultChecks() })

// PodSpec returns the pod metadata and spec of a decoded and defaulted
// object, and the spec's path ("spec.template.spec"); ok is false for
// objects without one.
func PodSpec(obj runtime.Object) (meta *metav1.ObjectMeta, spec *corev1.PodSpec, field string, ok bool) {
	return podSpec(obj)
}

// podSpec returns the pod metadata and spec of a versioned object, and the
// spec's path, as admission's DefaultPodSpecExtractor
// (k8s.io/pod-security-admission/admission) finds them.
func podSpec(obj runtime.Object) (*metav1.ObjectMeta, *corev1.PodSpec, string, bool) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.ObjectMeta, &o.Spec, "spec", true
	case *corev1.PodTemplate:
		return &o.Template.ObjectMeta, &o.Template.Spec, "template.spec", true
	case *corev1.ReplicationController:
		if o.Spec.Template == nil {
			return nil, nil, "", false
		}
		return &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, "spec.template.spec", true
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, "spec.template.spec", true
	case *appsv1.Deployment:
		return &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, "spec.template.spec", true
	case *appsv1.StatefulSet:
		return &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, "spec.template.spec", true
	case *appsv1.DaemonSet:
		return &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, "spec.template.spec", true
	case *batchv1.Job:
		return &o.Spec.Template.ObjectMeta, &o.Spec.Template.Spec, "spec.template.spec", true
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.ObjectMeta, &o.Spec.JobTemplate.Spec.Template.Spec,
			"spec.jobTemplate.spec.template.spec", true
	}
	return nil, nil, "", false
}

// Evaluate evaluates a decoded and defaulted object (the versioned object of
// the API tier) at the baseline and restricted levels, and lists the
// violations of each check of the levels in perCheck (baseline,
// restricted). ok is false for objects without a pod spec.
func Evaluate(obj runtime.Object, perCheck ...api.Level) (res Result, ok bool, err error) {
	meta, spec, specField, ok := podSpec(obj)
	if !ok {
		return Result{}, false, nil
	}
	ev, err := evaluator()
	if err != nil {
		return Result{}, false, fmt.Errorf("pod security checks: %w", err)
	}
	_, res.Pod = obj.(*corev1.Pod)
	res.SpecField = specField
	for _, level := range []api.Level{api.LevelBaseline, api.LevelRestricted} {
		agg := policy.AggregateCheckResults(ev.EvaluatePod(api.LevelVersion{Level: level, Version: api.LatestVersion()}, meta, spec))
		if !agg.Allowed {
			if level == api.LevelBaseline {
				res.Baseline = agg.ForbiddenDetail()
			} else {
				res.Restricted = agg.ForbiddenDetail()
			}
		}
	}
	levels := map[api.Level]bool{}
	for _, l := range perCheck {
		levels[l] = true
	}
	// Most pods fail some restricted check: the per-check work is done only
	// for the levels asked for, and baseline's only when a check fails.
	if res.Baseline == "" {
		delete(levels, api.LevelBaseline)
	}
	if res.Restricted != "" && len(levels) > 0 {
		res.Violations = violations(meta, spec, specField, levels)
	}
	return res, true, nil
}

// latest returns a check's latest version.
func latest(c policy.Check) policy.VersionedCheck { return c.Versions[len(c.Versions)-1] }

// part is one container or volume of a pod spec, alone in a copy of it.
type part struct {
	field     string // its path, relative to the pod spec: "containers[0]"
	container string // the container's name, "" for a volume
	spec      *corev1.PodSpec
}

// parts returns the pod spec without containers and volumes, and one copy
// per container and volume holding only it.
func parts(spec *corev1.PodSpec) (podOnly *corev1.PodSpec, ps []part) {
	bare := *spec
	bare.InitContainers, bare.Containers, bare.EphemeralContainers, bare.Volumes = nil, nil, nil, nil
	for i := range spec.InitContainers {
		s := bare
		s.InitContainers = spec.InitContainers[i : i+1]
		ps = append(ps, part{"initContainers[" + strconv.Itoa(i) + "]", spec.InitContainers[i].Name, &s})
	}
	for i := range spec.Containers {
		s := bare
		s.Containers = spec.Containers[i : i+1]
		ps = append(ps, part{"containers[" + strconv.Itoa(i) + "]", spec.Containers[i].Name, &s})
	}
	for i := range spec.Volumes {
		s := bare
		s.Volumes = spec.Volumes[i : i+1]
		ps = append(ps, part{"volumes[" + strconv.Itoa(i) + "]", "", &s})
	}
	return &bare, ps
}

// partField is where in a container or volume each check looks.
var partField = map[policy.CheckID]string{
	"privileged":                 "securityContext.privileged",
	"allowPrivilegeEscalation":   "securityContext.allowPrivilegeEscalation",
	"capabilities_baseline":      "securityContext.capabilities.add",
	"capabilities_restricted":    "securityContext.capabilities",
	"runAsNonRoot":               "securityContext.runAsNonRoot",
	"runAsUser":                  "securityContext.runAsUser",
	"seccompProfile_baseline":    "securityContext.seccompProfile",
	"seccompProfile_restricted":  "securityContext.seccompProfile",
	"seLinuxOptions":             "securityContext.seLinuxOptions",
	"procMount":                  "securityContext.procMount",
	"procMount_restricted":       "securityContext.procMount",
	"appArmorProfile":            "securityContext.appArmorProfile",
	"windowsHostProcess":         "securityContext.windowsOptions.hostProcess",
	"hostPorts":                  "ports",
	"hostPathVolumes":            "hostPath",
	"hostProbesAndHostLifecycle": "",
	"restrictedVolumes":          "",
}

// podField is where in the pod spec each check looks at the pod's own
// fields.
func podField(id policy.CheckID, spec *corev1.PodSpec) string {
	switch id {
	case "hostNamespaces":
		switch {
		case spec.HostNetwork:
			return "hostNetwork"
		case spec.HostPID:
			return "hostPID"
		case spec.HostIPC:
			return "hostIPC"
		}
	case "sysctls":
		return "securityContext.sysctls"
	case "runAsNonRoot", "runAsUser", "seccompProfile_baseline", "seccompProfile_restricted", "seLinuxOptions", "appArmorProfile":
		return "securityContext." + map[policy.CheckID]string{"runAsNonRoot": "runAsNonRoot", "runAsUser": "runAsUser",
			"seccompProfile_baseline": "seccompProfile", "seccompProfile_restricted": "seccompProfile",
			"seLinuxOptions": "seLinuxOptions", "appArmorProfile": "appArmorProfile"}[id]
	case "windowsHostProcess":
		return "securityContext.windowsOptions.hostProcess"
	}
	return ""
}

// violations runs each default check on its own, at its latest version, on
// the pod's own fields and then on each container and volume alone, so that
// each failure has a field. A restricted check that overrides a baseline
// one (restrictedVolumes over hostPathVolumes) is not reported where the
// baseline check already fails.
func violations(meta *metav1.ObjectMeta, spec *corev1.PodSpec, specField string, levels map[api.Level]bool) []Violation {
	podOnly, ps := parts(spec)
	var out []Violation
	join := func(rel string) string {
		if rel == "" {
			return specField
		}
		return specField + "." + rel
	}
	for _, c := range checks() {
		if !levels[c.Level] {
			continue
		}
		v := latest(c)
		failsWithOverridden := func(s *corev1.PodSpec) bool {
			for _, id := range v.OverrideCheckIDs {
				for _, o := range checks() {
					if o.ID == id && !latest(o).CheckPod(meta, s).Allowed {
						return true
					}
				}
			}
			return false
		}
		add := func(field, container string, r policy.CheckResult) {
			msg := r.ForbiddenReason
			if r.ForbiddenDetail != "" {
				msg += " (" + r.ForbiddenDetail + ")"
			}
			out = append(out, Violation{Level: c.Level, Field: field, Container: container, Message: msg})
		}
		whole := v.CheckPod(meta, spec)
		if whole.Allowed {
			continue
		}
		if r := v.CheckPod(meta, podOnly); !r.Allowed {
			if !failsWithOverridden(podOnly) {
				add(join(podField(c.ID, spec)), "", r)
			}
			continue
		}
		before := len(out)
		for _, p := range ps {
			r := v.CheckPod(meta, p.spec)
			if r.Allowed {
				continue
			}
			if failsWithOverridden(p.spec) {
				before = -1 // reported by the overridden baseline check
				continue
			}
			f := p.field
			if sub := partField[c.ID]; sub != "" {
				f += "." + sub
			}
			add(join(f), p.container, r)
		}
		if len(out) == before && !failsWithOverridden(spec) {
			// Only the parts together fail: the pod spec as a whole.
			add(specField, "", whole)
		}
	}
	return out
}
