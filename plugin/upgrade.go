package plugin

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/predict"
)

// NewCmdPredictUpgrade builds `kubectl workload predict upgrade --selector K=V`.
func NewCmdPredictUpgrade(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := predict.UpgradeOptions{Getter: configFlags, IOStreams: streams}
	cmd := &cobra.Command{Use: "upgrade --selector K=V", Args: cobra.NoArgs, Short: predict.UpgradeShort, Long: predict.UpgradeHelp, Example: predict.UpgradeExample, RunE: func(cmd *cobra.Command, _ []string) error {
		if failed, err := predict.Upgrade(cmd.Context(), o); err != nil || !failed {
			return err
		}
		return &exitError{code: ExitFindings}
	}}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "the cluster's objects or a dump of kubectl get pods,pdb,deploy,rs,sts,ds,rc,jobs,nodes -A -o yaml")
	f.StringVarP(&o.Selector, "selector", "l", "", "the pool's nodes, by label (e.g. agentpool=nodepool1)")
	f.StringVar(&o.Preset, "preset", "", "the provider's defaults: aks, eks or gke")
	f.StringVar(&o.MaxSurge, "max-surge", "", "new nodes beyond the pool's size: a count or a percentage (default 1, or the preset's)")
	f.StringVar(&o.MaxUnavailable, "max-unavailable", "", "old nodes drained beyond the surge: a count or a percentage (default 0, or the preset's)")
	f.StringVar(&o.DrainTimeout, "drain-timeout", "", "each node's drain timeout, e.g. 30m; 0 waits forever (default 0, or the preset's)")
	f.StringVar(&o.OnTimeout, "on-timeout", "", "at the drain timeout: fail the upgrade, or force (delete the pods left) (default fail, or the preset's)")
	f.DurationVar(&o.NodeReadyAfter, "node-ready-after", 0, "time a new node takes to join Ready (default 0: not counted)")
	f.DurationVar(&o.ReadyAfter, "ready-after", 0, "time from a replacement's creation to Ready (default: derived from the probes)")
	f.IntVar(&o.GracePeriod, "grace-period", -1, "seconds each evicted pod gets to terminate (negative: the pod's own)")
	f.StringVar(&o.Order, "order", "", "the old nodes' order: name (default) or input")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}
