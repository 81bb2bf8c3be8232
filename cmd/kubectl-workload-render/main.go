// Command kubectl-workload-render renders Helm charts and kustomize overlays
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
	if err := render.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-workload-render: "+err.Error())
		os.Exit(2)
	}
}
