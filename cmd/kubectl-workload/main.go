// Command kubectl-workload is the kubectl workload plugin.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-workload/kubectl-workload/internal/gctune"
	"github.com/kubectl-workload/kubectl-workload/plugin"
)

func main() {
	// The collector settings for a short batch run, set first and explicitly (no package init
	// changes runtime settings). The packages' own inits have run with Go's defaults by now.
	gctune.Start()
	// The pages of the binary that only the inits read leave the resident set; a failure costs
	// memory, not correctness.
	_, _ = gctune.ReleaseStartPages()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	err := plugin.NewCmdRoot(streams).ExecuteContext(context.Background())
	if code := plugin.ExitCode(err); code != plugin.ExitClean {
		if msg := plugin.ErrorMessage(err); msg != "" {
			fmt.Fprintln(os.Stderr, "error: "+msg)
		}
		os.Exit(code)
	}
}
