package manifest

import (
	"os"
	"path/filepath"

	sigsyaml "sigs.k8s.io/yaml"
)

// kustomizationNames are the file names kustomize reads in a directory.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// kustomization is the part of a kustomization file that names patches.
type kustomization struct {
	Patches []struct {
		Path string `json:"path"`
	} `json:"patches"`
	PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
	PatchesJSON6902       []struct {
		Path string `json:"path"`
	} `json:"patchesJson6902"`
}

// patchIndex remembers, per directory, which files a kustomization there
// names as patches. A patch is a fragment, not an object: linting it as a
// whole object would only produce false findings.
type patchIndex map[string]map[string]string

// patchOf reports whether file is a patch listed by the kustomization in its
// own directory, and if so which kustomization file lists it.
func (idx patchIndex) patchOf(file string) (string, bool) {
	dir := filepath.Dir(file)
	patches, ok := idx[dir]
	if !ok {
		patches = readPatches(dir)
		idx[dir] = patches
	}
	k, ok := patches[filepath.Clean(file)]
	return k, ok
}

// readPatches reads the kustomization in dir, if any. A kustomization that
// cannot be read or parsed names no patches; it is linted like any file.
func readPatches(dir string) map[string]string {
	for _, name := range kustomizationNames {
		kf := filepath.Join(dir, name)
		data, err := os.ReadFile(kf)
		if err != nil {
			continue
		}
		var k kustomization
		if err := sigsyaml.Unmarshal(data, &k); err != nil {
			return nil
		}
		out := map[string]string{}
		add := func(p string) {
			// Inline patches are YAML text, not paths; they never name a file here.
			if p != "" && filepath.Ext(p) != "" && !filepath.IsAbs(p) {
				out[filepath.Join(dir, p)] = kf
			}
		}
		for _, p := range k.Patches {
			add(p.Path)
		}
		for _, p := range k.PatchesStrategicMerge {
			add(p)
		}
		for _, p := range k.PatchesJSON6902 {
			add(p.Path)
		}
		return out
	}
	return nil
}
