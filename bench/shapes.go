package bench

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Shape names a corpus generator.
type Shape string

// The corpus shapes.
const (
	// ShapeBench is the original benchmark corpus (GenerateCorpus): ten
	// objects per file, rich pod specs, a few shared namespaces.
	ShapeBench Shape = "bench"
	// ShapeRepo is shaped like a repository of many services
	// (GenerateRepoShaped): about 1.35 objects per file, each service in a
	// namespace of its own, the real-world corpus's kind mix and pod-spec
	// sizes, a tenth of the objects invalid.
	ShapeRepo Shape = "repo"
	// ShapeServices is the repo shape with only the kinds issue 21 names
	// for it (GenerateServicesShaped): Deployments, StatefulSets,
	// DaemonSets, Jobs, CronJobs, Services, PodDisruptionBudgets and
	// HorizontalPodAutoscalers, in RepoWeights's proportions. Without the
	// repo shape's bare Pods, ReplicaSets and small objects of other kinds,
	// most objects are Deployments and the Services that select them.
	ShapeServices Shape = "services"
	// ShapeOneNamespace is many copies of one application in one namespace,
	// sharing their labels (GenerateOneNamespace): every selector selects
	// every copy, the cross-resource rules' worst case.
	ShapeOneNamespace Shape = "one-namespace"
)

// KindServiceAccount is written by the repo-shaped corpus for the
// real-world corpus's small objects of kinds the API tier does not check.
const KindServiceAccount = "ServiceAccount"

// RealWorldCounts is the kind mix of ../shared/corpus/real-world as
// MeasureMix reports it (go run ./bench/corpusmix), folded onto the kinds the
// generator writes: ReplicationController onto ReplicaSet (its apps/v1
// successor, validated the same way), and every kind the linter does not
// check (ServiceAccount, StorageClass, PersistentVolumeClaim, Secret, RBAC,
// custom resources, ...) onto ServiceAccount. TestRealWorldCounts recomputes
// it from the corpus.
var RealWorldCounts = map[string]int{
	KindService:        85,
	KindPod:            59,
	KindDeployment:     50,
	KindReplicaSet:     36,
	KindDaemonSet:      4,
	KindStatefulSet:    4,
	KindHPA:            2,
	KindPDB:            2,
	KindConfigMap:      1,
	KindJob:            0,
	KindCronJob:        0,
	KindServiceAccount: 141,
}

// RealWorldObjectsPerFile is the real-world corpus's objects per file (384
// objects in 284 files).
const RealWorldObjectsPerFile = 384.0 / 284.0

// repoFloor is the least share, per thousand objects, of the kinds the
// issue asks for in the mix that the real-world corpus has few or none of
// (Jobs, CronJobs, PodDisruptionBudgets, HorizontalPodAutoscalers).
const repoFloor = 20

// workloadKinds are the kinds that head a service in the repo-shaped corpus.
var workloadKinds = []string{KindDeployment, KindPod, KindReplicaSet, KindDaemonSet, KindStatefulSet, KindJob, KindCronJob}

// companionKinds are the kinds that follow a service's workload.
var companionKinds = []string{KindService, KindServiceAccount, KindConfigMap, KindPDB, KindHPA}

// RepoWeights returns the repo-shaped corpus's kind weights, per thousand
// objects: RealWorldCounts's shares, with Jobs, CronJobs, budgets and
// autoscalers raised to repoFloor and the rest scaled down to make room.
func RepoWeights() map[string]int {
	total := 0
	for _, n := range RealWorldCounts {
		total += n
	}
	floored := map[string]bool{KindJob: true, KindCronJob: true, KindPDB: true, KindHPA: true}
	reserved, rest := 0, 0
	for k, n := range RealWorldCounts {
		if floored[k] && n*1000/total < repoFloor {
			reserved += repoFloor
			continue
		}
		rest += n
	}
	w := map[string]int{}
	for k, n := range RealWorldCounts {
		if floored[k] && n*1000/total < repoFloor {
			w[k] = repoFloor
			continue
		}
		w[k] = (n*(1000-reserved) + rest/2) / rest
	}
	return w
}

// ShapeStats is what a shaped corpus holds, object by object.
type ShapeStats struct {
	Stats
	// Plans are the objects, in the order written.
	Plans []Plan
	// Namespaces is the number of distinct namespaces.
	Namespaces int
}

// GenerateShape writes a corpus of the given shape and number of objects
// under dir. The output depends only on the shape, objects and seed.
func GenerateShape(dir string, shape Shape, objects int, seed uint64) (ShapeStats, error) {
	switch shape {
	case ShapeRepo:
		return GenerateRepoShaped(dir, objects, seed)
	case ShapeServices:
		return GenerateServicesShaped(dir, objects, seed)
	case ShapeOneNamespace:
		return GenerateOneNamespace(dir, objects, seed)
	case ShapeBench, "":
		st, err := GenerateCorpus(dir, objects)
		ss := ShapeStats{Stats: st}
		if err == nil {
			for i := range objects {
				ss.Plans = append(ss.Plans, PlanOf(i))
			}
		}
		return ss, err
	}
	return ShapeStats{}, fmt.Errorf("unknown corpus shape %q (want %s, %s, %s or %s)", shape, ShapeBench, ShapeRepo, ShapeServices, ShapeOneNamespace)
}

// shapeWriter collects a shaped corpus's files and statistics.
type shapeWriter struct {
	dir   string
	st    ShapeStats
	files map[string]*bytes.Buffer
	docs  map[string]int
	order []string
}

func newShapeWriter(dir string) *shapeWriter {
	return &shapeWriter{dir: dir, st: ShapeStats{Stats: Stats{ByKind: map[string]int{}, ByDefect: map[Defect]int{}}},
		files: map[string]*bytes.Buffer{}, docs: map[string]int{}}
}

// add writes one object, planned in p (File and Document are set here),
// with g's settings, at the end of file.
func (sw *shapeWriter) add(file string, p Plan, g *gen) {
	buf := sw.files[file]
	if buf == nil {
		buf = &bytes.Buffer{}
		sw.files[file] = buf
		sw.order = append(sw.order, file)
	} else {
		buf.WriteString("---\n")
	}
	p.Document = sw.docs[file]
	sw.docs[file]++
	p.File, p.Index = file, len(sw.st.Plans)
	g.w, g.p = yw{buf}, p
	g.write()
	sw.st.Plans = append(sw.st.Plans, p)
	sw.st.Objects++
	sw.st.ByKind[p.Kind]++
	sw.st.ByDefect[p.Defect]++
	if p.Defect != Valid {
		sw.st.Invalid++
	}
	if !isCompanion(p.Kind) {
		sw.st.Workloads++
	}
}

func isCompanion(kind string) bool {
	for _, k := range companionKinds {
		if k == kind {
			return true
		}
	}
	return false
}

func (sw *shapeWriter) flush() (ShapeStats, error) {
	ns := map[string]bool{}
	for _, p := range sw.st.Plans {
		ns[p.Namespace] = true
	}
	sw.st.Namespaces = len(ns)
	for _, f := range sw.order {
		path := filepath.Join(sw.dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return sw.st, fmt.Errorf("writing the corpus: %w", err)
		}
		if err := os.WriteFile(path, sw.files[f].Bytes(), 0o644); err != nil {
			return sw.st, fmt.Errorf("writing the corpus: %w", err)
		}
		sw.st.Files++
		sw.st.Bytes += int64(sw.files[f].Len())
	}
	return sw.st, nil
}

// write writes g.p's object with g's settings.
func (g *gen) write() {
	switch g.p.Kind {
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
	case KindServiceAccount:
		g.serviceAccount()
	default:
		panic("bench: unknown kind " + g.p.Kind)
	}
}

// pick draws a kind among kinds by weight.
func pick(r *rand.Rand, kinds []string, w map[string]int) string {
	total := 0
	for _, k := range kinds {
		total += w[k]
	}
	n := r.IntN(total)
	for _, k := range kinds {
		if n < w[k] {
			return k
		}
		n -= w[k]
	}
	return kinds[len(kinds)-1]
}

// defectOrder is the rotation of the repo-shaped corpus's defects.
var defectOrder = []Defect{SelectorMismatch, NegativeCount, MissingImage, UnknownField}

// GenerateRepoShaped writes a corpus shaped like a repository of many
// services. Each service has a namespace of its own and a directory
// svc-NNNNN/ under one of the teams; it is one workload (drawn by
// RepoWeights among the workload kinds) followed by its companions
// (Services, ServiceAccounts, ConfigMaps, budgets and autoscalers, drawn the
// same way, as many as the weights make on average). Each object has a file
// of its own, or joins the file before it in its service, so that files
// hold RealWorldObjectsPerFile objects on average. Pod specs are lean (one
// container) like the real-world corpus's. The workload of a service is
// invalid, with a defect in rotation that its kind can have, whenever fewer
// than a tenth of the objects so far are invalid.
func GenerateRepoShaped(dir string, objects int, seed uint64) (ShapeStats, error) {
	return generateRepo(dir, objects, seed, RepoWeights())
}

// ServicesWeights are RepoWeights without the kinds ShapeServices leaves
// out (bare Pods, ReplicaSets, ServiceAccounts, ConfigMaps).
func ServicesWeights() map[string]int {
	w := RepoWeights()
	for _, k := range []string{KindPod, KindReplicaSet, KindServiceAccount, KindConfigMap} {
		w[k] = 0
	}
	return w
}

// GenerateServicesShaped writes a corpus as GenerateRepoShaped does, with
// ServicesWeights: the services of a repository, each a workload with its
// Services, budgets and autoscalers.
func GenerateServicesShaped(dir string, objects int, seed uint64) (ShapeStats, error) {
	return generateRepo(dir, objects, seed, ServicesWeights())
}

func generateRepo(dir string, objects int, seed uint64, weights map[string]int) (ShapeStats, error) {
	sw := newShapeWriter(dir)
	if objects < 0 {
		return sw.st, fmt.Errorf("negative object count %d", objects)
	}
	wl, comp := 0, 0
	for _, k := range workloadKinds {
		wl += weights[k]
	}
	for _, k := range companionKinds {
		comp += weights[k]
	}
	// Companions per service, on average, and the chance that a companion
	// shares the file before it: services*(1+mean*(1-share)) files for
	// services*(1+mean) objects.
	mean := float64(comp) / float64(wl)
	share := 1 - ((1+mean)/RealWorldObjectsPerFile-1)/mean
	defects := 0
	for svc := 0; sw.st.Objects < objects; svc++ {
		r := rand.New(rand.NewPCG(seed, uint64(svc)))
		team := teams[svc%len(teams)]
		app := apps[r.IntN(len(apps))]
		name := fmt.Sprintf("%s-%s-%d", team, app, svc)
		dirName := filepath.Join("team-"+team, fmt.Sprintf("svc-%05d", svc))
		n := 1 + int(mean)
		if r.Float64() < mean-float64(int(mean)) {
			n++
		}
		n = min(n, objects-sw.st.Objects)
		seen := map[string]int{}
		workload := pick(r, workloadKinds, weights)
		// Autoscalers go with Deployments only, as often as the weights
		// make them overall.
		cw := maps.Clone(weights)
		cw[KindHPA] = 0
		if workload == KindDeployment {
			cw[KindHPA] = weights[KindHPA] * wl / weights[KindDeployment]
		}
		file := ""
		for j := range n {
			kind := workload
			if j > 0 {
				kind = pick(r, companionKinds, cw)
			}
			p := Plan{Kind: kind, Target: -1, Namespace: name, Name: name}
			if seen[kind] > 0 {
				p.Name = fmt.Sprintf("%s-%d", name, seen[kind]+1)
			}
			seen[kind]++
			if j == 0 && (defects+1)*10 <= sw.st.Objects+n {
				for k := range defectOrder {
					d := defectOrder[(defects+k)%len(defectOrder)]
					if kindHas(d, kind) {
						p.Defect = d
						break
					}
				}
				if p.Defect != Valid {
					defects++
				}
			}
			if j == 0 || r.Float64() >= share {
				file = filepath.Join(dirName, fmt.Sprintf("%s-%d.yaml", strings.ToLower(kind), j))
			}
			g := &gen{rng: rand.New(rand.NewPCG(seed+2, uint64(sw.st.Objects))), lean: true}
			g.app, g.component, g.version = name, []string{"server", "worker", "frontend", "backend"}[svc%4],
				fmt.Sprintf("%d.%d.%d", 1+svc%3, svc%17, svc%9)
			sw.add(file, p, g)
		}
	}
	return sw.flush()
}

func kindHas(d Defect, kind string) bool {
	for _, k := range defectKinds[d] {
		if k == kind {
			return true
		}
	}
	return false
}

// oneNamespaceApp is the bundle each copy of the one-namespace corpus
// writes, in one file: a Deployment, a ReplicaSet, the Deployment's Service,
// budget and autoscaler, a bare Pod with the same labels, and a ConfigMap.
var oneNamespaceApp = []string{KindDeployment, KindReplicaSet, KindService, KindPDB, KindHPA, KindPod, KindConfigMap}

// GenerateOneNamespace writes many copies of one application into one
// namespace ("shop"), each copy a file copy-NNNNN.yaml of its own holding
// oneNamespaceApp. The copies share their labels and selectors (no
// app.kubernetes.io/instance), so every controller's selector overlaps every
// other's, every bare Pod is adopted by every ReplicaSet, every budget
// covers every copy's pods and every Service selects them all. Every object
// is valid.
func GenerateOneNamespace(dir string, objects int, seed uint64) (ShapeStats, error) {
	sw := newShapeWriter(dir)
	if objects < 0 {
		return sw.st, fmt.Errorf("negative object count %d", objects)
	}
	for c := 0; sw.st.Objects < objects; c++ {
		file := fmt.Sprintf("copy-%05d.yaml", c)
		name := fmt.Sprintf("shop-web-%d", c)
		for _, kind := range oneNamespaceApp {
			if sw.st.Objects == objects {
				break
			}
			p := Plan{Kind: kind, Target: -1, Namespace: "shop", Name: name}
			g := &gen{rng: rand.New(rand.NewPCG(seed, uint64(sw.st.Objects))), lean: true, shared: true}
			g.app, g.component, g.version = "shop-web", "server", "2.4.1"
			sw.add(file, p, g)
		}
	}
	return sw.flush()
}

// serviceAccount writes a ServiceAccount, the real-world corpus's most
// frequent small object.
func (g *gen) serviceAccount() {
	g.header("v1", "ServiceAccount")
	if g.rng.IntN(2) == 0 {
		g.w.l(0, "automountServiceAccountToken: false")
	}
}

// leanPodSpec writes a pod spec like the real-world corpus's: one container
// with an image, ports, and sometimes resources, probes and env.
func (g *gen) leanPodSpec(depth int, restartPolicy string) {
	w := g.w
	r := g.rng
	if restartPolicy != "" {
		w.l(depth, "restartPolicy: %s", restartPolicy)
	}
	if r.IntN(2) == 0 {
		w.l(depth, "serviceAccountName: %s", g.app)
	}
	w.l(depth, "containers:")
	w.l(depth, "- name: %s", containerName(g.app))
	if g.p.Defect != MissingImage {
		w.l(depth+1, "image: registry.example.com/%s:%s", g.app, g.version)
	}
	if g.p.Defect == UnknownField {
		w.l(depth+1, "imagePullPolcy: IfNotPresent")
	}
	batch := g.p.Kind == KindJob || g.p.Kind == KindCronJob
	if batch {
		w.l(depth+1, "command: [\"/bin/%s\", \"--once\"]", g.component)
	} else {
		w.l(depth+1, "ports:")
		w.l(depth+1, "- containerPort: 8080")
		w.l(depth+2, "name: http")
	}
	if r.IntN(2) == 0 {
		w.l(depth+1, "env:")
		w.l(depth+1, "- name: PORT")
		w.l(depth+2, "value: \"8080\"")
		w.l(depth+1, "- name: LOG_LEVEL")
		w.l(depth+2, "value: %s", []string{"info", "debug"}[r.IntN(2)])
	}
	if r.IntN(3) != 0 {
		w.l(depth+1, "resources:")
		w.l(depth+2, "requests:")
		w.l(depth+3, "cpu: %dm", []int{50, 100, 250}[r.IntN(3)])
		w.l(depth+3, "memory: %dMi", []int{64, 128, 256}[r.IntN(3)])
		if r.IntN(2) == 0 {
			w.l(depth+2, "limits:")
			w.l(depth+3, "memory: 512Mi")
		}
	}
	if !batch && r.IntN(2) == 0 {
		w.l(depth+1, "readinessProbe:")
		w.l(depth+2, "httpGet:")
		w.l(depth+3, "path: /healthz")
		w.l(depth+3, "port: 8080")
		if r.IntN(2) == 0 {
			w.l(depth+1, "livenessProbe:")
			w.l(depth+2, "tcpSocket:")
			w.l(depth+3, "port: 8080")
		}
	}
}
