package live

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// The bounds of a live run. lint --live may run in CI against a cluster or
// an endpoint it does not control, so nothing it asks may hang it or fill
// its memory.
const (
	// DefaultRequestTimeout bounds each request when --request-timeout is
	// not given (kubectl's default, 0, waits for ever). lint's requests
	// are gets and list pages of 500 objects, which a healthy API server
	// answers in well under a second, so 10 s is a tenfold margin over a
	// slow one; it is what a kubectl user would pass in CI
	// (--request-timeout=10s), and --request-timeout raises it. A stalled
	// server then costs a run 10 s, not a CI job's whole time limit.
	DefaultRequestTimeout = 10 * time.Second
	// MaxResponseBytes is the largest response body read. A page is 500
	// objects, and the API server takes objects of at most 3 MiB (etcd
	// 1.5 MiB by default); real pages of workloads are a few MiB. A server
	// sending more (an endless list) is an error, not an out-of-memory
	// crash.
	MaxResponseBytes = 128 << 20
	// execGrace is how much longer than the request timeout a request may
	// take when an exec credential plugin runs: client-go runs the plugin
	// without a deadline (plugin/pkg/client/auth/exec), and the request
	// timeout does not stop it.
	execGrace = 5 * time.Second
	// maxPageFactor: a page of more than this many times the items asked
	// for is an error (a server may round a limit up, not ignore it).
	maxPageFactor = 2
)

// ErrResponseTooLarge is the cause of a response over MaxResponseBytes.
var ErrResponseTooLarge = fmt.Errorf("response larger than %d bytes (live.MaxResponseBytes)", MaxResponseBytes)

// bound sets the defaults above on cfg: the request timeout, unless given,
// and the response size limit.
func bound(cfg *rest.Config) {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultRequestTimeout
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return limitedTransport{rt} })
}

// limitedTransport caps every response body at MaxResponseBytes.
type limitedTransport struct{ http.RoundTripper }

// WrappedRoundTripper lets client-go reach the transport beneath, to cancel
// requests (k8s.io/apimachinery/pkg/util/net.RoundTripperWrapper).
func (t limitedTransport) WrappedRoundTripper() http.RoundTripper { return t.RoundTripper }

func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.ContentLength > MaxResponseBytes {
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrResponseTooLarge)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: MaxResponseBytes, what: req.Method + " " + req.URL.Path}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
	what string
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%s: %w", b.what, ErrResponseTooLarge)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// boundedGetter is the plugin's RESTClientGetter with the bounds above on
// every client it makes (cli-runtime's resource builder, discovery).
type boundedGetter struct {
	genericclioptions.RESTClientGetter
	cfg       *rest.Config
	discovery discovery.CachedDiscoveryInterface
}

func newBoundedGetter(g genericclioptions.RESTClientGetter, cfg *rest.Config) (*boundedGetter, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &boundedGetter{RESTClientGetter: g, cfg: cfg, discovery: memory.NewMemCacheClient(dc)}, nil
}

func (g *boundedGetter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.cfg), nil }

func (g *boundedGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

// ToRESTMapper is genericclioptions.ConfigFlags.toRESTMapper's mapper on
// the bounded discovery client.
func (g *boundedGetter) ToRESTMapper() (meta.RESTMapper, error) {
	return restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(g.discovery), g.discovery, nil), nil
}

// errExecStalled is the cause of a request abandoned because its exec
// credential plugin did not return.
var errExecStalled = errors.New("no answer: the exec credential plugin did not return")

// within runs fn, and when the kubeconfig's user has an exec credential
// plugin, returns errExecStalled once the request timeout and execGrace
// have passed without fn returning (fn is left to finish on its own: the
// plugin cannot be stopped from here).
func (c *Client) within(fn func() error) error {
	if c.cfg == nil || c.cfg.ExecProvider == nil {
		return fn()
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	t := time.NewTimer(c.cfg.Timeout + execGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("%w %q within %s", errExecStalled, c.cfg.ExecProvider.Command, c.cfg.Timeout+execGrace)
	}
}
