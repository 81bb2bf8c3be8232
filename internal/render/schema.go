package render

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// schemaSource is the URL helm gives a chart's values.schema.json when it
// compiles it (pkg/chart/common/util.ValidateAgainstSingleSchema): relative
// references resolve against it, at the root of the file system.
const schemaSource = "file:///values.schema.json"

// noFetchLoader is the schema loader rendering gives the JSON Schema
// compiler in place of helm's (which fetches http and https URLs and reads
// file ones): it reads nothing. The compiler serves the meta-schemas of
// every draft itself, from the copies embedded in the jsonschema library
// (draft-04, -06, -07, 2019-09, 2020-12, over http and https, with or
// without "#", and the json-schema.org/schema alias), before it asks a
// loader; a reference to anything else is refused here and recorded. A
// urn: reference gives the schema "true", as helm's urnLoader does when no
// URNResolver is set.
type noFetchLoader struct {
	refused *[]string
}

func (l noFetchLoader) Load(url string) (any, error) {
	if strings.HasPrefix(url, "urn:") {
		return true, nil
	}
	*l.refused = append(*l.refused, url)
	return nil, errNotFetched
}

var errNotFetched = errors.New("not read: rendering has no network and reads nothing outside the chart")

// schemaRefusedError is a values.schema.json that refers to a schema
// outside itself (not a meta-schema): file is that schema's file, urls what
// it refers to.
type schemaRefusedError struct {
	file, name string // name is how messages name the schema (see schemaFile)
	urls       []string
}

func (e *schemaRefusedError) Error() string {
	var q []string
	for _, u := range e.urls {
		q = append(q, fmt.Sprintf("%q", u))
	}
	return fmt.Sprintf("%s: refers to %s: schemas are resolved only within the file and the JSON Schema meta-schemas: rendering has no network and reads nothing outside the chart",
		e.name, strings.Join(q, ", "))
}

// schemaFailedError is a values.schema.json that cannot be read or
// compiled: file names it (or the archive holding it).
type schemaFailedError struct {
	file, name string // name is how messages name the schema (see schemaFile)
	err        error
}

func (e *schemaFailedError) Error() string { return fmt.Sprintf("%s: %v", e.name, e.err) }
func (e *schemaFailedError) Unwrap() error { return e.err }

// validateValues checks values against the values.schema.json of the chart
// in dir and of each of its subcharts that values hold, as helm's
// pkg/chart/common/util.ValidateAgainstSchema does after the dependencies
// are processed (a disabled subchart is no longer among c's dependencies,
// so its schema is never read), with the compiler of
// ValidateAgainstSingleSchema given noFetchLoader. A schema that refers
// outside itself is a *schemaRefusedError, one that does not compile a
// *schemaFailedError, each naming a file that exists; values the schemas
// refuse give helm's own message.
func validateValues(dir string, c *chart.Chart, values map[string]any) error {
	var sb strings.Builder
	if err := validateChart(dir, nil, c, values, &sb); err != nil {
		return err
	}
	if sb.Len() > 0 {
		return fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s", sb.String())
	}
	return nil
}

// validateChart is validateValues for c, the subchart of the chart in dir
// that path names (nil for that chart), writing what values break to sb.
func validateChart(dir string, path []string, c *chart.Chart, values map[string]any, sb *strings.Builder) error {
	if len(c.Schema) > 0 {
		verr, err := validateSingle(c.Schema, values)
		if err != nil {
			file, name := schemaFile(dir, path)
			var refused *schemaRefusedError
			if errors.As(err, &refused) {
				refused.file, refused.name = file, name
				return refused
			}
			return &schemaFailedError{file: file, name: name, err: err}
		}
		if verr != nil {
			fmt.Fprintf(sb, "%s:\n%s\n", c.Name(), strings.TrimPrefix(verr.Error(), "jsonschema validation failed with '"+schemaSource+"#'\n"))
		}
	}
	for _, sub := range c.Dependencies() {
		raw, ok := values[sub.Name()]
		if !ok || raw == nil {
			continue
		}
		subValues, ok := raw.(map[string]any)
		if !ok {
			fmt.Fprintf(sb, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.Name(), raw)
			continue
		}
		if err := validateChart(dir, append(slices.Clone(path), sub.Name()), sub, subValues, sb); err != nil {
			return err
		}
	}
	return nil
}

// validateSingle compiles schema and validates values against it, as
// helm's ValidateAgainstSingleSchema does (the same parser, keeping numbers
// of any size; the same source URL), with noFetchLoader. err is a schema
// that does not parse or compile; verr values the schema refuses.
func validateSingle(schema []byte, values map[string]any) (verr, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to validate schema: %v", r)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	var refused []string
	compiler := jsonschema.NewCompiler()
	compiler.UseLoader(noFetchLoader{refused: &refused})
	if err := compiler.AddResource(schemaSource, doc); err != nil {
		return nil, err
	}
	validator, err := compiler.Compile(schemaSource)
	if err != nil {
		if len(refused) > 0 {
			return nil, &schemaRefusedError{urls: refused}
		}
		return nil, err
	}
	return validator.Validate(values), nil
}

// schemaFile is the file holding the values.schema.json of the subchart of
// the chart in dir that path names, a file that exists: the schema itself
// in a subchart directory, else the archive in charts/ it was loaded from,
// else the nearest chart's Chart.yaml. name is how a message names the
// schema: the file, or the archive and the path of the schema inside it.
func schemaFile(dir string, path []string) (file, name string) {
	cur := dir
	for i, sub := range path {
		d, ok := subchartDir(cur, sub)
		if !ok {
			inner := sub + "/"
			for _, p := range path[i+1:] {
				inner += "charts/" + p + "/"
			}
			inner += "values.schema.json"
			if a, ok := subchartArchive(cur, sub); ok {
				return a, a + ": " + inner
			}
			f := filepath.Join(cur, "Chart.yaml")
			return f, fmt.Sprintf("%s: subchart %s: %s", f, strings.Join(path[i:], "/"), inner)
		}
		cur = d
	}
	if f := filepath.Join(cur, "values.schema.json"); isRegular(f) {
		return f, f
	}
	f := filepath.Join(cur, "Chart.yaml")
	return f, f + ": values.schema.json"
}

// subchartArchive finds the archive in chartDir/charts that the subchart
// helm names name was loaded from: NAME-VERSION.tgz as helm dependency
// build writes it, else the only archive there.
func subchartArchive(chartDir, name string) (string, bool) {
	entries, err := os.ReadDir(filepath.Join(chartDir, "charts"))
	if err != nil {
		return "", false
	}
	var archives []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".tgz") {
			archives = append(archives, e.Name())
		}
	}
	for _, a := range archives {
		if strings.HasPrefix(a, name+"-") {
			return filepath.Join(chartDir, "charts", a), true
		}
	}
	if len(archives) == 1 {
		return filepath.Join(chartDir, "charts", archives[0]), true
	}
	return "", false
}
