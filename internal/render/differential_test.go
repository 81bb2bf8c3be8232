//go:build unix

package render

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/kubectl-workload/kubectl-workload/internal/manifest"
)

// corpusEnv names a directory of charts (a checkout of bitnami/charts, a
// real-world mirror) that TestHelmDifferential also walks, locally: every
// chart below it that helm's library renders must render here.
const corpusEnv = "KUBECTL_WORKLOAD_HELM_CORPUS"

// helmInstalls reports whether helm's own library renders the chart in dir
// with its default values, as helm install --dry-run=client (helm template)
// does (pkg/action's Install.RunWithContext, client only): helm's loader,
// chartutil.ProcessDependencies, util.ToRenderValuesWithSchemaValidation
// with helm's own schema validation, and the engine, on a Kubernetes of
// this binary's version. pkg/action itself is not linked: its imports
// (registries, plugins) would add modules for one test. It is the
// reference lint is held to.
func helmInstalls(t *testing.T, dir string) error {
	t.Helper()
	chrt, err := loader.Load(dir)
	if err != nil {
		return err
	}
	// helm install refuses a chart whose dependencies are not all in
	// charts/ (pkg/cmd/install.go, action.CheckDependencies).
	if missing := missingDependencies(chrt); len(missing) > 0 {
		return fmt.Errorf("missing in charts/: %v", missing)
	}
	vals := map[string]any{}
	if err := chartutil.ProcessDependencies(chrt, vals); err != nil {
		return err
	}
	kv, err := common.ParseKubeVersion(DefaultKubeVersion())
	if err != nil {
		t.Fatal(err)
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	options := common.ReleaseOptions{Name: DefaultReleaseName, Namespace: "default", Revision: 1, IsInstall: true}
	values, err := util.ToRenderValuesWithSchemaValidation(chrt, vals, options, caps, false)
	if err != nil {
		return err
	}
	var e engine.Engine
	_, err = e.RenderWithContext(context.Background(), chrt, values)
	return err
}

// TestHelmDifferential: every chart that helm's library renders in process,
// lint renders too, with no problem: the shapes of the charts lint once
// refused (testdata/charts: a Bitnami schema naming json-schema.org/schema#
// with the common library chart, vault's https draft-07 schema, kyverno's
// disabled subchart whose archived dependency's schema refers to a server,
// rook-ceph's link to a library chart beside it, a chart with crds/), and,
// with $KUBECTL_WORKLOAD_HELM_CORPUS set, every chart below that directory.
// helm's library gets no network: a proxy that does not answer stands for
// it.
func TestHelmDifferential(t *testing.T) {
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		t.Setenv(v, "http://127.0.0.1:9")
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	type input struct{ dir, root string }
	inputs := []input{
		{"testdata/charts/bitnami-schema", ""},
		{"testdata/charts/vault-schema", ""},
		{"testdata/charts/disabled-subchart", ""},
		{"testdata/charts/library-link/app", "testdata/charts/library-link"},
		{"testdata/charts/chart-crds", ""},
	}
	if corpus := os.Getenv(corpusEnv); corpus != "" {
		var found []input
		err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "charts" && p != corpus) {
				return fs.SkipDir // subcharts are rendered with their parent
			}
			if d.Name() == "Chart.yaml" {
				found = append(found, input{filepath.Dir(p), corpus})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(found, func(i, j int) bool { return found[i].dir < found[j].dir })
		inputs = append(inputs, found...)
	}
	r := newRenderer(t, Options{})
	var rendered, refusedByHelm int
	for _, in := range inputs {
		if err := helmInstalls(t, in.dir); err != nil {
			refusedByHelm++
			t.Logf("%s: helm's library does not render it either: %v", in.dir, err)
			continue
		}
		rendered++
		set := r.RenderIn(in.root, in.dir, manifest.Chart)
		if len(set.Problems) > 0 {
			t.Errorf("%s: helm's library renders it, lint refuses it: %+v", in.dir, set.Problems)
			continue
		}
		if len(set.Objects) == 0 {
			t.Errorf("%s: rendered no objects", in.dir)
		}
	}
	t.Logf("%d charts: %d rendered by helm's library (each by lint too), %d not", len(inputs), rendered, refusedByHelm)
	if rendered < 5 {
		t.Errorf("helm's library rendered %d of the fixture charts, want all 5", rendered)
	}
}
