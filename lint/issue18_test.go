package lint

import (
	"context"
	"strings"
	"testing"
)

// TestGenerateNameNamesTheObject: a Job named only by generateName is named
// "migrate-*" in messages (not "Job  has no ttl..."), and draws an info
// finding that kubectl apply refuses it.
func TestGenerateNameNamesTheObject(t *testing.T) {
	stdin := strings.NewReader(`apiVersion: batch/v1
kind: Job
metadata:
  generateName: migrate-
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: migrate:1.0
`)
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: stdin})
	var gen, ttl *Finding
	for i, f := range res.Findings {
		switch f.Rule {
		case RuleGenerateName:
			gen = &res.Findings[i]
		case "job/no-ttl":
			ttl = &res.Findings[i]
		}
	}
	if gen == nil || gen.Severity != SeverityInfo || gen.Line != 4 || !strings.Contains(gen.Message, "kubectl apply refuses it") {
		t.Errorf("Run(generateName Job) %s finding = %+v, want an info at line 4 saying kubectl apply refuses it", RuleGenerateName, gen)
	}
	if ttl == nil || !strings.HasPrefix(ttl.Message, "Job migrate-* has no ttlSecondsAfterFinished") {
		t.Errorf("Run(generateName Job) job/no-ttl = %+v, want it to name the Job migrate-*", ttl)
	}
}

// TestDuplicateKeyOneTrueFinding: kubectl decodes JSON and YAML alike into
// an unstructured object, keeping a duplicated key's last value, and sends
// that object: the server never sees the duplicate. So a duplicate key gets
// one finding, input/duplicate-key, in JSON as in YAML, and no strict
// decoding error ("duplicate field") that the server would never report.
func TestDuplicateKeyOneTrueFinding(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"json", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
 "spec": {"containers": [{"name": "c", "image": "busybox:1", "image": "busybox:2"}]}}
`},
		{"yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox:1\n    image: busybox:2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"-"}, Stdin: strings.NewReader(tt.doc)})
			var got []string
			for _, f := range res.Findings {
				if strings.HasPrefix(f.Rule, "api/") || strings.HasPrefix(f.Rule, "input/") {
					got = append(got, f.Rule+" "+f.Field+": "+f.Message)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], RuleDuplicateKey+" spec.containers[0].image: ") || !strings.Contains(got[0], "keeps only this last value") {
				t.Errorf("Run(%s with a duplicate key) = %q, want one %s finding on spec.containers[0].image", tt.name, got, RuleDuplicateKey)
			}
		})
	}
}

// TestDowntimeUsesAutoscalerMinReplicas: a Deployment that leaves
// spec.replicas to an HPA of minReplicas 3 is checked at 3 replicas, not at
// the default 1 ("a rollout can take all 1 pods down").
func TestDowntimeUsesAutoscalerMinReplicas(t *testing.T) {
	res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{"../rules/testdata/rollout-downtime/pass-autoscaled.yaml"}})
	for _, f := range res.Findings {
		if f.Rule == "rollout/downtime" {
			t.Errorf("Run(autoscaled Deployment, minReplicas 3, maxSurge 0, maxUnavailable 1) reports %s: %s", f.Rule, f.Message)
		}
	}
}

// TestDidYouMean: a Service whose one label value is a few edits away from
// a workload's, and an autoscaler whose target name is, get a "did you
// mean"; a Service whose extra label an operator sets at run time
// (role: primary) gets information, not a warning.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		file, rule string
		sev        Severity
		want       string
	}{
		{"../rules/testdata/service-no-matching-workload/fail-value-typo.yaml", "service/no-matching-workload", SeverityWarning,
			"did you mean app.kubernetes.io/name=checkout, as Deployment checkout has?"},
		{"../rules/testdata/hpa-target-missing/fail-name-typo.yaml", "hpa/target-missing", SeverityInfo, "; did you mean web-stable?"},
		{"../rules/testdata/networkpolicy-selects-nothing/fail-single-label-value-typo.yaml", "networkpolicy/selects-nothing", SeverityWarning,
			"isolates nothing; did you mean app=frontend, as Deployment frontend has?"},
		{"../rules/testdata/pdb-no-matching-workload/fail-single-label-value-typo.yaml", "pdb/no-matching-workload", SeverityWarning,
			"protects nothing; did you mean app=frontend, as Deployment frontend has?"},
		{"../rules/testdata/availability-no-spread/fail-hpa-min-replicas.yaml", "availability/no-spread", SeverityInfo,
			"Deployment web runs 3 replicas (the minReplicas of HorizontalPodAutoscaler web, which scales it), but"},
		{"../rules/testdata/service-no-matching-workload/info-operator-role.yaml", "service/no-matching-workload", SeverityInfo,
			"StatefulSet postgres carries every label of it but role, which its pod template does not set"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res := newTestLinter(t).Run(context.Background(), Options{Paths: []string{tt.file}, Settings: withOldDefaults(nil)})
			var got []string
			for _, f := range res.Findings {
				if f.Rule == tt.rule {
					got = append(got, f.Severity.String()+": "+f.Message)
					if f.Severity != tt.sev || !strings.Contains(f.Message, tt.want) {
						t.Errorf("Run(%s) %s = %s %q, want %s containing %q", tt.file, tt.rule, f.Severity, f.Message, tt.sev, tt.want)
					}
				}
			}
			if len(got) != 1 {
				t.Errorf("Run(%s) %s findings = %q, want one", tt.file, tt.rule, got)
			}
		})
	}
}
