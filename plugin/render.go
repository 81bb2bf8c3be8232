package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-workload/kubectl-workload/internal/boundedread"
	"github.com/kubectl-workload/kubectl-workload/internal/manifest"

	"github.com/spf13/cobra"

	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// renderFlags are helm template's flags, for the charts among the paths
// (kustomizations take none).
type renderFlags struct {
	valuesFiles []string
	set         []string
	setString   []string
	setJSON     []string
	setFile     []string
	setLiteral  []string
	releaseName string
	kubeVersion string
	apiVersions []string
	helmTests   bool
	// loadRestrictor is kustomize build's --load-restrictor.
	loadRestrictor string
	// clusterAPIVersions are the target cluster's, from its discovery
	// (--live, --against-live); nil renders for a v1.37 API server.
	clusterAPIVersions []string
}

func (f *renderFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Var(appendValues{&f.valuesFiles}, "values", "values file for the Helm charts among the paths, as helm's --values (repeatable, merged in order; helm's short -f is --filename here, as in kubectl)")
	fl.Var(appendValues{&f.valuesFiles}, "helm-values", "the same as --values")
	_ = fl.MarkHidden("helm-values")
	fl.StringArrayVar(&f.set, "set", nil, "set a chart value, as helm's --set (repeatable): key=value[,key=value]")
	fl.StringArrayVar(&f.setString, "set-string", nil, "set a chart value as a string, as helm's --set-string (repeatable)")
	fl.StringArrayVar(&f.setJSON, "set-json", nil, "set a chart value to JSON, as helm's --set-json (repeatable): key=jsonvalue, or a JSON object")
	fl.StringArrayVar(&f.setFile, "set-file", nil, "set a chart value to a file's content, as helm's --set-file (repeatable): key=path")
	fl.StringArrayVar(&f.setLiteral, "set-literal", nil, "set a chart value to a literal string, as helm's --set-literal (repeatable): key=value")
	fl.StringVar(&f.releaseName, "release-name", helper.DefaultReleaseName, "release name charts are rendered with (.Release.Name)")
	fl.StringVar(&f.kubeVersion, "kube-version", helper.DefaultKubeVersion(), "Kubernetes version charts are rendered for (.Capabilities.KubeVersion)")
	fl.StringSliceVar(&f.apiVersions, "api-versions", nil, "API versions added to .Capabilities.APIVersions, as helm template's --api-versions (group/version or group/version/Kind; repeatable or comma-separated); charts are otherwise rendered for the versions a v1.37 cluster serves, or with --live and --against-live the cluster's own")
	fl.BoolVar(&f.helmTests, "helm-tests", false, "render the charts' test hooks (helm.sh/hook: test), which helm install does not create")
	fl.StringVar(&f.loadRestrictor, "load-restrictor", helper.LoadRestrictionsRootOnly, "kustomize build's --load-restrictor: LoadRestrictionsRootOnly, or LoadRestrictionsNone to let kustomizations read files outside their directory (../common/patch.yaml)")
	_ = cmd.MarkFlagFilename("values", "yaml", "yml", "json")
}

// setsValues reports whether chart values are given (--values, --set and
// the like).
func (f *renderFlags) setsValues() bool {
	return len(f.valuesFiles)+len(f.set)+len(f.setString)+len(f.setJSON)+len(f.setFile)+len(f.setLiteral) > 0
}

// valuesBothSides is predict's note when chart values are given with --from.
const valuesBothSides = "--values and the --set flags apply to the charts of -f and of --from alike: " +
	"give the old side its own with --from-values and --from-set"

// appendValues is a repeatable string flag that appends every value, so
// that two flags sharing a list (--values and its old name --helm-values)
// keep the order of the command line.
type appendValues struct{ p *[]string }

func (a appendValues) String() string {
	if a.p == nil {
		return "[]"
	}
	return "[" + strings.Join(*a.p, ",") + "]"
}

func (a appendValues) Set(v string) error {
	*a.p = append(*a.p, v)
	return nil
}

func (appendValues) Type() string { return "stringArray" }

// renderer returns the renderer for charts and kustomizations, rendering
// charts into namespace (.Release.Namespace; default when empty).
func (f *renderFlags) renderer(namespace string) (*helper.Renderer, error) {
	return helper.New(helper.Options{ValuesFiles: f.valuesFiles, Set: f.set, SetString: f.setString,
		SetJSON: f.setJSON, SetFile: f.setFile, SetLiteral: f.setLiteral,
		ReleaseName: f.releaseName, Namespace: namespace, KubeVersion: f.kubeVersion,
		APIVersions: f.apiVersions, ClusterAPIVersions: f.clusterAPIVersions, HelmTests: f.helmTests,
		LoadRestrictor: f.loadRestrictor})
}

// valuesBesideChart refuses a Helm values file named as an input beside a
// chart (lint chart -f values-ha.yaml, lint chart values-ha.yaml): it is
// not a manifest, and the chart would be linted with its default values,
// silently. A file is taken for a values file when its first document is
// a mapping with neither apiVersion nor kind and it is in no chart.
func valuesBesideChart(paths []string) error {
	var chart string
	for _, p := range paths {
		if isFile(filepath.Join(p, "Chart.yaml")) {
			chart = p
			break
		}
	}
	if chart == "" {
		return nil
	}
	for _, p := range paths {
		switch filepath.Base(p) {
		case "kustomization.yaml", "kustomization.yml", "Kustomization":
			continue
		}
		if p == "-" || !isFile(p) || inChart(p) {
			continue
		}
		data, err := boundedread.ReadFile(p, manifest.MaxFileSize)
		if err != nil {
			continue // reported when it is loaded
		}
		first, _, _ := strings.Cut(string(data), "\n---")
		var doc map[string]any
		if yaml.Unmarshal([]byte(first), &doc) != nil || len(doc) == 0 {
			continue
		}
		if _, ok := doc["apiVersion"]; ok {
			continue
		}
		if _, ok := doc["kind"]; ok {
			continue
		}
		return fmt.Errorf("%s is a Helm values file (no apiVersion, no kind), given as an input beside the chart %s: "+
			"give it with --values %s (as helm does; -f is --filename here, as in kubectl)", p, chart, p)
	}
	return nil
}

// inChart reports whether the file p is in a chart directory (its own
// values.yaml, a template), up to the top of the file system.
func inChart(p string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if isFile(filepath.Join(d, "Chart.yaml")) {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

func isFile(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.Mode().IsRegular()
}
