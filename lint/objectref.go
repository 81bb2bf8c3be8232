package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// workloadTypes are the resource names, short names and kinds (lower case)
// of the kinds lint reads from a cluster, as kubectl get accepts them, with
// and without the API group: what a TYPE/NAME argument starts with.
var workloadTypes = map[string]bool{
	"deployment": true, "deployments": true, "deploy": true,
	"statefulset": true, "statefulsets": true, "sts": true,
	"daemonset": true, "daemonsets": true, "ds": true,
	"replicaset": true, "replicasets": true, "rs": true,
	"job": true, "jobs": true,
	"cronjob": true, "cronjobs": true, "cj": true,
	"pod": true, "pods": true, "po": true,
	"replicationcontroller": true, "replicationcontrollers": true, "rc": true,
}

// isWorkloadType reports whether s names a workload resource type, as
// kubectl get takes it ("deploy", "deployments.apps", "CronJob").
func isWorkloadType(s string) bool {
	s = strings.ToLower(s)
	if i := strings.IndexByte(s, '.'); i > 0 {
		switch s[i+1:] {
		case "apps", "batch", "apps/v1", "batch/v1":
			s = s[:i]
		}
	}
	return workloadTypes[s]
}

// ObjectRefHint returns an error for the first path argument of an offline run
// (live false) that does not exist and reads as kubectl's TYPE/NAME or TYPE
// (deployment/web, "deployment web"): the user meant the cluster's object,
// which --live reads. Without the hint the error is a bare "no such file or
// directory".
func ObjectRefHint(live bool, paths []string) error {
	if live {
		return nil
	}
	for i, p := range paths {
		if p == "-" {
			continue
		}
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		typ, name, slash := strings.Cut(p, "/")
		switch {
		case slash && name != "" && !strings.Contains(name, "/") && isWorkloadType(typ):
			return fmt.Errorf("%s: no such file or directory; to lint %s in the cluster, add --live: kubectl workload lint --live %s", p, p, p)
		case !slash && isWorkloadType(p):
			rest := strings.Join(paths[i:], " ")
			return fmt.Errorf("%s: no such file or directory; to lint %s in the cluster, add --live: kubectl workload lint --live %s", p, p, rest)
		}
	}
	return nil
}
