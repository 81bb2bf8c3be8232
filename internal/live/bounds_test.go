package live

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// kubeconfigFor writes a kubeconfig for server, with user as its user
// entry, and returns ConfigFlags reading it.
func kubeconfigFor(t *testing.T, server, user, timeout string) *genericclioptions.ConfigFlags {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    insecure-skip-tls-verify: true
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: default}
current-context: ctx
users:
- name: u
  user:
%s
`, server, user)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &p
	f.Timeout = &timeout
	return f
}

const versionJSON = `{"major":"1","minor":"37","gitVersion":"v1.37.1"}`

// TestDefaultRequestTimeout: without --request-timeout, requests are bounded
// by DefaultRequestTimeout; with it, by its value.
func TestDefaultRequestTimeout(t *testing.T) {
	for _, tt := range []struct {
		flag string
		want time.Duration
	}{{"0", DefaultRequestTimeout}, {"5s", 5 * time.Second}} {
		c, err := New(kubeconfigFor(t, "https://127.0.0.1:1", "    token: tok-Q7Z3secret", tt.flag))
		if err != nil {
			t.Fatal(err)
		}
		if c.cfg.Timeout != tt.want {
			t.Errorf("--request-timeout %s: timeout = %s, want %s", tt.flag, c.cfg.Timeout, tt.want)
		}
	}
}

// stallingServer answers /version, and nothing else until the test ends.
func stallingServer(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Write([]byte(versionJSON))
			return
		}
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv
}

// TestStallingServer: a server that stalls after /version is an error once
// the request timeout passes.
func TestStallingServer(t *testing.T) {
	srv := stallingServer(t)
	start := time.Now()
	c, err := Connect(context.Background(), kubeconfigFor(t, srv.URL, "    token: tok-Q7Z3secret", "1s"), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	_, err = c.List(context.Background(), "default", []Kind{AllKinds()[0]})
	if err == nil || !strings.Contains(err.Error(), "context \"ctx\"") {
		t.Fatalf("List() error = %v, want a timeout naming the context", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("List() took %s, want about the 1s request timeout", d)
	}
}

// TestFloodingServer: a server that streams an endless list is an error at
// MaxResponseBytes, not an out-of-memory crash.
func TestFloodingServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Write([]byte(versionJSON))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{},"items":[`))
		item := []byte(`{"metadata":{"name":"` + strings.Repeat("x", 200) + `"}},`)
		chunk := []byte(strings.Repeat(string(item), 1000))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := Connect(context.Background(), kubeconfigFor(t, srv.URL, "    token: tok-Q7Z3secret", "60s"), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	_, err = c.List(context.Background(), "default", []Kind{AllKinds()[0]})
	if err == nil || !strings.Contains(err.Error(), "live.MaxResponseBytes") {
		t.Fatalf("List() error = %v, want one naming live.MaxResponseBytes", err)
	}
}

// TestOversizedPage: a page of far more items than asked for is an error.
func TestOversizedPage(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Write([]byte(versionJSON))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{},"items":[`)
		for i := range 1001 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"metadata":{"name":"d%d","namespace":"default"}}`, i)
		}
		b.WriteString("]}")
		w.Write([]byte(b.String()))
	}))
	defer srv.Close()
	c, err := Connect(context.Background(), kubeconfigFor(t, srv.URL, "    token: tok-Q7Z3secret", "10s"), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	_, err = c.List(context.Background(), "default", []Kind{AllKinds()[0]})
	if err == nil || !strings.Contains(err.Error(), "a page of 1001 items where 500 were asked for") {
		t.Fatalf("List() error = %v, want one about the oversized page", err)
	}
}

// TestExecPluginBounded: an exec credential plugin that never returns is an
// error after the request timeout and a grace, naming the plugin.
func TestExecPluginBounded(t *testing.T) {
	srv := stallingServer(t)
	user := `    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: sleep
      args: ["9"]
      interactiveMode: Never`
	start := time.Now()
	_, err := Connect(context.Background(), kubeconfigFor(t, srv.URL, user, "1s"), nil)
	if !errors.Is(err, errExecStalled) || !strings.Contains(err.Error(), `"sleep"`) {
		t.Fatalf("Connect() error = %v, want %v naming sleep", err, errExecStalled)
	}
	if d := time.Since(start); d > 1*time.Second+execGrace+3*time.Second {
		t.Errorf("Connect() took %s, want about %s", d, 1*time.Second+execGrace)
	}
}
