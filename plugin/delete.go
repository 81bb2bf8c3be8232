package plugin

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/predict"
)

// NewCmdPredictDelete builds `kubectl workload predict delete TYPE/NAME`.
func NewCmdPredictDelete(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := predict.DeleteOptions{Getter: configFlags, IOStreams: streams}
	cmd := &cobra.Command{Use: "delete (TYPE/NAME ... | TYPE NAME ...)", Args: cobra.MinimumNArgs(1), Short: predict.DeleteShort, Long: predict.DeleteHelp, Example: predict.DeleteExample, RunE: func(cmd *cobra.Command, args []string) error {
		if configFlags.Namespace != nil {
			o.Namespace = *configFlags.Namespace
		}
		return predict.Delete(cmd.Context(), o, args)
	}}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "the objects or a dump of kubectl get deploy,rs,sts,ds,rc,jobs,cronjobs,pods,pvc -o yaml")
	f.StringVar(&o.Cascade, "cascade", "background", "as kubectl delete: background, foreground or orphan")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}
