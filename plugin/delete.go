package plugin

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/predict"
	"github.com/kubectl-workload/kubectl-workload/predict/planreport"
)

// DeleteOptions are the flags and arguments of `kubectl workload predict delete`.
type DeleteOptions struct {
	configFlags *genericclioptions.ConfigFlags

	Filenames       []string
	Cascade, Output string

	request predict.DeleteRequest
	genericiooptions.IOStreams
}

// NewCmdPredictDelete builds `kubectl workload predict delete TYPE/NAME`.
func NewCmdPredictDelete(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &DeleteOptions{configFlags: configFlags, IOStreams: streams}
	cmd := &cobra.Command{Use: "delete (TYPE/NAME ... | TYPE NAME ...)", Args: cobra.MinimumNArgs(1), Long: help("delete"), Example: help("delete-example"),
		Short: "Show what kubectl delete TYPE/NAME --cascade takes with it, in what order, and what comes back",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		}}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "the objects or a dump of kubectl get deploy,rs,sts,ds,rc,jobs,cronjobs,pods,pvc -o yaml")
	f.StringVar(&o.Cascade, "cascade", "background", "as kubectl delete: background, foreground or orphan")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

// Complete reads the objects named and checks the flags.
func (o *DeleteOptions) Complete(args []string) error {
	targets, err := predict.ParseDeleteTargets(args)
	if err != nil {
		return err
	}
	if o.Output != "text" && o.Output != "json" && o.Output != "" {
		return fmt.Errorf("-o %s: want text or json", o.Output)
	}
	o.request = predict.DeleteRequest{Files: o.Filenames, Stdin: o.In, Targets: targets, Cascade: o.Cascade}
	if o.configFlags.Namespace != nil {
		o.request.Namespace = *o.configFlags.Namespace
	}
	return nil
}

// Run predicts the deletions and prints one plan per object.
func (o *DeleteOptions) Run(ctx context.Context) error {
	c, err := clusterWithoutFiles(ctx, o.configFlags, o.ErrOut, o.Filenames)
	if err != nil {
		return err
	}
	res, err := predict.Delete(ctx, o.request, c)
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(o.ErrOut, "warning: %s\n", w)
		}
	}
	if err != nil {
		return err
	}
	if o.Output == "json" {
		return planreport.DeleteJSON(o.Out, res.Plans...)
	}
	for i, plan := range res.Plans {
		if i > 0 {
			if _, err := io.WriteString(o.Out, "\n"); err != nil {
				return err
			}
		}
		if err := planreport.DeleteText(o.Out, plan); err != nil {
			return err
		}
	}
	return nil
}
