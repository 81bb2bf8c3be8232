// Command gencorpus writes the benchmark corpus of kubectl-workload/bench to a
// directory, for timing the kubectl-workload binary end to end:
//
//	go run ./bench/gencorpus -n 10000 -o /tmp/kw-corpus
//	/usr/bin/time -v kubectl-workload lint -o json /tmp/kw-corpus > /dev/null
//
// -precommit writes the pre-commit set instead: the corpus's first five files
// (50 objects), the size of what a commit usually touches.
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
	precommit := flag.Bool("precommit", false, "write the pre-commit set (the first 5 files, 50 objects); overrides -n")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-n objects | -precommit] -o DIR")
		os.Exit(2)
	}
	if *precommit {
		*n = bench.PrecommitObjects
	}
	st, err := bench.GenerateCorpus(*out, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d objects (%d invalid, %d workloads) and %d broken documents in %d files, %d bytes, to %s\n",
		st.Objects, st.Invalid, st.Workloads, st.Broken, st.Files, st.Bytes, *out)
}
