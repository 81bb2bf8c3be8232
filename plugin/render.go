package plugin

import (
	"github.com/spf13/cobra"

	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// renderFlags are helm template's flags for the charts among the paths, bound to
// the renderer's options; Namespace is set per run, ClusterAPIVersions from the
// cluster's discovery (--live, --against-live; nil: a v1.37 API server's).
type renderFlags struct {
	opts helper.Options
}

func (f *renderFlags) add(cmd *cobra.Command) {
	fl, o := cmd.Flags(), &f.opts
	fl.Var(helper.AppendValues{P: &o.ValuesFiles}, "values", "values file for the Helm charts among the paths, as helm's --values (repeatable, merged in order; helm's short -f is --filename here, as in kubectl)")
	fl.Var(helper.AppendValues{P: &o.ValuesFiles}, "helm-values", "the same as --values")
	_ = fl.MarkHidden("helm-values")
	fl.StringArrayVar(&o.Set, "set", nil, "set a chart value, as helm's --set (repeatable): key=value[,key=value]")
	fl.StringArrayVar(&o.SetString, "set-string", nil, "set a chart value as a string, as helm's --set-string (repeatable)")
	fl.StringArrayVar(&o.SetJSON, "set-json", nil, "set a chart value to JSON, as helm's --set-json (repeatable): key=jsonvalue, or a JSON object")
	fl.StringArrayVar(&o.SetFile, "set-file", nil, "set a chart value to a file's content, as helm's --set-file (repeatable): key=path")
	fl.StringArrayVar(&o.SetLiteral, "set-literal", nil, "set a chart value to a literal string, as helm's --set-literal (repeatable): key=value")
	fl.StringVar(&o.ReleaseName, "release-name", helper.DefaultReleaseName, "release name charts are rendered with (.Release.Name)")
	fl.StringVar(&o.KubeVersion, "kube-version", helper.DefaultKubeVersion(), "Kubernetes version charts are rendered for (.Capabilities.KubeVersion)")
	fl.StringSliceVar(&o.APIVersions, "api-versions", nil, "API versions added to .Capabilities.APIVersions, as helm template's --api-versions (group/version or group/version/Kind; repeatable or comma-separated); charts are otherwise rendered for the versions a v1.37 cluster serves, or with --live and --against-live the cluster's own")
	fl.BoolVar(&o.HelmTests, "helm-tests", false, "render the charts' test hooks (helm.sh/hook: test), which helm install does not create")
	fl.StringVar(&o.LoadRestrictor, "load-restrictor", helper.LoadRestrictionsRootOnly, "kustomize build's --load-restrictor: LoadRestrictionsRootOnly, or LoadRestrictionsNone to let kustomizations read files outside their directory (../common/patch.yaml)")
	_ = cmd.MarkFlagFilename("values", "yaml", "yml", "json")
}

// renderer returns the renderer for charts and kustomizations, rendering
// charts into namespace (.Release.Namespace; default when empty).
func (f *renderFlags) renderer(namespace string) (*helper.Renderer, error) {
	o := f.opts
	o.Namespace = namespace
	return helper.New(o)
}
