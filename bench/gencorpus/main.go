// Command gencorpus writes a benchmark corpus of kubectl-workload/bench to a
// directory, for timing the kubectl-workload binary end to end:
//
//	go run ./bench/gencorpus -n 10000 -o /tmp/kw-corpus
//	go run ./bench/gencorpus -shape repo -n 10000 -o /tmp/kw-repo
//	go run ./bench/gencorpus -shape one-namespace -n 10000 -o /tmp/kw-onens
//	/usr/bin/time -v kubectl-workload lint -o json /tmp/kw-corpus > /dev/null
//
// -shape picks the generator: bench (the original corpus, ten objects per
// file), repo (shaped like a repository of many services, from the
// real-world corpus's mix), services (the repo shape with only workloads,
// Services, budgets and autoscalers) or one-namespace (many copies of one
// application sharing labels in one namespace). -seed changes the repo,
// services and one-namespace corpora's draws. -precommit writes the pre-commit set instead: the bench
// corpus's first five files (50 objects), the size of what a commit usually
// touches.
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
	shape := flag.String("shape", string(bench.ShapeBench), "corpus shape: bench, repo, services or one-namespace")
	seed := flag.Uint64("seed", 1, "seed of the repo, services and one-namespace shapes")
	precommit := flag.Bool("precommit", false, "write the pre-commit set (the first 5 files, 50 objects); overrides -n and -shape")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-n objects | -precommit] [-shape bench|repo|services|one-namespace] [-seed N] -o DIR")
		os.Exit(2)
	}
	if *precommit {
		*n, *shape = bench.PrecommitObjects, string(bench.ShapeBench)
	}
	st, err := bench.GenerateShape(*out, bench.Shape(*shape), *n, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d objects (%d invalid, %d workloads) and %d broken documents in %d files, %d bytes, to %s\n",
		st.Objects, st.Invalid, st.Workloads, st.Broken, st.Files, st.Bytes, *out)
}
