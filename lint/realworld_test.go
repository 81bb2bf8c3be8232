package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-workload/kubectl-workload/test/realworld"
)

// TestRealWorldVerdicts is the real-world corpus's differential test: on
// every object of a built-in kind in test/realworld (charts and kustomize
// installs of public projects), lint's api/* verdict (an api/* finding of
// severity error, or none) must be the one a real v1.37.1 API server gave
// (verdicts.json, recorded with kubectl create --dry-run=server
// --validate=strict). A built-in kind is one of a group the server serves
// by itself (internal/render/served-api-versions.txt), at any version, so
// that a removed version counts.
func TestRealWorldVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("1,253 objects: the full run covers it (CI's -race -short run leaves it out)")
	}
	dir := filepath.Join("..", realworld.Dir)
	verdicts, err := realworld.ReadVerdicts(dir)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := builtinGroups(filepath.Join("..", "internal", "render", "served-api-versions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := realworld.Objects(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(verdicts) {
		t.Fatalf("the corpus holds %d objects and verdicts.json %d verdicts: record them again (hack/update-realworld.sh)", len(objs), len(verdicts))
	}
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{filepath.Join(dir, "rendered")}})
	if len(res.Errors) > 0 {
		t.Fatalf("lint: %v", res.Errors)
	}
	type key struct {
		file     string
		document int
	}
	apiErrors := map[key][]string{}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "api/") && f.Severity == SeverityError {
			k := key{filepath.Base(f.File), f.Document}
			apiErrors[k] = append(apiErrors[k], f.Rule+" "+f.Message)
		}
	}
	checked, rejected := 0, 0
	for _, v := range verdicts {
		group, _, _ := strings.Cut(v.APIVersion, "/")
		if !strings.Contains(v.APIVersion, "/") {
			group = ""
		}
		if !groups[group] {
			continue
		}
		checked++
		errs := apiErrors[key{filepath.Base(v.File), v.Document}]
		if !v.Accepted {
			rejected++
		}
		switch {
		case v.Accepted && len(errs) > 0:
			t.Errorf("%s document %d, %s %s: the API server accepts it, lint says %q", v.File, v.Document, v.Kind, v.Name, errs)
		case !v.Accepted && len(errs) == 0:
			t.Errorf("%s document %d, %s %s: the API server rejects it (%s), lint says nothing", v.File, v.Document, v.Kind, v.Name, v.Message)
		}
	}
	if checked < 1000 {
		t.Errorf("%d objects of built-in kinds checked, want the whole corpus (over 1,000)", checked)
	}
	t.Logf("%d objects of built-in kinds, %d rejected by the server", checked, rejected)
}

// builtinGroups reads the API groups of a served-api-versions file.
func builtinGroups(file string) (map[string]bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	groups := map[string]bool{}
	for _, l := range strings.Fields(string(data)) {
		parts := strings.Split(l, "/")
		switch {
		case len(parts) == 1 || (len(parts) == 2 && parts[0] == "v1"):
			groups[""] = true
		default:
			groups[parts[0]] = true
		}
	}
	if len(groups) < 10 {
		return nil, fmt.Errorf("%s names %d groups", file, len(groups))
	}
	return groups, nil
}
