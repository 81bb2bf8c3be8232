package plugin

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-workload/kubectl-workload/internal/live"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
	"github.com/kubectl-workload/kubectl-workload/lint"
)

// liveFlags are lint's cluster and git flags.
type liveFlags struct {
	Live          bool
	AllNamespaces bool
	AgainstLive   bool
	BaseRef       string

	// resourceArgs are the TYPE/NAME arguments of --live.
	resourceArgs []string
}

func (f *liveFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.Live, "live", false,
		"lint the workloads in the cluster (the kubeconfig's context) instead of files; arguments are then TYPE/NAME or TYPE NAME..., as for kubectl get")
	cmd.Flags().BoolVarP(&f.AllNamespaces, "all-namespaces", "A", false, "with --live: every namespace, not only -n or the context's")
	cmd.Flags().BoolVar(&f.AgainstLive, "against-live", false,
		"check each file's objects as updates of the cluster's objects of the same name (immutable fields), and lint them with the cluster's objects around them")
	cmd.Flags().StringVar(&f.BaseRef, "base-ref", "",
		"check each file's objects as updates of the same objects in that file at this git revision (immutable fields, offline)")
}

// validate checks the flags' combinations (lint.Source.Check).
func (f *liveFlags) validate(paths []string) error {
	return lint.Source{Live: f.Live, AgainstLive: f.AgainstLive, BaseRef: f.BaseRef, AllNamespaces: f.AllNamespaces, Paths: paths}.Check()
}

// liveClient connects to the kubeconfig's cluster (live.Connect), writing its version-skew
// warning to errOut.
func liveClient(ctx context.Context, getter genericclioptions.RESTClientGetter, errOut io.Writer) (*live.Client, error) {
	return live.Connect(ctx, getter, func(w string) { fmt.Fprintf(errOut, "warning: %s\n", safetext.Escape(w)) })
}

// clusterWithoutFiles connects to the cluster (liveClient) when there are no files: predict
// drain and predict delete then read it. With files it returns nil.
func clusterWithoutFiles(ctx context.Context, getter genericclioptions.RESTClientGetter, errOut io.Writer, files []string) (*live.Client, error) {
	if len(files) > 0 {
		return nil, nil
	}
	return liveClient(ctx, getter, errOut)
}
