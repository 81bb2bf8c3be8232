package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-workload/kubectl-workload/internal/controller/cronjob"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/podsecurity"
)

// RuleReferenceMissing reports a ConfigMap, Secret, ServiceAccount or
// PersistentVolumeClaim that a pod spec needs and that its namespace in the
// input does not hold, when the input holds objects of that kind there.
const RuleReferenceMissing = "references/missing"

// referencedKinds are the kinds a pod spec names that must exist for its
// pods to start, with what happens when one is missing.
var referencedKinds = map[string]string{
	"ConfigMap":             "the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)",
	"Secret":                "the pods stay in ContainerCreating (a volume) or fail with CreateContainerConfigError (env)",
	"PersistentVolumeClaim": "the pods stay Pending",
	"ServiceAccount":        "the API server refuses every pod (the ServiceAccount admission plugin), so none is created",
}

// reference is one object a pod spec names, where it names it.
type reference struct {
	kind, name, field string
	line, column      int32
	// initContainers is set when the pod has init containers, which may
	// create a Secret before the containers that need it start.
	initContainers bool
}

// rootCAConfigMap is the ConfigMap the root-ca-cert-publisher controller
// (kube-controller-manager) keeps in every namespace, for projected
// service account token volumes.
const rootCAConfigMap = "kube-root-ca.crt"

// Hook annotations: a Job that carries one runs around an install, and may
// create what the workloads need (a Secret holding generated certificates,
// ingress-nginx's admission-create Job).
var hookAnnotations = []string{"helm.sh/hook", "argocd.argoproj.io/hook"}

// readSecretSource records what c's object tells about the Secrets of its
// namespace: a hook Job may create some (which lint cannot know), and a
// custom resource of a controller that writes a Secret names it (a
// cert-manager Certificate's spec.secretName, a SealedSecret's own name, an
// External Secrets ExternalSecret's spec.target.name or own name).
func (c *checked) readSecretSource(obj *manifest.Object, annotations map[string]string) {
	group, _, _ := strings.Cut(obj.APIVersion, "/")
	switch {
	case obj.Kind == "Job" && group == "batch":
		for _, a := range hookAnnotations {
			if _, ok := annotations[a]; ok {
				c.set().hookJob = true
			}
		}
	case obj.Kind == "Certificate" && group == "cert-manager.io":
		var crt struct {
			Spec struct {
				SecretName string `json:"secretName"`
			} `json:"spec"`
		}
		if json.Unmarshal(obj.JSON, &crt) == nil && crt.Spec.SecretName != "" {
			c.set().producesSecret = crt.Spec.SecretName
		}
	case obj.Kind == "SealedSecret" && group == "bitnami.com":
		c.set().producesSecret = obj.Name
	case obj.Kind == "ExternalSecret" && group == "external-secrets.io":
		var es struct {
			Spec struct {
				Target struct {
					Name string `json:"name"`
				} `json:"target"`
			} `json:"spec"`
		}
		c.set().producesSecret = obj.Name
		if json.Unmarshal(obj.JSON, &es) == nil && es.Spec.Target.Name != "" {
			c.set().producesSecret = es.Spec.Target.Name
		}
	}
}

// readReferences records the objects c's pod spec needs, the optional ones
// aside; the default ServiceAccount, which every namespace has, is not one.
func (c *checked) readReferences(versioned runtime.Object) {
	_, spec, base, ok := podsecurity.PodSpec(versioned)
	if !ok {
		return
	}
	add := func(kind, name, field string, optional *bool) {
		if name == "" || (optional != nil && *optional) || (kind == "ConfigMap" && name == rootCAConfigMap) {
			return
		}
		f := c.at(RuleReferenceMissing, SeverityWarning, base+"."+field, "")
		c.refs = append(c.refs, reference{kind: kind, name: name, field: f.Field, line: int32(f.Line), column: int32(f.Column),
			initContainers: len(spec.InitContainers) > 0})
	}
	// A StatefulSet's volume named like one of its volumeClaimTemplates is
	// replaced by each pod's own claim (the StatefulSet controller's
	// updateStorage).
	claimTemplates := map[string]bool{}
	if sts, ok := versioned.(*appsv1.StatefulSet); ok {
		for _, t := range sts.Spec.VolumeClaimTemplates {
			claimTemplates[t.Name] = true
		}
	}
	if sa := spec.ServiceAccountName; sa != "default" {
		add("ServiceAccount", sa, "serviceAccountName", nil)
	}
	for i, v := range spec.Volumes {
		f := "volumes[" + strconv.Itoa(i) + "]"
		switch {
		case v.ConfigMap != nil:
			add("ConfigMap", v.ConfigMap.Name, f+".configMap.name", v.ConfigMap.Optional)
		case v.Secret != nil:
			add("Secret", v.Secret.SecretName, f+".secret.secretName", v.Secret.Optional)
		case v.PersistentVolumeClaim != nil && !claimTemplates[v.Name]:
			add("PersistentVolumeClaim", v.PersistentVolumeClaim.ClaimName, f+".persistentVolumeClaim.claimName", nil)
		case v.Projected != nil:
			for j, s := range v.Projected.Sources {
				g := f + ".projected.sources[" + strconv.Itoa(j) + "]"
				if s.ConfigMap != nil {
					add("ConfigMap", s.ConfigMap.Name, g+".configMap.name", s.ConfigMap.Optional)
				}
				if s.Secret != nil {
					add("Secret", s.Secret.Name, g+".secret.name", s.Secret.Optional)
				}
			}
		}
	}
	lists := []struct {
		field      string
		containers []corev1.Container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}}
	for _, l := range lists {
		for i, ct := range l.containers {
			f := l.field + "[" + strconv.Itoa(i) + "]"
			for j, e := range ct.EnvFrom {
				g := f + ".envFrom[" + strconv.Itoa(j) + "]"
				if e.ConfigMapRef != nil {
					add("ConfigMap", e.ConfigMapRef.Name, g+".configMapRef.name", e.ConfigMapRef.Optional)
				}
				if e.SecretRef != nil {
					add("Secret", e.SecretRef.Name, g+".secretRef.name", e.SecretRef.Optional)
				}
			}
			for j, e := range ct.Env {
				if e.ValueFrom == nil {
					continue
				}
				g := f + ".env[" + strconv.Itoa(j) + "].valueFrom"
				if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
					add("ConfigMap", r.Name, g+".configMapKeyRef.name", r.Optional)
				}
				if r := e.ValueFrom.SecretKeyRef; r != nil {
					add("Secret", r.Name, g+".secretKeyRef.name", r.Optional)
				}
			}
		}
	}
}

// applyReferences reports the references to objects that the input does not
// hold, in namespaces where it holds objects of the kind: elsewhere they may
// be created apart from the manifests (a Secret from a vault, a chart). A
// Secret that a controller's custom resource of the input names is there. A
// Secret that a hook Job of the namespace or the pod's own init container
// may create is reported at info, saying what lint cannot know.
func applyReferences(all []*checked) {
	type key struct{ namespace, kind string }
	present := map[key]map[string]bool{}
	hookJobs := map[string][]string{}
	produced := map[string]map[string]bool{}
	// A Secret a pod with init containers needs may be made by one of them
	// (Argo CD's redis Deployment makes argocd-redis in its secret-init
	// container): other pods that need it wait on it too.
	initMakers := map[key][]string{}
	for _, c := range all {
		for _, r := range c.refs {
			if r.kind == "Secret" && r.initContainers {
				k := key{c.ref.Namespace, r.name}
				if !slices.Contains(initMakers[k], c.ref.Kind+" "+c.ref.Name) {
					initMakers[k] = append(initMakers[k], c.ref.Kind+" "+c.ref.Name)
				}
			}
		}
	}
	for _, c := range all {
		if c.get().hookJob {
			hookJobs[c.ref.Namespace] = append(hookJobs[c.ref.Namespace], c.ref.Name)
		}
		if c.get().producesSecret != "" {
			if produced[c.ref.Namespace] == nil {
				produced[c.ref.Namespace] = map[string]bool{}
			}
			produced[c.ref.Namespace][c.get().producesSecret] = true
		}
	}
	for _, c := range all {
		if _, ok := referencedKinds[c.ref.Kind]; ok && c.ref.APIVersion == "v1" {
			k := key{c.ref.Namespace, c.ref.Kind}
			if present[k] == nil {
				present[k] = map[string]bool{}
			}
			present[k][c.ref.Name] = true
		}
	}
	for _, c := range all {
		seen := map[reference]bool{}
		for _, r := range c.refs {
			names := present[key{c.ref.Namespace, r.kind}]
			if names == nil || names[r.name] || (r.kind == "Secret" && produced[c.ref.Namespace][r.name]) {
				continue
			}
			dedupe := reference{kind: r.kind, name: r.name}
			if seen[dedupe] {
				continue
			}
			seen[dedupe] = true
			f := Finding{Rule: RuleReferenceMissing, Severity: SeverityWarning, File: c.file, Document: c.document,
				Line: int(r.line), Column: int(r.column), Field: r.field, Object: &c.ref}
			f.Message = fmt.Sprintf("%s %s is not in the input's namespace %s, which holds %d other %s: %s",
				r.kind, r.name, c.ref.Namespace, len(names), plural(r.kind, len(names)), referencedKinds[r.kind])
			if r.kind == "Secret" {
				if by := secretMakers(hookJobs[c.ref.Namespace], r.initContainers, initMakers[key{c.ref.Namespace, r.name}]); by != "" {
					f.Severity = SeverityInfo
					f.Message = fmt.Sprintf("Secret %s is not in the input's namespace %s, which holds %d other %s; %s may create it, which lint cannot know: if nothing does, %s",
						r.name, c.ref.Namespace, len(names), plural(r.kind, len(names)), by, referencedKinds[r.kind])
				}
			}
			c.findings = append(c.findings, f)
		}
		c.refs = nil
	}
}

// secretMakers names what may create a Secret the input lacks: the
// namespace's hook Jobs (sorted, the first two named) and the pod's init
// containers, else those of another workload that needs the Secret
// (initWorkloads, "Kind name"; the first in order named); "" when nothing
// may.
func secretMakers(jobs []string, initContainers bool, initWorkloads []string) string {
	var by []string
	if len(jobs) > 0 {
		jobs = slices.Sorted(slices.Values(jobs))
		s := "hook Job " + jobs[0]
		if len(jobs) == 2 {
			s = "hook Jobs " + jobs[0] + " and " + jobs[1]
		} else if len(jobs) > 2 {
			s = fmt.Sprintf("hook Jobs %s, %s and %d more", jobs[0], jobs[1], len(jobs)-2)
		}
		by = append(by, "a "+s)
	}
	if initContainers {
		by = append(by, "an init container of the pod")
	} else if len(initWorkloads) > 0 {
		by = append(by, "an init container of "+slices.Min(initWorkloads))
	}
	return strings.Join(by, " or ")
}

// plural is kind, with an s for n other than 1.
func plural(kind string, n int) string {
	if n == 1 {
		return kind
	}
	return kind + "s"
}

// RuleCronJobNeverFires reports a CronJob whose schedule matches no date.
const RuleCronJobNeverFires = "cronjob/never-fires"

// scheduleFrom is where the search for a CronJob's next schedule time
// starts. The schedule parser looks five years ahead, so a schedule that
// matches any date at all (29 February included) is found from any start;
// a fixed one keeps lint independent of the clock.
var scheduleFrom = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// checkSchedule reports a CronJob whose schedule never fires (0 0 31 2 *),
// with the schedule parsed as the CronJob controller parses it
// (internal/controller/cronjob.Schedule).
func (c *checked) checkSchedule(versioned runtime.Object) {
	cj, ok := versioned.(*batchv1.CronJob)
	if !ok {
		return
	}
	sched, err := cronjob.Schedule(cj)
	if err != nil || !sched.Next(scheduleFrom).IsZero() {
		return // an invalid schedule is the API tier's
	}
	c.findings = append(c.findings, c.at(RuleCronJobNeverFires, SeverityWarning, "spec.schedule", fmt.Sprintf(
		"schedule %q matches no date, so the CronJob controller never finds a next schedule time and never creates a Job", cj.Spec.Schedule)))
}
