#!/usr/bin/env bash
# test.sh: the project's whole test suite, as CI runs it.
#
# Builds (or takes from $HOME/.cache) the real control-plane binaries the
# end-to-end tests need, then runs vet, a gofmt check, and every Go test,
# including the differential tests against a real v1.37.1 kube-apiserver and,
# for predict, against the real controllers (kube-controller-manager,
# kube-scheduler, kwok).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== control-plane binaries"
bin=$(bash hack/install-control-plane.sh etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok | tail -n 1)
export KUBECTL_WORKLOAD_E2E=1
export KUBECTL_WORKLOAD_E2E_BIN="$bin"
export KUBECTL="$bin/kubectl"

echo "== test tools (pre-commit, krew, SARIF schema)"
tools=$(bash hack/install-test-tools.sh)
eval "$tools"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
bash hack/staticcheck.sh ./...

echo "== go test"
# The e2e package runs real rollouts, several times each where real runs vary: on a loaded
# 2-core machine it can take longer than go test's default 10 minutes.
go test -count=1 -timeout 40m "$@" ./...

echo "== go test -race (the packages with concurrency)"
# Init goroutines are gone (TestNoInitSideEffects), but lint runs worker pools and a
# two-stage first pass over objects that manifest loads and live reads, and rules a sandbox
# guard, a gate and shared compiles; predict's simulations share its caches and clocks. The
# race detector checks them all.
# -short leaves out the scale tests (10,000 objects, 110 MB of hostile input), which the run
# above covers and which the race detector's tenfold cost would make the longest part of CI.
go test -race -short -count=1 -timeout 40m ./lint/... ./rules/... ./predict/... ./internal/manifest/... ./internal/live/... ./internal/controller/... ./internal/kubectl/... ./internal/registry/... ./internal/scheduler/... ./internal/render/...
