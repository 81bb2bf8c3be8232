package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// multiAttachYAML is bitnami wordpress's shape: one replica, the default
// rolling update (maxSurge 25% = 1), a ReadWriteOnce claim of the input and
// a soft anti-affinity on its own pods.
const multiAttachYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: wordpress}
spec:
  accessModes: [%s]
  resources: {requests: {storage: 10Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: wordpress}
spec:
  replicas: 1
  selector: {matchLabels: {app: wordpress}}
  strategy: {type: %s}
  template:
    metadata: {labels: {app: wordpress}}
    spec:
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 1
            podAffinityTerm:
              topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: {app: wordpress}}
      containers:
      - {name: wordpress, image: registry.example.com/wordpress:6.6.2}
      volumes:
      - {name: data, persistentVolumeClaim: {claimName: wordpress}}
`

// TestMultiAttachNote: a RollingUpdate Deployment with a ReadWriteOnce claim
// gets a "likely stall" note naming the claim; Recreate, or a ReadWriteMany
// claim, gets none.
func TestMultiAttachNote(t *testing.T) {
	for _, tt := range []struct {
		mode, strategy string
		want           bool
	}{
		{"ReadWriteOnce", "RollingUpdate", true},
		{"ReadWriteOncePod", "RollingUpdate", true},
		{"ReadWriteOnce", "Recreate", false},
		{"ReadWriteMany", "RollingUpdate", false},
	} {
		t.Run(tt.mode+"/"+tt.strategy, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "wordpress.yaml")
			doc := strings.Replace(strings.Replace(multiAttachYAML, "%s", tt.mode, 1), "%s", tt.strategy, 1)
			if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Request{Files: []string{file}})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(res.Predictions) != 1 || res.Predictions[0].Plan == nil {
				t.Fatalf("Run() = %+v, want one Deployment plan", res.Predictions)
			}
			var got []string
			for _, n := range res.Predictions[0].Plan.Notes {
				if strings.HasPrefix(n, "likely stall: volume data mounts PersistentVolumeClaim wordpress, which is "+tt.mode) {
					got = append(got, n)
				}
			}
			if tt.want != (len(got) == 1) {
				t.Errorf("notes %q: want the likely-stall note: %v", res.Predictions[0].Plan.Notes, tt.want)
			}
		})
	}
}
