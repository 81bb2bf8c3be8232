package runner

import (
	"context"
	"strings"
	"testing"
)

const pssDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:2.0
`

// restrictedSecurity makes pssDeployment's container pass the restricted level.
const restrictedSecurity = `
        securityContext:
          allowPrivilegeEscalation: false
          runAsNonRoot: true
          capabilities: {drop: [ALL]}
          seccompProfile: {type: RuntimeDefault}
`

func namespaceDoc(labels string) string {
	return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n" + labels + "---\n"
}

// TestPredictPodSecurityRefused checks that a Deployment whose pod template the namespace's
// enforce level refuses (a Namespace of the files, or the cluster's labels) stalls with the
// API server's reason, and that a template the level allows, or a level that allows the
// template, completes as before.
func TestPredictPodSecurityRefused(t *testing.T) {
	const reason = `namespace shop refuses every new pod: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false)`
	for _, tt := range []struct {
		name    string
		doc     string
		cluster map[string]map[string]string
		refused bool
	}{
		{name: "Namespace in the files", doc: namespaceDoc("    pod-security.kubernetes.io/enforce: restricted\n") + pssDeployment, refused: true},
		{name: "cluster's labels", doc: pssDeployment, cluster: map[string]map[string]string{
			"shop": {"pod-security.kubernetes.io/enforce": "restricted"}}, refused: true},
		{name: "files' Namespace replaces the cluster's", doc: namespaceDoc("    pod-security.kubernetes.io/enforce: baseline\n") + pssDeployment,
			cluster: map[string]map[string]string{"shop": {"pod-security.kubernetes.io/enforce": "restricted"}}},
		{name: "warn only", doc: namespaceDoc("    pod-security.kubernetes.io/warn: restricted\n") + pssDeployment},
		{name: "compliant template", doc: namespaceDoc("    pod-security.kubernetes.io/enforce: restricted\n") + strings.TrimSuffix(pssDeployment, "\n") + restrictedSecurity},
		{name: "no labels", doc: pssDeployment},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), Request{Files: []string{"-"}, Stdin: strings.NewReader(tt.doc), NamespaceLabels: tt.cluster})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Predictions) != 1 || len(res.Skipped) != 0 {
				t.Fatalf("%d predictions, skipped %v; want one prediction (the Namespace is read, not skipped)", len(res.Predictions), res.Skipped)
			}
			p := res.Predictions[0]
			if p.Plan == nil {
				t.Fatalf("no plan: rejected %v", p.Rejected)
			}
			s := p.Plan.Summary
			if !tt.refused {
				if !s.Completed || p.Timing.Refused != nil {
					t.Errorf("completed %v, refused %v, stall %q; want a completed rollout", s.Completed, p.Timing.Refused, s.StallReason)
				}
				return
			}
			if s.Completed || !s.DeadlineExceeded || !strings.HasPrefix(s.StallReason, reason) || !strings.HasSuffix(s.StallReason, "; ProgressDeadlineExceeded") {
				t.Errorf("completed %v, deadline exceeded %v, stall reason %q; want a stall on the deadline whose reason starts %q",
					s.Completed, s.DeadlineExceeded, s.StallReason, reason)
			}
			if p.Timing.FailNew || p.Timing.Refused == nil || p.Timing.Refused.Level != "restricted:latest" {
				t.Errorf("timing: failNew %v (the user did not ask), refused %+v", p.Timing.FailNew, p.Timing.Refused)
			}
			if s.MinAvailable != 0 {
				t.Errorf("minimum available %d, want 0: no pod is ever created", s.MinAvailable)
			}
		})
	}
}
