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
