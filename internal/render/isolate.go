package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/kubectl-workload/kubectl-workload/internal/render/helper"
)

// errNoNetwork is what every network use in the helper process fails with.
var errNoNetwork = errors.New("rendering has no network: nothing is fetched")

// noNetwork is an http.RoundTripper that sends nothing.
type noNetwork struct{}

func (noNetwork) RoundTrip(*http.Request) (*http.Response, error) { return nil, errNoNetwork }

// Isolate cuts the helper process off from the network and from other
// programs, whatever a chart or kustomization names: kustomize's loader
// fetches http(s) files with an http.Client of the default transport
// (api/internal/loader.FileLoader.httpClientGetContent) and clones
// repositories by running the git found on PATH
// (api/internal/git.newCmdRunner), and its Helm inflator and exec functions
// run programs found there. With PATH empty no program is found, with the
// default transport refusing no request is sent, and with the resolver
// refusing no name is looked up. Checks before the build (checkKustomization)
// refuse remote references with a finding; this is what holds if one is
// missed. It is for the helper process only (kubectl_workload-render's main):
// it changes process-wide state.
func Isolate() {
	_ = os.Setenv("PATH", "")
	http.DefaultTransport = noNetwork{}
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errNoNetwork
	}}
}

// maxStack caps a goroutine's stack in the helper: a template that calls
// itself through tpl (which helm's engine does not count, unlike include)
// ends in a stack overflow at this depth rather than at the runtime's 1 GB.
const maxStack = 128 << 20

// ExitLimit is the helper's exit status when it stops itself at a limit.
const ExitLimit = 3

// watchMemory bounds the helper's memory at limit bytes: when what the Go
// runtime holds goes over, the helper writes why to errOut and exits with
// ExitLimit (kubectl-workload reports that for the directory being rendered
// and goes on). The collector is not given the limit (debug.SetMemoryLimit):
// near it, it would collect without end and a runaway template would take
// minutes to reach it, not a second. It also caps goroutine stacks
// (maxStack).
func watchMemory(limit int64, errOut io.Writer, exit func(int)) {
	if limit <= 0 {
		limit = helper.DefaultMemoryLimit
	}
	debug.SetMaxStack(maxStack)
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	go func() {
		for range time.Tick(20 * time.Millisecond) {
			metrics.Read(sample)
			used := int64(sample[0].Value.Uint64()) - int64(sample[1].Value.Uint64())
			if used > limit {
				fmt.Fprintf(errOut, "%s: memory limit exceeded: rendering used more than %d MiB\n", helper.Name, limit>>20)
				exit(ExitLimit)
				return
			}
		}
	}()
}
