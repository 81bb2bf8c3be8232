package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Helpers shared by the per-object rules (object_*.go): the pod spec of a
// workload, its containers with their field paths, and the object as
// written, for the few questions the defaulted object cannot answer (was a
// field written, and as what text).

// Container list fields, as the API spells them.
const (
	fieldInitContainers = "initContainers"
	fieldContainers     = "containers"
)

// containerLabel names a container list in messages.
var containerLabel = map[string]string{fieldInitContainers: "init container", fieldContainers: "container"}

// podSpecOf returns the pod spec of a decoded object and its field path
// (a CronJob's is in its job template), or nil for kinds without one. It
// mirrors lib.pod_spec_path of the Rego library.
func podSpecOf(obj runtime.Object) (*corev1.PodSpec, []string) {
	switch o := obj.(type) {
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec, []string{"spec", "jobTemplate", "spec", "template", "spec"}
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec, []string{"spec", "template", "spec"}
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec, []string{"spec", "template", "spec"}
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec, []string{"spec", "template", "spec"}
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec, []string{"spec", "template", "spec"}
	case *corev1.ReplicationController:
		if o.Spec.Template == nil {
			return nil, nil
		}
		return &o.Spec.Template.Spec, []string{"spec", "template", "spec"}
	case *batchv1.Job:
		return &o.Spec.Template.Spec, []string{"spec", "template", "spec"}
	case *corev1.Pod:
		return &o.Spec, []string{"spec"}
	case *corev1.PodTemplate:
		return &o.Template.Spec, []string{"template", "spec"}
	}
	return nil, nil
}

// podContainer is one container or init container of a pod spec.
type podContainer struct {
	// field is initContainers or containers; index the position in it.
	field string
	index int
	c     *corev1.Container
	// path is the container's field path (spec.template.spec.containers[0]).
	path string
}

// podContainers lists the init containers, then the containers, of spec
// at specPath.
func podContainers(spec *corev1.PodSpec, specPath []string) []podContainer {
	if spec == nil {
		return nil
	}
	prefix := strings.Join(specPath, ".")
	out := make([]podContainer, 0, len(spec.InitContainers)+len(spec.Containers))
	for i := range spec.InitContainers {
		out = append(out, podContainer{field: fieldInitContainers, index: i, c: &spec.InitContainers[i],
			path: fmt.Sprintf("%s.%s[%d]", prefix, fieldInitContainers, i)})
	}
	for i := range spec.Containers {
		out = append(out, podContainer{field: fieldContainers, index: i, c: &spec.Containers[i],
			path: fmt.Sprintf("%s.%s[%d]", prefix, fieldContainers, i)})
	}
	return out
}

// segments returns the path segments of pc within the object.
func (pc podContainer) segments(specPath []string) []any {
	out := make([]any, 0, len(specPath)+2)
	for _, s := range specPath {
		out = append(out, s)
	}
	return append(out, pc.field, pc.index)
}

// hasControllerOwner is true for objects whose owner is linted instead: a
// Deployment's ReplicaSets, a CronJob's Jobs, a controller's Pods
// (metav1.GetControllerOfNoCopy).
func hasControllerOwner(obj runtime.Object) bool {
	m, ok := obj.(metav1.Object)
	return ok && metav1.GetControllerOfNoCopy(m) != nil
}

// rawJSON is an object as written (the JSON kubectl would send), decoded
// only when a rule asks: whether a field was written, and its literal value.
type rawJSON struct {
	raw     []byte
	decoded bool
	root    any
}

// newRawJSON wraps the JSON of an object as written.
func newRawJSON(raw []byte) *rawJSON { return &rawJSON{raw: raw} }

// get returns the value at path (map keys and list indexes), and whether
// it is there; a JSON null is there, with value nil.
func (w *rawJSON) get(path ...any) (any, bool) {
	if w == nil {
		return nil, false
	}
	if !w.decoded {
		w.decoded = true
		d := json.NewDecoder(bytes.NewReader(w.raw))
		d.UseNumber()
		if err := d.Decode(&w.root); err != nil {
			w.root = nil
		}
	}
	v := w.root
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := v.([]any)
			if !ok || k < 0 || k >= len(l) {
				return nil, false
			}
			v = l[k]
		default:
			return nil, false
		}
	}
	return v, true
}

// writtenText formats a value as the manifest writes it, for a message, in
// the form the Rego rules' sprintf %v gave (kept when they moved to Go):
// integers as integers, numbers with a fraction or an exponent as float64,
// strings as they are.
func writtenText(v any) string {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return fmt.Sprint(f)
			}
			return s
		}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return s
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// writtenResource returns the written value of resources.<list>.<name> of
// a container, and whether it is there and not null.
func writtenResource(raw *rawJSON, specPath []string, pc podContainer, list string, name corev1.ResourceName) (any, bool) {
	val, ok := raw.get(append(pc.segments(specPath), "resources", list, string(name))...)
	return val, ok && val != nil
}

func hasQuantity(l corev1.ResourceList, name corev1.ResourceName) bool {
	_, ok := l[name]
	return ok
}

// eachContainer runs check on every container of an object's pod spec,
// unless a controller owns the object.
func eachContainer(c *ObjectContext, check func(podContainer, []string) *Finding) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		if f := check(pc, specPath); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// ptrOr is *p, or def when p is nil.
func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// jobSpecs are the Job specs of an object, each with its path segments: a
// Job's own, or a CronJob's job template.
func jobSpecs(obj runtime.Object) ([]string, *batchv1.JobSpec) {
	switch o := obj.(type) {
	case *batchv1.Job:
		return []string{"spec"}, &o.Spec
	case *batchv1.CronJob:
		return []string{"spec", "jobTemplate", "spec"}, &o.Spec.JobTemplate.Spec
	}
	return nil, nil
}

// imageTag is the tag of an image reference: what follows the first ":" of
// its last path component (a registry port is in an earlier one), or ""
// when there is none.
func imageTag(image string) (string, bool) {
	last := image[strings.LastIndex(image, "/")+1:]
	i := strings.Index(last, ":")
	if i < 0 {
		return "", false
	}
	return last[i+1:], true
}

// injectedContainer is a container an injector replaces, with the marks
// that say so.
type injectedContainer struct {
	pc       podContainer
	injector string
	marks    []string
}

// injected lists the containers of obj's pods that an injector replaces.
func injected(obj runtime.Object) []injectedContainer {
	m := podMetaOf(obj)
	spec, specPath := podSpecOf(obj)
	if m == nil || spec == nil {
		return nil
	}
	var out []injectedContainer
	for _, inj := range injectors {
		var marks []string
		for key, want := range inj.markers {
			for _, set := range []map[string]string{m.Labels, m.Annotations} {
				v, ok := set[key]
				if !ok || want != "" && v != want || want == "" && (v == "false" || v == "disabled") {
					continue
				}
				marks = append(marks, fmt.Sprintf("%s: %q", key, v))
				break
			}
		}
		if len(marks) == 0 {
			continue
		}
		sort.Strings(marks)
		for _, pc := range podContainers(spec, specPath) {
			if pc.field == fieldContainers && (pc.c.Name == inj.container || pc.c.Image == injectedImage) {
				out = append(out, injectedContainer{pc: pc, injector: inj.name, marks: marks})
			}
		}
	}
	return out
}

// injectors are the well-known sidecar injectors: the pod template labels or
// annotations that mark a pod for injection (a value of "" accepts any
// value but false/disabled), and the name of the container each injects.
var injectors = []struct {
	name      string
	markers   map[string]string
	container string
}{
	{"istio", map[string]string{"sidecar.istio.io/inject": "true", "istio.io/rev": "", "inject.istio.io/templates": ""}, "istio-proxy"},
	{"linkerd", map[string]string{"linkerd.io/inject": ""}, "linkerd-proxy"},
	{"consul", map[string]string{"consul.hashicorp.com/connect-inject": "true"}, "consul-dataplane"},
	{"kuma", map[string]string{"kuma.io/sidecar-injection": ""}, "kuma-sidecar"},
}

// injectedImage is the image a container the injector replaces writes:
// istio's gateway chart's placeholder.
const injectedImage = "auto"

// podMetaOf returns the metadata of a decoded object's pods: a pod
// template's, or a Pod's own.
func podMetaOf(obj runtime.Object) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.ObjectMeta
	case *appsv1.Deployment:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.StatefulSet:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.DaemonSet:
		return &o.Spec.Template.ObjectMeta
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.ObjectMeta
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.ObjectMeta
		}
	case *batchv1.Job:
		return &o.Spec.Template.ObjectMeta
	case *corev1.PodTemplate:
		return &o.Template.ObjectMeta
	case *corev1.Pod:
		return &o.ObjectMeta
	}
	return nil
}
