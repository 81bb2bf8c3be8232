// Command kubectl_workload-render renders Helm charts and kustomize overlays
// for kubectl-workload, which starts it on the first chart or kustomization
// of a run and talks to it on its standard input and output (package
// render/helper). It is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/kubectl-workload/kubectl-workload/internal/render"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "kubectl_workload-render is kubectl workload's helper for Helm charts and kustomizations: "+
			"kubectl-workload starts it, and it takes no arguments")
		os.Exit(2)
	}
	render.Isolate()
	if err := render.Serve(os.Stdin, os.Stdout, os.Stderr, os.Exit); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl_workload-render: "+err.Error())
		os.Exit(2)
	}
}
