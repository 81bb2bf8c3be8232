// Command realworld renders one chart or kustomization for the real-world
// corpus (test/realworld), as lint renders it: package render, in process,
// with helm template's options for a v1.37 cluster. hack/update-realworld.sh
// runs it; it writes the rendered stream to standard output. A plain
// manifest file, or a directory of plain manifests (neither a chart nor a
// kustomization), is taken as written: its *.yaml and *.yml files in name
// order, each document separated by ---.
//
//	go run ./hack/realworld DIR [--set k=v]... [--helm-values FILE]...
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
	"github.com/kubectl-workload/kubectl-workload/internal/render"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "realworld: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: realworld DIR [--set k=v]... [--helm-values FILE]... [--namespace NS]")
	}
	dir := args[0]
	var opts render.Options
	for i := 1; i < len(args); i += 2 {
		if i+1 >= len(args) {
			return fmt.Errorf("%s needs a value", args[i])
		}
		switch args[i] {
		case "--set":
			opts.Set = append(opts.Set, args[i+1])
		case "--helm-values":
			opts.ValuesFiles = append(opts.ValuesFiles, args[i+1])
		case "--namespace":
			opts.Namespace = args[i+1]
		default:
			return fmt.Errorf("unknown option %s", args[i])
		}
	}
	if plain, err := plainManifests(dir); err != nil || plain != nil {
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(slimCRDs(plain))
		return err
	}
	r, err := render.New(opts)
	if err != nil {
		return err
	}
	kind := manifest.Kustomization
	if _, err := os.Stat(dir + "/Chart.yaml"); err == nil {
		kind = manifest.Chart
	}
	stream, err := r.Stream(dir, kind)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(slimCRDs(stream))
	return err
}

// plainManifests returns the manifests of path when it is a plain file, or
// a directory with neither Chart.yaml nor a kustomization (its *.yaml and
// *.yml files in name order, joined by ---); nil for a chart or a
// kustomization.
func plainManifests(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if info.IsDir() {
		for _, marker := range []string{"Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization"} {
			if _, err := os.Stat(filepath.Join(path, marker)); err == nil {
				return nil, nil
			}
		}
		files = nil
		for _, pattern := range []string{"*.yaml", "*.yml"} {
			m, err := filepath.Glob(filepath.Join(path, pattern))
			if err != nil {
				return nil, err
			}
			files = append(files, m...)
		}
		sort.Strings(files)
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no chart, kustomization or manifest", path)
		}
	}
	var out bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if out.Len() > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

// slimCRDs replaces the openAPIV3Schema of every CustomResourceDefinition
// in stream with one that keeps any field, so that the committed corpus
// stays small (the CRDs of Argo CD alone are 1.8 MB per install): the corpus
// is for the built-in kinds, and the custom resources next to them still
// meet a served kind. The document says so in a comment. Selectable fields,
// which must name fields of the schema, go with it.
func slimCRDs(stream []byte) []byte {
	lines := strings.SplitAfter(string(stream), "\n")
	var out strings.Builder
	var doc []string
	flush := func() {
		text := strings.Join(doc, "")
		doc = doc[:0]
		if !crdLine.MatchString(text) {
			out.WriteString(text)
			return
		}
		var crd map[string]any
		if err := yaml.Unmarshal([]byte(text), &crd); err != nil || crd["kind"] != "CustomResourceDefinition" {
			out.WriteString(text)
			return
		}
		spec, _ := crd["spec"].(map[string]any)
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			if vm, ok := v.(map[string]any); ok {
				if _, ok := vm["schema"]; ok {
					vm["schema"] = map[string]any{"openAPIV3Schema": map[string]any{
						"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
					// Selectable fields must name fields of the schema.
					delete(vm, "selectableFields")
				}
			}
		}
		slim, err := yaml.Marshal(crd)
		if err != nil {
			out.WriteString(text)
			return
		}
		out.WriteString("# realworld: openAPIV3Schema replaced to keep the corpus small\n")
		out.Write(slim)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "---") {
			flush()
			out.WriteString(l)
			continue
		}
		doc = append(doc, l)
	}
	flush()
	return []byte(out.String())
}

var crdLine = regexp.MustCompile(`(?m)^kind: *CustomResourceDefinition *$`)
