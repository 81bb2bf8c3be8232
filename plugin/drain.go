package plugin

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/predict"
)

// NewCmdPredictDrain builds `kubectl workload predict drain NODE...`.
func NewCmdPredictDrain(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := predict.DrainOptions{Getter: configFlags, IOStreams: streams}
	cmd := &cobra.Command{Use: "drain NODE...", Args: cobra.MinimumNArgs(1), Short: predict.DrainShort, Long: predict.DrainHelp, Example: predict.DrainExample, RunE: func(cmd *cobra.Command, args []string) error {
		if failed, err := predict.Drain(cmd.Context(), o, args); err != nil || !failed {
			return err
		}
		return &exitError{code: ExitFindings}
	}}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "the cluster's objects or a dump of kubectl get pods,pdb,deploy,rs,sts,ds,rc,jobs,nodes -A -o yaml")
	f.StringVar(&o.NodesFile, "nodes-file", "", "the nodes, from kubectl get nodes -o yaml")
	f.BoolVar(&o.IgnoreDaemonSets, "ignore-daemonsets", false, "as kubectl drain: ignore DaemonSet-managed pods")
	f.BoolVar(&o.DeleteEmptyDirData, "delete-emptydir-data", false, "as kubectl drain: evict pods using emptyDir")
	f.BoolVar(&o.Force, "force", false, "as kubectl drain: evict pods that declare no controller")
	f.BoolVar(&o.DisableEviction, "disable-eviction", false, "as kubectl drain: delete instead of evict, bypassing the budgets")
	f.StringVar(&o.PodSelector, "pod-selector", "", "as kubectl drain: only pods matching this label selector")
	f.DurationVar(&o.Timeout, "timeout", 0, "as kubectl drain: give up on a node after this long (0: never)")
	f.IntVar(&o.GracePeriod, "grace-period", -1, "as kubectl drain: seconds each pod gets to terminate (negative: the pod's own)")
	f.DurationVar(&o.ReadyAfter, "ready-after", 0, "time from a replacement's creation to Ready (default: derived from the probes)")
	f.StringVar(&o.Nodes, "nodes", "", "the cluster's nodes when the files hold none: a count N (node-1 … node-N) or names (a,b,c), shaped by --node-*")
	f.StringVar(&o.NodeCPU, "node-cpu", "", "allocatable cpu of each node of --nodes (e.g. 4, 3500m; default: no limit)")
	f.StringVar(&o.NodeMemory, "node-memory", "", "allocatable memory of each node of --nodes (e.g. 16Gi; default: no limit)")
	f.Int64Var(&o.NodePods, "node-pods", 0, "allocatable pods of each node of --nodes (default 110, the kubelet's --max-pods)")
	f.StringVar(&o.NodeLabels, "node-labels", "", "labels of each node of --nodes, as kubelet --node-labels: key=value,...")
	f.StringSliceVar(&o.NodeTaints, "node-taints", nil, "taints of each node of --nodes, as kubectl taint writes them: key[=value]:Effect")
	f.BoolVar(&o.RetriesMeet, "retries-meet", false, "play the less common outcome of evictions retried together: both read the budget before either writes, the later waits for the API server's next 500ms retry")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}
