package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// kustomizationNames are the file names kustomize reads in a directory.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// maxKustomizations bounds how many kustomization directories one run
// reads, so that a cycle or a huge tree of bases cannot run away.
const maxKustomizations = 1000

// patchIndex knows which files the kustomizations of a run name as patches
// (patches, patchesStrategicMerge, patchesJson6902), in whatever directory
// the patch is: an overlay's patch is often in a subdirectory, or in a
// directory shared by overlays (../common/hpa-patch.yaml). A patch is a
// fragment, not an object: linting it as a whole object would only produce
// false findings. The kustomizations read are those of every directory
// holding an input file, and the bases and components they name.
type patchIndex struct {
	// patches maps a patch's absolute path to the kustomization file that
	// lists it.
	patches map[string]string
	read    map[string]bool
	listed  *listings // the directories the walk listed
}

func newPatchIndex(listed *listings) *patchIndex {
	return &patchIndex{patches: map[string]string{}, read: map[string]bool{}, listed: listed}
}

// addDir reads the kustomization in dir, if any, and, through its resources
// and components that are directories, those of its bases and components.
func (idx *patchIndex) addDir(dir string) {
	abs, err := idx.listed.abs(dir)
	if err != nil {
		return
	}
	queue := []string{abs}
	for len(queue) > 0 && len(idx.read) < maxKustomizations {
		d := queue[0]
		queue = queue[1:]
		if idx.read[d] {
			continue
		}
		idx.read[d] = true
		name := idx.listed.get(d).kustomization
		if name == "" {
			continue
		}
		kf, k, ok := readKustomizationFile(d, name)
		if !ok {
			continue
		}
		add := func(p string) {
			// Inline patches are YAML text, not paths; they never name a file here.
			if p != "" && filepath.Ext(p) != "" && !filepath.IsAbs(p) {
				target := filepath.Join(d, p)
				if _, seen := idx.patches[target]; !seen {
					idx.patches[target] = kf
				}
			}
		}
		for _, p := range k.Patches {
			add(p.Path)
		}
		//lint:ignore SA1019 users' kustomizations still use the deprecated keys, and kustomize still reads them
		for _, p := range k.PatchesStrategicMerge {
			add(string(p))
		}
		//lint:ignore SA1019 users' kustomizations still use the deprecated keys, and kustomize still reads them
		for _, p := range k.PatchesJson6902 {
			add(p.Path)
		}
		// Bases are deprecated resources, still read by kustomize.
		//lint:ignore SA1019 users' kustomizations still use the deprecated keys, and kustomize still reads them
		for _, r := range slices.Concat(k.Resources, k.Bases, k.Components) {
			if r == "" || filepath.IsAbs(r) {
				continue // a URL or an absolute path: not followed
			}
			sub := filepath.Join(d, r)
			if info, err := os.Stat(sub); err == nil && info.IsDir() {
				queue = append(queue, sub)
			}
		}
	}
}

// patchOf reports whether file is a patch that a kustomization read by the
// index lists, and if so which kustomization file lists it (as a path
// relative to the working directory when it can be).
func (idx *patchIndex) patchOf(file string) (string, bool) {
	abs, err := idx.listed.abs(file)
	if err != nil {
		return "", false
	}
	kf, ok := idx.patches[abs]
	if !ok {
		return "", false
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, kf); err == nil && !filepath.IsAbs(rel) && len(rel) < len(kf) {
			kf = rel
		}
	}
	return kf, true
}

// readKustomization reads the kustomization in dir, if any. One that cannot
// be read or parsed names no patches; it is linted like any file.
func readKustomization(dir string) (string, types.Kustomization, bool) {
	for _, name := range kustomizationNames {
		if kf, k, ok := readKustomizationFile(dir, name); ok || kf != "" {
			return kf, k, ok
		}
	}
	return "", types.Kustomization{}, false
}

// readKustomizationFile reads dir's kustomization file name. It returns the
// file's path when the file could be read, even if it does not parse.
func readKustomizationFile(dir, name string) (string, types.Kustomization, bool) {
	kf := filepath.Join(dir, name)
	data, err := os.ReadFile(kf)
	if err != nil {
		return "", types.Kustomization{}, false
	}
	var k types.Kustomization // kustomize's own type: a Component's fields are the same
	if err := sigsyaml.Unmarshal(data, &k); err != nil {
		return kf, types.Kustomization{}, false
	}
	return kf, k, true
}

// maxAncestors is how many directories above a file's own are searched for
// a kustomization that may list it (an overlay's patches/ subdirectory).
const maxAncestors = 3

// kustomizationDirs returns, sorted and without repeats, where the
// kustomizations that may list files as patches are: each file's directory
// and up to maxAncestors above it, not above the top of a git work tree.
func kustomizationDirs(files []string, listed *listings) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		d, err := listed.abs(filepath.Dir(f))
		if err != nil {
			continue
		}
		for i := 0; i <= maxAncestors && !seen[d]; i++ {
			seen[d] = true
			out = append(out, d)
			if listed.get(d).git {
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	sort.Strings(out)
	return out
}
