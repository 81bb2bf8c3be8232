// Command gencorpus writes the benchmark corpus of kubectl-workload/bench to a
// directory, for timing the kubectl-workload binary end to end:
//
//	go run ./bench/gencorpus -n 10000 -o /tmp/kw-corpus
//	/usr/bin/time -v kubectl-workload lint -o json /tmp/kw-corpus > /dev/null
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kubectl-workload/kubectl-workload/bench"
)

func main() {
	n := flag.Int("n", 10000, "number of objects")
	out := flag.String("o", "", "directory to write the corpus to (created; must not hold an older corpus)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-n objects] -o DIR")
		os.Exit(2)
	}
	st, err := bench.GenerateCorpus(*out, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d objects (%d invalid, %d workloads) in %d files, %d bytes, to %s\n",
		st.Objects, st.Invalid, st.Workloads, st.Files, st.Bytes, *out)
}
