// Package plugin is the kubectl face of kubectl workload: cobra commands whose
// RunE only wires flags to the libraries (lint, predict) and a printer.
package plugin

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/loglevel"
	"github.com/kubectl-workload/kubectl-workload/internal/safetext"
)

// Exit codes.
const (
	ExitClean    = 0
	ExitFindings = 1
	ExitError    = 2
)

// exitError carries a non-zero exit code out of a command that already
// printed what it had to say.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// ExitCode maps the error returned by the root command to the process exit
// code: nil is 0, findings at or above --fail-on are 1, and any other error
// (usage, unreadable input, a tool failure) is 2.
func ExitCode(err error) int {
	if err == nil {
		return ExitClean
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}

// NewCmdRoot builds the kubectl-workload command tree. One ConfigFlags serves
// every subcommand (--kubeconfig, --context, -n, ...).
func NewCmdRoot(streams genericiooptions.IOStreams) *cobra.Command {
	configFlags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "kubectl-workload",
		Short: "Lint workload manifests and predict how rollouts will proceed",
		Long: `kubectl workload checks Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs,
CronJobs, ReplicationControllers and Pods before you apply them: what the API server
would reject (with its own validation code), what it accepts but breaks at runtime,
and what makes rollouts unsafe, each at file:line:col. kubectl workload predict shows,
step by step, how a rollout will proceed, with the controllers' own arithmetic.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl workload",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	configFlags.AddFlags(cmd.PersistentFlags())
	addLogLevelFlag(cmd, streams.ErrOut)
	cmd.AddCommand(NewCmdLint(configFlags, streams))
	cmd.AddCommand(NewCmdPredict(configFlags, streams))
	cmd.AddCommand(NewCmdVersion(streams))
	addCompletions(cmd)
	return cmd
}

// ErrorMessage is what main prints for err: nothing for an exit code whose
// output was already written, else the error's text.
func ErrorMessage(err error) string {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return ""
	}
	// An error may name a file or quote the input: one line, no control
	// characters (safetext).
	return safetext.Escape(err.Error())
}

// addLogLevelFlag adds -v/--v (loglevel.Level) to cmd's persistent flags and applies it, to
// errOut, before any subcommand runs; without -v klog keeps its defaults and logs nothing.
func addLogLevelFlag(cmd *cobra.Command, errOut io.Writer) {
	var level loglevel.Level
	cmd.PersistentFlags().VarP(&level, loglevel.Flag, loglevel.Flag, loglevel.Usage)
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if f := c.Flags().Lookup(loglevel.Flag); f != nil && f.Changed {
			return level.Apply(errOut)
		}
		return nil
	}
}
