package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/version"
)

// VersionOptions are the flags of `kubectl workload version`.
type VersionOptions struct {
	Output string
	genericiooptions.IOStreams
}

// NewCmdVersion builds `kubectl workload version`.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	o := &VersionOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin version and the Kubernetes version it embeds",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.Run() },
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "output format: empty for text, or json")
	return cmd
}

// Run checks the flags and prints the versions.
func (o *VersionOptions) Run() error {
	if o.Output != "" && o.Output != "json" {
		return fmt.Errorf("unknown output format %q: want json or nothing", o.Output)
	}
	info := version.Get()
	if o.Output == "json" {
		enc := json.NewEncoder(o.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			return fmt.Errorf("write version: %w", err)
		}
		return nil
	}
	_, err := fmt.Fprintf(o.Out, "kubectl-workload %s\nKubernetes %s (API validation, defaulting and controller logic embedded)\n%s\n",
		info.Plugin, info.Kubernetes, info.GoVersion)
	return err
}
