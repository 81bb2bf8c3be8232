// Package bench holds the performance benchmarks of kubectl workload lint and
// the deterministic generator of the manifest corpus they run on.
//
// The generator writes realistic workload manifests (Deployments,
// StatefulSets, DaemonSets, Jobs, CronJobs, Pods and ReplicaSets, with the
// Services and ConfigMaps that go with them) as multi-document YAML files
// spread over several directories. Every tenth object is a workload the API
// server would reject, so a lint run always has findings to produce and
// position.
package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// ObjectsPerFile is how many documents each generated file holds (the last
// file may hold fewer).
const ObjectsPerFile = 10

// PrecommitObjects is the size of the pre-commit set: the first five files of
// a corpus, about what one commit touches.
const PrecommitObjects = 5 * ObjectsPerFile

// seed fixes the generator's pseudo-random choices. Each object draws from
// its own PCG stream seeded with (seed, index), so object i is the same
// whatever the corpus size.
const seed = 0x6b7562656374_6c // "kubectl"

// The kinds the generator writes.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindDaemonSet   = "DaemonSet"
	KindReplicaSet  = "ReplicaSet"
	KindJob         = "Job"
	KindCronJob     = "CronJob"
	KindPod         = "Pod"
	KindService     = "Service"
	KindConfigMap   = "ConfigMap"
	KindPDB         = "PodDisruptionBudget"
	KindHPA         = "HorizontalPodAutoscaler"
)

// kindWeights is the mix of valid objects, out of 100: mostly Deployments
// with their Services and ConfigMaps, as in a typical application repository.
var kindWeights = []struct {
	kind   string
	weight int
}{
	{KindDeployment, 30},
	{KindService, 20},
	{KindConfigMap, 15},
	{KindStatefulSet, 7},
	{KindJob, 7},
	{KindCronJob, 7},
	{KindPod, 5},
	{KindReplicaSet, 5},
	{KindDaemonSet, 4},
}

// Defect is the way an invalid object is broken.
type Defect int

// The defects: each is something the API server rejects on create.
const (
	// Valid: no defect.
	Valid Defect = iota
	// SelectorMismatch: spec.selector does not match the template's labels.
	SelectorMismatch
	// NegativeCount: replicas, parallelism, a history limit, minReadySeconds
	// or activeDeadlineSeconds below zero.
	NegativeCount
	// MissingImage: the first container has no image.
	MissingImage
	// UnknownField: a misspelt container field, rejected by strict decoding.
	UnknownField
)

var defectNames = [...]string{Valid: "valid", SelectorMismatch: "selector-mismatch", NegativeCount: "negative-count",
	MissingImage: "missing-image", UnknownField: "unknown-field"}

// String names the defect.
func (d Defect) String() string {
	if d < 0 || int(d) >= len(defectNames) {
		return fmt.Sprintf("defect(%d)", int(d))
	}
	return defectNames[d]
}

// defectKinds are the kinds each defect is applied to, in rotation.
var defectKinds = map[Defect][]string{
	SelectorMismatch: {KindDeployment, KindStatefulSet, KindDaemonSet, KindReplicaSet},
	NegativeCount:    {KindDeployment, KindStatefulSet, KindDaemonSet, KindReplicaSet, KindJob, KindCronJob, KindPod},
	MissingImage:     {KindDeployment, KindStatefulSet, KindDaemonSet, KindReplicaSet, KindJob, KindCronJob, KindPod},
	UnknownField:     {KindDeployment, KindStatefulSet, KindDaemonSet, KindReplicaSet, KindJob, KindCronJob, KindPod},
}

// Plan says what object i of a corpus is.
type Plan struct {
	Index  int
	Kind   string
	Defect Defect
	// Target is the index of the workload a PodDisruptionBudget guards or a
	// HorizontalPodAutoscaler scales (always the object just before it, in
	// the same file), or -1.
	Target int
	// Follower is the kind of the object just after this one when it is
	// this workload's PodDisruptionBudget or HorizontalPodAutoscaler, else
	// "". An autoscaled Deployment leaves spec.replicas to its autoscaler.
	Follower string
	// File is the file holding the object, relative to the corpus root.
	File string
	// Document is the object's 0-based document index in File.
	Document int
	// Namespace is metadata.namespace; "" for objects that name none.
	Namespace string
	// Name is metadata.name.
	Name string
}

// Stats summarises a generated corpus.
type Stats struct {
	Files   int
	Objects int
	// Invalid is the number of objects with a Defect.
	Invalid int
	// Broken is the number of documents that do not parse (an unrendered
	// Helm template, a tab in the indentation), each in a file of its own
	// (counted in Files); they are documents but not objects.
	Broken int
	// Workloads is the number of objects of a kind the API tier validates.
	Workloads int
	ByKind    map[string]int
	ByDefect  map[Defect]int
	Bytes     int64
}

var teams = []string{"payments", "checkout", "catalog", "search", "identity", "platform", "data", "ml", "growth", "support"}

var envs = []string{"prod", "staging", "dev"}

var regions = []string{"eu-west-1", "us-east-1", "ap-south-1", "us-west-2"}

var apps = []string{"api", "web", "worker", "gateway", "cache", "indexer", "scheduler", "notifier", "ledger", "reporter",
	"frontend", "backend", "auth", "billing", "inventory", "orders", "recommender", "ingest", "exporter", "sync"}

// PlanOf returns the plan of object i. Exactly one object in ten (index%10
// == 3) is invalid, rotating through the defects and, for each defect,
// through the kinds it applies to. A valid Deployment or StatefulSet may be
// followed, in the same file, by its PodDisruptionBudget or (Deployments
// only) HorizontalPodAutoscaler, which then takes the next object's place.
func PlanOf(i int) Plan {
	file := i / ObjectsPerFile
	team := teams[file%len(teams)]
	p := Plan{
		Index:    i,
		File:     FileOf(file),
		Document: i % ObjectsPerFile,
		Target:   -1,
	}
	// One file in seven leaves the namespace to -n / "default".
	if file%7 != 0 {
		p.Namespace = team + "-" + envs[(file/len(teams))%len(envs)]
	}
	rng := objectRand(i)
	n, appIdx := rng.IntN(100), rng.IntN(len(apps))
	p.Name = fmt.Sprintf("%s-%s-%d", team, apps[appIdx], i)
	if i%10 == 3 {
		ord := i / 10
		p.Defect = Defect(1 + ord%4)
		ks := defectKinds[p.Defect]
		p.Kind = ks[(ord/4)%len(ks)]
		return p
	}
	if p.Document > 0 {
		// The recursion stops at the file's first object.
		if prev := PlanOf(i - 1); prev.Follower != "" {
			p.Kind, p.Target, p.Name = prev.Follower, i-1, prev.Name
			return p
		}
	}
	for _, kw := range kindWeights {
		if n < kw.weight {
			p.Kind = kw.kind
			break
		}
		n -= kw.weight
	}
	// The follower is drawn from a stream of its own, so that the object's
	// own stream is the same with or without one. The next object must be
	// in the same file and not an invalid one.
	if next := i + 1; next%ObjectsPerFile != 0 && next%10 != 3 {
		f := rand.New(rand.NewPCG(seed+1, uint64(i))).IntN(100)
		switch {
		case p.Kind == KindDeployment && f < 25:
			p.Follower = KindHPA
		case (p.Kind == KindDeployment || p.Kind == KindStatefulSet) && f >= 25 && f < 50:
			p.Follower = KindPDB
		}
	}
	return p
}

// FileOf is the path of file number f of a corpus, relative to its root:
// team-<team>/<env>/<region>/manifests-NNNNN.yaml.
func FileOf(f int) string {
	team := teams[f%len(teams)]
	env := envs[(f/len(teams))%len(envs)]
	region := regions[(f/(len(teams)*len(envs)))%len(regions)]
	return filepath.Join("team-"+team, env, region, fmt.Sprintf("manifests-%05d.yaml", f))
}

// BrokenFile reports whether file number f has a broken sibling, a file
// holding one document that does not parse (BrokenFileOf): one file in 23.
// Broken documents have files of their own because some linters (kube-score)
// give up on a whole run at the first document that does not parse; the peer
// runner leaves these files out for them, and every tool still sees every
// object.
func BrokenFile(f int) bool { return f%23 == 11 }

// BrokenFileOf is the path of file f's broken sibling, relative to the
// corpus root: templates-NNNNN.yaml beside it.
func BrokenFileOf(f int) string {
	return filepath.Join(filepath.Dir(FileOf(f)), fmt.Sprintf("templates-%05d.yaml", f))
}

// brokenDocuments are the unparsable documents, in rotation: an unrendered
// Helm template, and a tab in the indentation.
var brokenDocuments = []string{
	`# Source: app/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
data:
  LOG_LEVEL: {{ .Values.logLevel | quote }}
`,
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tabbed\ndata:\n\tkey: value\n",
}

// objectRand is object i's own deterministic random stream.
func objectRand(i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}

// WriteCorpus writes a corpus of the given number of objects under dir,
// ObjectsPerFile documents per file, in subdirectories team-<team>/<env>/.
// The output depends only on objects: the same call writes the same bytes.
func WriteCorpus(dir string, objects int) error {
	_, err := GenerateCorpus(dir, objects)
	return err
}

// GenerateCorpus is WriteCorpus, also returning what it wrote.
func GenerateCorpus(dir string, objects int) (Stats, error) {
	st := Stats{ByKind: map[string]int{}, ByDefect: map[Defect]int{}}
	if objects < 0 {
		return st, fmt.Errorf("negative object count %d", objects)
	}
	var buf bytes.Buffer
	var file string
	fileIndex := -1
	flush := func() error {
		if buf.Len() == 0 {
			return nil
		}
		path := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
		st.Files++
		st.Bytes += int64(buf.Len())
		buf.Reset()
		if BrokenFile(fileIndex) {
			doc := brokenDocuments[(fileIndex/23)%len(brokenDocuments)]
			if err := os.WriteFile(filepath.Join(dir, BrokenFileOf(fileIndex)), []byte(doc), 0o644); err != nil {
				return err
			}
			st.Files++
			st.Broken++
			st.Bytes += int64(len(doc))
		}
		return nil
	}
	for i := range objects {
		p := PlanOf(i)
		if p.File != file {
			if err := flush(); err != nil {
				return st, err
			}
			file, fileIndex = p.File, i/ObjectsPerFile
			fmt.Fprintf(&buf, "# Generated by kubectl-workload/bench: %s objects %d-%d.\n", file, i,
				min(i+ObjectsPerFile, objects)-1)
		}
		if p.Document > 0 {
			buf.WriteString("---\n")
		}
		writeObject(&buf, p)
		st.Objects++
		st.ByKind[p.Kind]++
		st.ByDefect[p.Defect]++
		if p.Defect != Valid {
			st.Invalid++
		}
		if p.Kind != KindService && p.Kind != KindConfigMap && p.Kind != KindPDB && p.Kind != KindHPA {
			st.Workloads++
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	return st, nil
}

// Object returns the YAML of object i alone, as it appears in a corpus.
func Object(i int) []byte {
	var buf bytes.Buffer
	writeObject(&buf, PlanOf(i))
	return buf.Bytes()
}

// ObjectOf returns the YAML of a valid object of the given kind, numbered i.
func ObjectOf(kind string, i int) []byte {
	p := PlanOf(i)
	p.Kind, p.Defect, p.Target, p.Follower = kind, Valid, -1, ""
	var buf bytes.Buffer
	writeObject(&buf, p)
	return buf.Bytes()
}

// yw writes YAML lines at a depth of two spaces per level.
type yw struct {
	b *bytes.Buffer
}

func (w yw) l(depth int, format string, args ...any) {
	for range depth {
		w.b.WriteString("  ")
	}
	if len(args) == 0 {
		w.b.WriteString(format)
	} else {
		fmt.Fprintf(w.b, format, args...)
	}
	w.b.WriteByte('\n')
}

// gen carries one object's choices while it is written.
type gen struct {
	w   yw
	p   Plan
	rng *rand.Rand
	app string
	// component and version complete the labels; the selector uses
	// app.kubernetes.io/name and app.kubernetes.io/component.
	component string
	version   string
	// lean writes pod specs the size of the real-world corpus's (one
	// container, a few fields) instead of the rich ones; the repo-shaped
	// corpus uses it.
	lean bool
	// shared leaves app.kubernetes.io/instance out of labels and selectors,
	// so that every copy of an app selects every other copy's pods: the
	// one-namespace corpus uses it.
	shared bool
}

func writeObject(buf *bytes.Buffer, p Plan) {
	g := &gen{w: yw{buf}, p: p, rng: objectRand(p.Index)}
	g.app, g.component, g.version = identity(p.Index, p.Name, g.rng)
	if p.Target >= 0 {
		// A budget or autoscaler carries its workload's labels.
		target := PlanOf(p.Target)
		g.app, g.component, g.version = identity(target.Index, target.Name, objectRand(target.Index))
	}
	switch p.Kind {
	case KindDeployment:
		g.deployment()
	case KindStatefulSet:
		g.statefulSet()
	case KindDaemonSet:
		g.daemonSet()
	case KindReplicaSet:
		g.replicaSet()
	case KindJob:
		g.job()
	case KindCronJob:
		g.cronJob()
	case KindPod:
		g.pod()
	case KindService:
		g.service()
	case KindConfigMap:
		g.configMap()
	case KindPDB:
		g.pdb()
	case KindHPA:
		g.hpa()
	default:
		panic("bench: unknown kind " + p.Kind)
	}
}

// identity draws an object's app, component and version from the start of
// its stream (after the two draws PlanOf made), leaving the rest fresh.
func identity(i int, name string, rng *rand.Rand) (app, component, version string) {
	rng.IntN(100)
	rng.IntN(len(apps))
	app = strings.TrimSuffix(name, fmt.Sprintf("-%d", i))
	component = []string{"server", "worker", "frontend", "backend", "job"}[rng.IntN(5)]
	version = fmt.Sprintf("%d.%d.%d", 1+rng.IntN(4), rng.IntN(20), rng.IntN(10))
	return app, component, version
}

func (g *gen) header(apiVersion, kind string) {
	w := g.w
	if g.rng.IntN(4) == 0 {
		w.l(0, "# %s %s: owned by team %s.", kind, g.p.Name, strings.TrimPrefix(strings.SplitN(g.p.File, string(filepath.Separator), 2)[0], "team-"))
	}
	w.l(0, "apiVersion: %s", apiVersion)
	w.l(0, "kind: %s", kind)
	w.l(0, "metadata:")
	w.l(1, "name: %s", g.p.Name)
	if g.p.Namespace != "" {
		w.l(1, "namespace: %s", g.p.Namespace)
	}
	w.l(1, "labels:")
	g.labels(2, !g.lean)
	if g.rng.IntN(2) == 0 && (!g.lean || g.rng.IntN(3) == 0) {
		w.l(1, "annotations:")
		w.l(2, "kubernetes.io/change-cause: \"release %s\"", g.version)
		w.l(2, "example.com/owner: %s@example.com", g.app)
	}
}

// labels writes the object's labels; the first two are the selector's, and
// workloads add app.kubernetes.io/instance, which their selectors also use:
// several workloads share an app's name, and two controllers with one
// selector would overlap, a real defect (selector/overlap) the corpus must not
// plant. Services select the app and component, so they match its workloads.
func (g *gen) labels(depth int, all bool) {
	w := g.w
	w.l(depth, "app.kubernetes.io/name: %s", g.app)
	w.l(depth, "app.kubernetes.io/component: %s", g.component)
	if g.p.Kind != KindService && !g.shared {
		w.l(depth, "app.kubernetes.io/instance: %s", g.p.Name)
	}
	if all {
		w.l(depth, "app.kubernetes.io/version: \"%s\"", g.version)
		w.l(depth, "app.kubernetes.io/part-of: %s", strings.SplitN(g.app, "-", 2)[0])
		w.l(depth, "app.kubernetes.io/managed-by: kubectl")
	}
}

// selector writes spec.selector; a SelectorMismatch selects a component the
// template does not carry.
func (g *gen) selector(depth int) {
	w := g.w
	w.l(depth, "selector:")
	if g.rng.IntN(5) == 0 {
		w.l(depth+1, "matchExpressions:")
		w.l(depth+1, "- key: app.kubernetes.io/name")
		w.l(depth+2, "operator: In")
		w.l(depth+2, "values:")
		w.l(depth+2, "- %s", g.app)
		w.l(depth+1, "matchLabels:")
	} else {
		w.l(depth+1, "matchLabels:")
		w.l(depth+2, "app.kubernetes.io/name: %s", g.app)
	}
	component := g.component
	if g.p.Defect == SelectorMismatch {
		component += "-canary"
	}
	w.l(depth+2, "app.kubernetes.io/component: %s", component)
	if !g.shared {
		w.l(depth+2, "app.kubernetes.io/instance: %s", g.p.Name)
	}
}

// count writes a replicas-like field, negative for a NegativeCount.
func (g *gen) count(depth int, field string, value int) {
	if g.p.Defect == NegativeCount {
		value = -1 - value
	}
	g.w.l(depth, "%s: %d", field, value)
}

// template writes a pod template (metadata and spec) with its keys at depth.
func (g *gen) template(depth int, restartPolicy string) {
	w := g.w
	w.l(depth, "metadata:")
	w.l(depth+1, "labels:")
	g.labels(depth+2, !g.lean)
	if g.rng.IntN(2) == 0 && !g.lean {
		w.l(depth+1, "annotations:")
		w.l(depth+2, "prometheus.io/scrape: \"true\"")
		w.l(depth+2, "prometheus.io/port: \"9090\"")
	}
	w.l(depth, "spec:")
	g.podSpec(depth+1, restartPolicy)
}

// podSpec writes a pod spec's keys at depth.
func (g *gen) podSpec(depth int, restartPolicy string) {
	if g.lean {
		g.leanPodSpec(depth, restartPolicy)
		return
	}
	w := g.w
	r := g.rng
	if restartPolicy != "" {
		w.l(depth, "restartPolicy: %s", restartPolicy)
	}
	w.l(depth, "serviceAccountName: %s", g.app)
	if r.IntN(3) == 0 {
		w.l(depth, "automountServiceAccountToken: false")
	}
	w.l(depth, "terminationGracePeriodSeconds: %d", []int{10, 30, 60}[r.IntN(3)])
	w.l(depth, "securityContext:")
	w.l(depth+1, "runAsNonRoot: true")
	w.l(depth+1, "runAsUser: %d", 10000+r.IntN(1000))
	w.l(depth+1, "runAsGroup: 10001")
	w.l(depth+1, "fsGroup: 10001")
	w.l(depth+1, "seccompProfile:")
	w.l(depth+2, "type: RuntimeDefault")
	if r.IntN(4) == 0 {
		w.l(depth, "imagePullSecrets:")
		w.l(depth, "- name: registry-credentials")
	}
	if r.IntN(3) == 0 {
		w.l(depth, "nodeSelector:")
		w.l(depth+1, "kubernetes.io/os: linux")
	}
	if r.IntN(3) == 0 {
		w.l(depth, "tolerations:")
		w.l(depth, "- key: dedicated")
		w.l(depth+1, "operator: Equal")
		w.l(depth+1, "value: %s", g.component)
		w.l(depth+1, "effect: NoSchedule")
	}
	if g.p.Kind == KindDeployment || g.p.Kind == KindStatefulSet {
		switch r.IntN(3) {
		case 0:
			w.l(depth, "affinity:")
			w.l(depth+1, "podAntiAffinity:")
			w.l(depth+2, "preferredDuringSchedulingIgnoredDuringExecution:")
			w.l(depth+2, "- weight: 100")
			w.l(depth+3, "podAffinityTerm:")
			w.l(depth+4, "topologyKey: kubernetes.io/hostname")
			w.l(depth+4, "labelSelector:")
			w.l(depth+5, "matchLabels:")
			w.l(depth+6, "app.kubernetes.io/name: %s", g.app)
		case 1:
			w.l(depth, "topologySpreadConstraints:")
			w.l(depth, "- maxSkew: 1")
			w.l(depth+1, "topologyKey: topology.kubernetes.io/zone")
			w.l(depth+1, "whenUnsatisfiable: ScheduleAnyway")
			w.l(depth+1, "labelSelector:")
			w.l(depth+2, "matchLabels:")
			w.l(depth+3, "app.kubernetes.io/name: %s", g.app)
		}
	}
	if r.IntN(3) == 0 {
		w.l(depth, "initContainers:")
		w.l(depth, "- name: init-config")
		w.l(depth+1, "image: registry.example.com/tools/busybox:1.36")
		w.l(depth+1, "command: [\"sh\", \"-c\", \"cp /config-src/* /config/\"]")
		w.l(depth+1, "resources:")
		w.l(depth+2, "requests: {cpu: 10m, memory: 16Mi}")
		w.l(depth+2, "limits: {cpu: 100m, memory: 64Mi}")
		w.l(depth+1, "securityContext:")
		w.l(depth+2, "allowPrivilegeEscalation: false")
		w.l(depth+2, "readOnlyRootFilesystem: true")
		w.l(depth+1, "volumeMounts:")
		w.l(depth+1, "- name: config")
		w.l(depth+2, "mountPath: /config-src")
		w.l(depth+2, "readOnly: true")
		w.l(depth+1, "- name: scratch")
		w.l(depth+2, "mountPath: /config")
	}
	w.l(depth, "containers:")
	g.container(depth, g.app, true)
	if g.p.Kind != KindJob && g.p.Kind != KindCronJob && r.IntN(3) == 0 {
		g.sidecar(depth)
	}
	w.l(depth, "volumes:")
	w.l(depth, "- name: config")
	w.l(depth+1, "configMap:")
	w.l(depth+2, "name: %s-config", g.app)
	if r.IntN(2) == 0 {
		w.l(depth+2, "items:")
		w.l(depth+2, "- key: app.yaml")
		w.l(depth+3, "path: app.yaml")
	}
	w.l(depth, "- name: scratch")
	w.l(depth+1, "emptyDir:")
	if r.IntN(2) == 0 {
		w.l(depth+2, "medium: Memory")
	}
	w.l(depth+2, "sizeLimit: %dMi", 64*(1+r.IntN(4)))
	if r.IntN(2) == 0 {
		w.l(depth, "- name: tls")
		w.l(depth+1, "secret:")
		w.l(depth+2, "secretName: %s-tls", g.app)
		w.l(depth+2, "defaultMode: 288")
	}
	if g.p.Kind == KindDaemonSet {
		w.l(depth, "- name: varlog")
		w.l(depth+1, "hostPath:")
		w.l(depth+2, "path: /var/log")
		w.l(depth+2, "type: Directory")
	}
	if g.p.Kind == KindPod || r.IntN(4) == 0 {
		w.l(depth, "- name: token")
		w.l(depth+1, "projected:")
		w.l(depth+2, "sources:")
		w.l(depth+2, "- serviceAccountToken:")
		w.l(depth+4, "path: token")
		w.l(depth+4, "expirationSeconds: 3600")
		w.l(depth+4, "audience: vault")
	}
}

// container writes one list item under containers:, at depth.
func (g *gen) container(depth int, name string, main bool) {
	w := g.w
	r := g.rng
	w.l(depth, "- name: %s", containerName(name))
	if !(main && g.p.Defect == MissingImage) {
		w.l(depth+1, "image: registry.example.com/%s/%s:%s", strings.SplitN(g.app, "-", 2)[0], g.app, g.version)
	}
	if main && g.p.Defect == UnknownField {
		w.l(depth+1, "imagePullPolcy: IfNotPresent")
	} else {
		w.l(depth+1, "imagePullPolicy: %s", []string{"IfNotPresent", "Always"}[r.IntN(2)])
	}
	batch := g.p.Kind == KindJob || g.p.Kind == KindCronJob
	if batch {
		w.l(depth+1, "command: [\"/bin/%s\"]", g.component)
		w.l(depth+1, "args:")
		w.l(depth+1, "- --batch-size=%d", 100*(1+r.IntN(10)))
		w.l(depth+1, "- --log-format=json")
	} else {
		w.l(depth+1, "args: [\"--listen=:8080\", \"--metrics=:9090\", \"--log-level=info\"]")
		w.l(depth+1, "ports:")
		w.l(depth+1, "- name: http")
		w.l(depth+2, "containerPort: 8080")
		w.l(depth+2, "protocol: TCP")
		w.l(depth+1, "- name: metrics")
		w.l(depth+2, "containerPort: 9090")
	}
	w.l(depth+1, "env:")
	w.l(depth+1, "- name: APP_ENV")
	w.l(depth+2, "value: %s", envs[r.IntN(len(envs))])
	w.l(depth+1, "- name: POD_NAMESPACE")
	w.l(depth+2, "valueFrom:")
	w.l(depth+3, "fieldRef:")
	w.l(depth+4, "fieldPath: metadata.namespace")
	w.l(depth+1, "- name: POD_IP")
	w.l(depth+2, "valueFrom:")
	w.l(depth+3, "fieldRef:")
	w.l(depth+4, "fieldPath: status.podIP")
	w.l(depth+1, "- name: GOMEMLIMIT")
	w.l(depth+2, "valueFrom:")
	w.l(depth+3, "resourceFieldRef:")
	w.l(depth+4, "resource: limits.memory")
	w.l(depth+1, "- name: DATABASE_PASSWORD")
	w.l(depth+2, "valueFrom:")
	w.l(depth+3, "secretKeyRef:")
	w.l(depth+4, "name: %s-db", g.app)
	w.l(depth+4, "key: password")
	if r.IntN(2) == 0 {
		w.l(depth+1, "- name: FEATURE_FLAGS")
		w.l(depth+2, "valueFrom:")
		w.l(depth+3, "configMapKeyRef:")
		w.l(depth+4, "name: %s-config", g.app)
		w.l(depth+4, "key: flags")
		w.l(depth+4, "optional: true")
	}
	if r.IntN(3) == 0 {
		w.l(depth+1, "envFrom:")
		w.l(depth+1, "- configMapRef:")
		w.l(depth+3, "name: %s-env", g.app)
		w.l(depth+2, "prefix: CFG_")
	}
	cpu := []int{50, 100, 250, 500}[r.IntN(4)]
	mem := []int{64, 128, 256, 512}[r.IntN(4)]
	w.l(depth+1, "resources:")
	w.l(depth+2, "requests:")
	w.l(depth+3, "cpu: %dm", cpu)
	w.l(depth+3, "memory: %dMi", mem)
	w.l(depth+2, "limits:")
	if r.IntN(2) == 0 {
		w.l(depth+3, "cpu: \"%d\"", 1+r.IntN(2))
	}
	w.l(depth+3, "memory: %dMi", 2*mem)
	w.l(depth+1, "securityContext:")
	w.l(depth+2, "allowPrivilegeEscalation: false")
	w.l(depth+2, "readOnlyRootFilesystem: true")
	w.l(depth+2, "capabilities:")
	w.l(depth+3, "drop: [\"ALL\"]")
	if !batch {
		g.probes(depth + 1)
		if r.IntN(2) == 0 {
			w.l(depth+1, "lifecycle:")
			w.l(depth+2, "preStop:")
			w.l(depth+3, "exec:")
			w.l(depth+4, "command: [\"sleep\", \"5\"]")
		}
	}
	w.l(depth+1, "volumeMounts:")
	w.l(depth+1, "- name: config")
	w.l(depth+2, "mountPath: /etc/%s", g.app)
	w.l(depth+2, "readOnly: true")
	w.l(depth+1, "- name: scratch")
	w.l(depth+2, "mountPath: /tmp")
	if g.p.Kind == KindDaemonSet {
		w.l(depth+1, "- name: varlog")
		w.l(depth+2, "mountPath: /var/log")
		w.l(depth+2, "readOnly: true")
	}
	if g.p.Kind == KindStatefulSet {
		w.l(depth+1, "- name: data")
		w.l(depth+2, "mountPath: /var/lib/%s", g.app)
	}
	w.l(depth+1, "terminationMessagePolicy: FallbackToLogsOnError")
}

// containerName keeps a container name a DNS label.
func containerName(s string) string {
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	return s
}

func (g *gen) probes(depth int) {
	w := g.w
	r := g.rng
	switch r.IntN(4) {
	case 0:
		w.l(depth, "livenessProbe:")
		w.l(depth+1, "tcpSocket:")
		w.l(depth+2, "port: http")
	case 1:
		w.l(depth, "livenessProbe:")
		w.l(depth+1, "grpc:")
		w.l(depth+2, "port: 9090")
	default:
		w.l(depth, "livenessProbe:")
		w.l(depth+1, "httpGet:")
		w.l(depth+2, "path: /healthz")
		w.l(depth+2, "port: http")
		w.l(depth+2, "httpHeaders:")
		w.l(depth+2, "- name: X-Probe")
		w.l(depth+3, "value: liveness")
	}
	w.l(depth+1, "initialDelaySeconds: %d", 5*r.IntN(4))
	w.l(depth+1, "periodSeconds: %d", []int{5, 10, 20}[r.IntN(3)])
	w.l(depth+1, "timeoutSeconds: 2")
	w.l(depth+1, "failureThreshold: 3")
	w.l(depth, "readinessProbe:")
	w.l(depth+1, "httpGet:")
	w.l(depth+2, "path: /readyz")
	w.l(depth+2, "port: 8080")
	w.l(depth+2, "scheme: HTTP")
	w.l(depth+1, "periodSeconds: 5")
	w.l(depth+1, "successThreshold: 1")
	if r.IntN(3) == 0 {
		w.l(depth, "startupProbe:")
		w.l(depth+1, "exec:")
		w.l(depth+2, "command: [\"/bin/sh\", \"-c\", \"test -f /tmp/ready\"]")
		w.l(depth+1, "failureThreshold: 30")
		w.l(depth+1, "periodSeconds: 2")
	}
}

func (g *gen) sidecar(depth int) {
	w := g.w
	w.l(depth, "- name: log-shipper")
	w.l(depth+1, "image: registry.example.com/observability/fluent-bit:3.1.%d", g.rng.IntN(9))
	w.l(depth+1, "resources:")
	w.l(depth+2, "requests: {cpu: 20m, memory: 32Mi}")
	w.l(depth+2, "limits: {memory: 64Mi}")
	w.l(depth+1, "securityContext:")
	w.l(depth+2, "allowPrivilegeEscalation: false")
	w.l(depth+2, "readOnlyRootFilesystem: true")
	w.l(depth+1, "volumeMounts:")
	w.l(depth+1, "- name: scratch")
	w.l(depth+2, "mountPath: /tmp")
}

func (g *gen) deployment() {
	w := g.w
	r := g.rng
	g.header("apps/v1", "Deployment")
	w.l(0, "spec:")
	if g.p.Follower == KindHPA {
		w.l(1, "# replicas: set by the HorizontalPodAutoscaler %s", g.p.Name)
	} else {
		g.count(1, "replicas", 1+r.IntN(6))
	}
	w.l(1, "revisionHistoryLimit: %d", 3+r.IntN(8))
	w.l(1, "progressDeadlineSeconds: 600")
	w.l(1, "minReadySeconds: %d", 5*r.IntN(3))
	g.selector(1)
	w.l(1, "strategy:")
	if r.IntN(6) == 0 {
		w.l(2, "type: Recreate")
	} else {
		w.l(2, "type: RollingUpdate")
		w.l(2, "rollingUpdate:")
		w.l(3, "maxSurge: %s", []string{"25%", "1", "50%"}[r.IntN(3)])
		w.l(3, "maxUnavailable: %s", []string{"0", "25%", "1"}[r.IntN(3)])
	}
	w.l(1, "template:")
	g.template(2, "")
}

func (g *gen) replicaSet() {
	w := g.w
	g.header("apps/v1", "ReplicaSet")
	w.l(0, "spec:")
	g.count(1, "replicas", 1+g.rng.IntN(4))
	g.selector(1)
	w.l(1, "template:")
	g.template(2, "")
}

func (g *gen) statefulSet() {
	w := g.w
	r := g.rng
	g.header("apps/v1", "StatefulSet")
	w.l(0, "spec:")
	w.l(1, "serviceName: %s-headless", g.app)
	g.count(1, "replicas", 1+2*r.IntN(3))
	w.l(1, "podManagementPolicy: %s", []string{"OrderedReady", "Parallel"}[r.IntN(2)])
	g.selector(1)
	w.l(1, "updateStrategy:")
	w.l(2, "type: RollingUpdate")
	w.l(2, "rollingUpdate:")
	w.l(3, "partition: 0")
	w.l(1, "persistentVolumeClaimRetentionPolicy:")
	w.l(2, "whenDeleted: Retain")
	w.l(2, "whenScaled: Delete")
	w.l(1, "template:")
	g.template(2, "")
	w.l(1, "volumeClaimTemplates:")
	w.l(1, "- metadata:")
	w.l(3, "name: data")
	w.l(2, "spec:")
	w.l(3, "accessModes: [\"ReadWriteOnce\"]")
	w.l(3, "storageClassName: %s", []string{"standard", "ssd", "gp3"}[r.IntN(3)])
	w.l(3, "resources:")
	w.l(4, "requests:")
	w.l(5, "storage: %dGi", 10*(1+r.IntN(10)))
}

func (g *gen) daemonSet() {
	w := g.w
	g.header("apps/v1", "DaemonSet")
	w.l(0, "spec:")
	g.selector(1)
	g.count(1, "minReadySeconds", 10)
	w.l(1, "revisionHistoryLimit: 5")
	w.l(1, "updateStrategy:")
	w.l(2, "type: RollingUpdate")
	w.l(2, "rollingUpdate:")
	w.l(3, "maxUnavailable: %s", []string{"1", "10%"}[g.rng.IntN(2)])
	w.l(1, "template:")
	g.template(2, "")
}

func (g *gen) job() {
	w := g.w
	r := g.rng
	g.header("batch/v1", "Job")
	w.l(0, "spec:")
	w.l(1, "backoffLimit: %d", r.IntN(7))
	completions := 1 + r.IntN(10)
	w.l(1, "completions: %d", completions)
	g.count(1, "parallelism", 1+r.IntN(completions))
	if r.IntN(3) == 0 {
		w.l(1, "completionMode: Indexed")
	}
	w.l(1, "activeDeadlineSeconds: %d", 600*(1+r.IntN(6)))
	w.l(1, "ttlSecondsAfterFinished: 86400")
	w.l(1, "template:")
	g.template(2, []string{"OnFailure", "Never"}[r.IntN(2)])
}

func (g *gen) cronJob() {
	w := g.w
	r := g.rng
	g.header("batch/v1", "CronJob")
	w.l(0, "spec:")
	w.l(1, "schedule: \"%s\"", []string{"*/15 * * * *", "0 3 * * *", "30 2 * * 1-5", "@hourly", "0 */6 * * *"}[r.IntN(5)])
	w.l(1, "concurrencyPolicy: %s", []string{"Forbid", "Replace", "Allow"}[r.IntN(3)])
	w.l(1, "startingDeadlineSeconds: 300")
	g.count(1, "successfulJobsHistoryLimit", 3)
	w.l(1, "failedJobsHistoryLimit: 1")
	w.l(1, "jobTemplate:")
	w.l(2, "spec:")
	w.l(3, "backoffLimit: 2")
	w.l(3, "activeDeadlineSeconds: 3600")
	w.l(3, "template:")
	g.template(4, "OnFailure")
}

func (g *gen) pod() {
	w := g.w
	g.header("v1", "Pod")
	w.l(0, "spec:")
	if g.p.Defect == NegativeCount {
		w.l(1, "activeDeadlineSeconds: -60")
	}
	g.podSpec(1, "Always")
}

func (g *gen) service() {
	w := g.w
	r := g.rng
	g.header("v1", "Service")
	w.l(0, "spec:")
	switch r.IntN(5) {
	case 0:
		w.l(1, "clusterIP: None")
	case 1:
		w.l(1, "type: NodePort")
		w.l(1, "externalTrafficPolicy: Local")
	default:
		w.l(1, "type: ClusterIP")
	}
	w.l(1, "selector:")
	g.labels(2, false)
	w.l(1, "ports:")
	w.l(1, "- name: http")
	w.l(2, "port: 80")
	w.l(2, "targetPort: http")
	w.l(2, "protocol: TCP")
	w.l(1, "- name: metrics")
	w.l(2, "port: 9090")
	w.l(2, "targetPort: 9090")
}

func (g *gen) configMap() {
	w := g.w
	r := g.rng
	g.header("v1", "ConfigMap")
	w.l(0, "data:")
	w.l(1, "flags: \"beta-ui,fast-checkout\"")
	w.l(1, "LOG_LEVEL: %s", []string{"info", "debug", "warn"}[r.IntN(3)])
	w.l(1, "app.yaml: |")
	w.l(2, "server:")
	w.l(3, "listen: \":8080\"")
	w.l(3, "readTimeout: %ds", 5*(1+r.IntN(6)))
	w.l(2, "database:")
	w.l(3, "host: %s-db.%s.svc.cluster.local", g.app, ns(g.p.Namespace))
	w.l(3, "pool: %d", 5+r.IntN(20))
	w.l(2, "features:")
	for k := range 1 + r.IntN(4) {
		w.l(3, "- feature-%d", k)
	}
}

// pdb writes the PodDisruptionBudget of the workload before it, selecting
// exactly that workload's pods.
func (g *gen) pdb() {
	w := g.w
	r := g.rng
	g.header("policy/v1", "PodDisruptionBudget")
	w.l(0, "spec:")
	if r.IntN(2) == 0 {
		w.l(1, "maxUnavailable: %s", []string{"1", "25%"}[r.IntN(2)])
	} else {
		w.l(1, "minAvailable: %s", []string{"0", "\"50%\""}[r.IntN(2)])
	}
	w.l(1, "selector:")
	w.l(2, "matchLabels:")
	w.l(3, "app.kubernetes.io/name: %s", g.app)
	w.l(3, "app.kubernetes.io/component: %s", g.component)
	if !g.shared {
		w.l(3, "app.kubernetes.io/instance: %s", g.p.Name)
	}
	if r.IntN(3) == 0 {
		w.l(1, "unhealthyPodEvictionPolicy: AlwaysAllow")
	}
}

// hpa writes the HorizontalPodAutoscaler of the Deployment before it, named
// like it.
func (g *gen) hpa() {
	w := g.w
	r := g.rng
	g.header("autoscaling/v2", "HorizontalPodAutoscaler")
	w.l(0, "spec:")
	w.l(1, "scaleTargetRef:")
	w.l(2, "apiVersion: apps/v1")
	w.l(2, "kind: Deployment")
	w.l(2, "name: %s", g.p.Name)
	minR := 2 + r.IntN(3)
	w.l(1, "minReplicas: %d", minR)
	w.l(1, "maxReplicas: %d", minR*(2+r.IntN(4)))
	w.l(1, "metrics:")
	w.l(1, "- type: Resource")
	w.l(2, "resource:")
	w.l(3, "name: cpu")
	w.l(3, "target:")
	w.l(4, "type: Utilization")
	w.l(4, "averageUtilization: %d", []int{60, 70, 80}[r.IntN(3)])
	if r.IntN(2) == 0 {
		w.l(1, "- type: Resource")
		w.l(2, "resource:")
		w.l(3, "name: memory")
		w.l(3, "target:")
		w.l(4, "type: AverageValue")
		w.l(4, "averageValue: %dMi", 128*(1+r.IntN(4)))
	}
	if r.IntN(3) == 0 {
		w.l(1, "behavior:")
		w.l(2, "scaleDown:")
		w.l(3, "stabilizationWindowSeconds: 300")
	}
}

func ns(n string) string {
	if n == "" {
		return "default"
	}
	return n
}
