package render

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// readInput reads a file of the input (a kustomization, a values file, a
// chart's file): a regular file of at most manifest.MaxFileSize bytes, never
// a FIFO or a device (boundedread).
func readInput(name string) ([]byte, error) {
	return boundedread.ReadFile(name, manifest.MaxFileSize)
}

// checkChartFiles refuses a chart directory that holds a symbolic link
// leading out of it, or a file helm would read that is not a regular file
// (a FIFO would hang helm's loader, /dev/zero fill memory) or is larger than
// manifest.MaxFileSize. helm's loader follows symbolic links wherever they
// lead (pkg/chart/loader, sympath.Walk), and a template may print a file's
// content ({{ .Files.Get }}), so a link out of the chart would put a file of
// the machine running lint into a finding. The first problem is returned,
// naming the file.
func checkChartFiles(dir string) error {
	// The separator makes a root that is itself a link be walked.
	return filepath.WalkDir(dir+string(filepath.Separator), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if err := boundedread.Inside(dir, path); err != nil {
				return err
			}
			info, err := os.Stat(path)
			if err != nil {
				return err
			}
			if info.IsDir() {
				return nil // walked where it lies, inside the chart
			}
		}
		if d.IsDir() {
			return nil
		}
		return boundedread.Check(path, manifest.MaxFileSize)
	})
}

// knownMetaSchemas are the $schema values the schema validator knows
// without fetching anything.
var knownMetaSchemas = map[string]bool{
	"http://json-schema.org/draft-04/schema":       true,
	"http://json-schema.org/draft-06/schema":       true,
	"http://json-schema.org/draft-07/schema":       true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// checkSchemaRefs refuses a chart (or subchart) whose values.schema.json
// refers to anything outside itself: helm's validation
// (pkg/chart/common/util.ValidateAgainstSchema) fetches http and https
// $refs and reads file ones (relative refs resolve against
// file:///values.schema.json, the root of the file system), and rendering
// has no network and reads nothing outside the chart. Only refs within the
// document ("#..."), and the standard meta-schemas, are kept.
func checkSchemaRefs(dir string, c *chart.Chart) error {
	if len(c.Schema) > 0 {
		var doc any
		if err := json.Unmarshal(c.Schema, &doc); err == nil {
			var refs []string
			collectRefs(doc, &refs)
			sort.Strings(refs)
			if len(refs) > 0 {
				return fmt.Errorf("%s: %s: schemas are resolved only within the file: rendering has no network and reads nothing outside the chart",
					filepath.Join(dir, "values.schema.json"), strings.Join(refs, ", "))
			}
		}
	}
	for _, d := range c.Dependencies() {
		if err := checkSchemaRefs(filepath.Join(dir, "charts", d.Name()), d); err != nil {
			return err
		}
	}
	return nil
}

// collectRefs lists the references in a schema that lead outside it.
func collectRefs(v any, out *[]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			s, ok := x.(string)
			switch {
			case ok && (k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef") && !strings.HasPrefix(s, "#"):
				*out = append(*out, fmt.Sprintf("%s %q", k, s))
			case ok && k == "$schema" && !knownMetaSchemas[strings.TrimSuffix(s, "#")]:
				*out = append(*out, fmt.Sprintf("$schema %q", s))
			default:
				collectRefs(x, out)
			}
		}
	case []any:
		for _, x := range t {
			collectRefs(x, out)
		}
	}
}
