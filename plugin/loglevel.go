package plugin

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kubectl-workload/kubectl-workload/internal/loglevel"
)

// addLogLevel adds kubectl's -v/--v (package loglevel), applied before any
// subcommand runs; without -v klog keeps its defaults and logs nothing.
func addLogLevel(cmd *cobra.Command, errOut io.Writer) {
	var level loglevel.Level
	cmd.PersistentFlags().VarP(&level, loglevel.Flag, loglevel.Flag, loglevel.Usage)
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if f := c.Flags().Lookup(loglevel.Flag); f != nil && f.Changed {
			return level.Apply(errOut)
		}
		return nil
	}
}
