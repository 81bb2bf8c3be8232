// Command corpusmix prints the shape of a directory of manifests: objects
// per file, the kinds and their mean JSON sizes. The repo-shaped benchmark
// corpus (bench.RepoShaped) takes its weights from its output on the
// real-world corpus:
//
//	go run ./bench/corpusmix ../shared/corpus/real-world
package main

import (
	"fmt"
	"os"

	"github.com/kubectl-workload/kubectl-workload/bench"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: corpusmix DIR")
		os.Exit(2)
	}
	m, err := bench.MeasureMix(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpusmix:", err)
		os.Exit(1)
	}
	m.Print(os.Stdout)
}
