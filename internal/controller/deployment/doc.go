// Package deployment mirrors the Deployment controller (k8s.io/kubernetes v1.37.1,
// pkg/controller/deployment) and the ReplicaSet controller's pod management, in a
// discrete-event world on the predict kernel's clock. Each mirrored function names the upstream
// function it follows. It never imports cobra and never prints: Simulate takes plain inputs and
// returns a predict.Plan.
package deployment
