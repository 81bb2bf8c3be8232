// Command schemagen writes the JSON schemas kubeconform validates against,
// offline, from the OpenAPI v2 document of the Kubernetes release this
// module builds against (api/openapi-spec/swagger.json of the
// k8s.io/kubernetes module in the module cache), for the kinds the
// benchmark corpora and the differential test's fixtures hold:
//
//	go run ./bench/schemagen -o bench/testdata/kubeconform-schemas
//
// The schemas are the "standalone-strict" flavour of
// yannh/kubernetes-json-schema, which kubeconform -strict uses by default,
// written the way its openapi2jsonschema.py writes them: every $ref inlined
// (standalone), additionalProperties false on every object with properties
// (strict), IntOrString as a string or an integer, Quantity as a string or a
// number, and every type but the required fields' also allowing null. One
// file per kind and version, named as kubeconform's default
// -schema-location template names them ({{ .ResourceKind }}{{ .KindSuffix
// }}.json: deployment-apps-v1.json, service-v1.json).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// kinds are the group/version/kinds written by default.
var kinds = []string{
	"apps/v1/Deployment", "apps/v1/ReplicaSet", "apps/v1/StatefulSet", "apps/v1/DaemonSet",
	"batch/v1/Job", "batch/v1/CronJob",
	"v1/Pod", "v1/PodTemplate", "v1/ReplicationController", "v1/Service", "v1/ConfigMap", "v1/Secret",
	"v1/ServiceAccount", "v1/Namespace",
	"policy/v1/PodDisruptionBudget", "autoscaling/v1/HorizontalPodAutoscaler", "autoscaling/v2/HorizontalPodAutoscaler",
	"networking.k8s.io/v1/Ingress", "networking.k8s.io/v1/NetworkPolicy",
}

type schema = map[string]any

func main() {
	out := flag.String("o", "", "directory to write the schemas to")
	spec := flag.String("spec", "", "the OpenAPI v2 document (default: api/openapi-spec/swagger.json of the k8s.io/kubernetes module)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: schemagen [-spec swagger.json] -o DIR")
		os.Exit(2)
	}
	if err := run(*out, *spec); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(out, spec string) error {
	if spec == "" {
		dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
		if err != nil {
			return fmt.Errorf("finding the k8s.io/kubernetes module: %w", err)
		}
		spec = filepath.Join(strings.TrimSpace(string(dir)), "api", "openapi-spec", "swagger.json")
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	var doc struct {
		Definitions map[string]schema `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("decoding %s: %w", spec, err)
	}
	// The definition of each group/version/kind.
	byGVK := map[string]string{}
	for name, d := range doc.Definitions {
		gvks, _ := d["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			m, _ := g.(map[string]any)
			group, _ := m["group"].(string)
			version, _ := m["version"].(string)
			kind, _ := m["kind"].(string)
			gv := version
			if group != "" {
				gv = group + "/" + version
			}
			byGVK[gv+"/"+kind] = name
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	for _, gvk := range kinds {
		name, ok := byGVK[gvk]
		if !ok {
			return fmt.Errorf("no definition of %s in %s", gvk, spec)
		}
		s := expand(doc.Definitions, doc.Definitions[name], map[string]bool{name: true})
		js, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("encoding the schema of %s: %w", gvk, err)
		}
		file := filepath.Join(out, fileName(gvk))
		if err := os.WriteFile(file, append(js, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", file, err)
		}
	}
	return nil
}

// fileName is kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json: the
// kind in lower case, then -version for the core group, or -group-version
// with the group's first label.
func fileName(gvk string) string {
	i := strings.LastIndex(gvk, "/")
	gv, kind := gvk[:i], strings.ToLower(gvk[i+1:])
	group, version, found := strings.Cut(gv, "/")
	if !found {
		return fmt.Sprintf("%s-%s.json", kind, group)
	}
	group, _, _ = strings.Cut(group, ".")
	return fmt.Sprintf("%s-%s-%s.json", kind, group, version)
}

// expand returns s with every $ref inlined (a reference back to a
// definition being expanded becomes an empty schema, as jsonref leaves a
// cycle), strict objects, and the replacements openapi2jsonschema makes.
func expand(defs map[string]schema, s schema, open map[string]bool) schema {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/definitions/")
		switch name {
		case "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
			return schema{"oneOf": []any{schema{"type": []any{"string", "null"}}, schema{"type": []any{"integer", "null"}}}}
		case "io.k8s.apimachinery.pkg.api.resource.Quantity":
			return schema{"oneOf": []any{schema{"type": []any{"string", "null"}}, schema{"type": []any{"number", "null"}}}}
		}
		if open[name] {
			return schema{}
		}
		d, ok := defs[name]
		if !ok {
			return schema{}
		}
		open[name] = true
		defer delete(open, name)
		return expand(defs, d, open)
	}
	out := schema{}
	for k, v := range s {
		switch k {
		case "properties":
			props, _ := v.(map[string]any)
			np := map[string]any{}
			for p, ps := range props {
				m, _ := ps.(map[string]any)
				np[p] = expand(defs, m, open)
			}
			out[k] = np
		case "items", "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				out[k] = expand(defs, m, open)
			} else {
				out[k] = v
			}
		case "description", "x-kubernetes-patch-merge-key", "x-kubernetes-patch-strategy", "x-kubernetes-list-map-keys",
			"x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-unions":
			// Not validation: left out to keep the files small.
		default:
			out[k] = v
		}
	}
	if f, _ := out["format"].(string); f == "int-or-string" {
		delete(out, "format")
		delete(out, "type")
		out["oneOf"] = []any{schema{"type": []any{"string", "null"}}, schema{"type": []any{"integer", "null"}}}
	}
	if t, ok := out["type"].(string); ok {
		out["type"] = []any{t, "null"}
	}
	if _, ok := out["properties"]; ok {
		if _, set := out["additionalProperties"]; !set {
			out["additionalProperties"] = false
		}
		// The required fields may not be null.
		req, _ := out["required"].([]any)
		props := out["properties"].(map[string]any)
		names := make([]string, 0, len(req))
		for _, r := range req {
			if n, ok := r.(string); ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			if p, ok := props[n].(schema); ok {
				if t, ok := p["type"].([]any); ok && len(t) == 2 {
					p["type"] = t[0]
				}
			}
		}
	}
	return out
}
