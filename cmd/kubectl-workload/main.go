// Command kubectl-workload is the kubectl workload plugin.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	_ "github.com/kubectl-workload/kubectl-workload/gctune/autostart" // before the other packages' inits
	"github.com/kubectl-workload/kubectl-workload/plugin"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	err := plugin.NewCmdRoot(streams).ExecuteContext(context.Background())
	if code := plugin.ExitCode(err); code != plugin.ExitClean {
		if msg := plugin.ErrorMessage(err); msg != "" {
			fmt.Fprintln(os.Stderr, "error: "+msg)
		}
		os.Exit(code)
	}
}
