// Package autostart starts the GC tuner (gctune.Start) from its init, for
// a binary to import for that side effect alone.
//
// Go initializes packages in dependency order, and otherwise by import
// path: this one depends on the standard library only, so it runs before
// the Kubernetes, OPA and protobuf packages a binary such as kubectl-workload
// links. Their inits allocate tens of megabytes (schemes, feature gates,
// OpenAPI models) and, under GOGC=100 from a 4 MB heap, used to run four
// collections before main: about half of a pre-commit run's start-up.
// Calling gctune.Start from main was too late for those.
package autostart

import "github.com/kubectl-workload/kubectl-workload/gctune"

func init() {
	gctune.Start()
}
