package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/discovery"
)

const privilegedDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-agent
  namespace: default
spec:
  selector:
    matchLabels:
      app: node-agent
  template:
    metadata:
      labels:
        app: node-agent
    spec:
      hostNetwork: true
      containers:
      - name: agent
        image: registry.example.com/node-agent:1.4.2
        securityContext:
          privileged: true
`

const mismatchedDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: webx
    spec:
      containers:
      - name: web
        image: nginx:1.27
`

// TestControlPlaneSmoke checks the harness itself: the control plane is the version the
// plugin models, runs with --allow-privileged=true, and the oracle and kubectl both report
// the server's verdicts.
func TestControlPlaneSmoke(t *testing.T) {
	c := sharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dc, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
	if err != nil {
		t.Fatalf("discovery client: %v", err)
	}
	info, err := dc.ServerVersion()
	if err != nil {
		t.Fatalf("ServerVersion() error: %v", err)
	}
	if info.GitVersion != KubernetesVersion {
		t.Errorf("ServerVersion().GitVersion = %q, want %q", info.GitVersion, KubernetesVersion)
	}

	oracle, err := c.NewOracle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := oracle.DryRunCreate(ctx, []byte(privilegedDaemonSet))
	if err != nil {
		t.Fatal(err)
	}
	if v.Rejected {
		t.Errorf("DryRunCreate(privileged DaemonSet) rejected: %s %v; is --allow-privileged=true set?", v.Message, v.Causes)
	}

	v, err = oracle.DryRunCreate(ctx, []byte(mismatchedDeployment))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"spec.template.metadata.labels"}; !v.Rejected || !slices.Equal(v.Fields, want) {
		t.Errorf("DryRunCreate(selector mismatch) = rejected %v fields %q, want rejected with fields %q (message %q)", v.Rejected, v.Fields, want, v.Message)
	}

	out, err := c.Kubectl(ctx, "version", "-o", "json")
	if err != nil {
		t.Fatalf("kubectl version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"gitVersion": "`+KubernetesVersion+`"`) {
		t.Errorf("kubectl version output lacks gitVersion %s:\n%s", KubernetesVersion, out)
	}
}
