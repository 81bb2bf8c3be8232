package plugin

import (
	"github.com/spf13/cobra"

	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// renderFlags are helm template's flags, for the charts among the paths
// (kustomizations take none).
type renderFlags struct {
	valuesFiles                  []string
	set                          []string
	setString                    []string
	setJSON, setFile, setLiteral []string
	releaseName                  string
	kubeVersion                  string
	apiVersions                  []string
	helmTests                    bool
	// loadRestrictor is kustomize build's --load-restrictor.
	loadRestrictor string
	// clusterAPIVersions are the target cluster's, from its discovery
	// (--live, --against-live); nil renders for a v1.37 API server.
	clusterAPIVersions []string
}

func (f *renderFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Var(helper.AppendValues{P: &f.valuesFiles}, "values", "values file for the Helm charts among the paths, as helm's --values (repeatable, merged in order; helm's short -f is --filename here, as in kubectl)")
	fl.Var(helper.AppendValues{P: &f.valuesFiles}, "helm-values", "the same as --values")
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

// renderer returns the renderer for charts and kustomizations, rendering
// charts into namespace (.Release.Namespace; default when empty).
func (f *renderFlags) renderer(namespace string) (*helper.Renderer, error) {
	return helper.New(helper.Options{ValuesFiles: f.valuesFiles, Set: f.set, SetString: f.setString,
		SetJSON: f.setJSON, SetFile: f.setFile, SetLiteral: f.setLiteral,
		ReleaseName: f.releaseName, Namespace: namespace, KubeVersion: f.kubeVersion,
		APIVersions: f.apiVersions, ClusterAPIVersions: f.clusterAPIVersions, HelmTests: f.helmTests,
		LoadRestrictor: f.loadRestrictor})
}
