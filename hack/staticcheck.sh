#!/usr/bin/env bash
# staticcheck.sh: runs staticcheck on the module, installing it first (from
# the Go module proxy, once) under $HOME/.cache/kubectl-workload/tools.
set -euo pipefail
cd "$(dirname "$0")/.."

version=v0.8.2
bin="$HOME/.cache/kubectl-workload/tools/staticcheck-$version"
if [ ! -x "$bin/staticcheck" ]; then
	GOBIN="$bin" go install "honnef.co/go/tools/cmd/staticcheck@$version"
fi
"$bin/staticcheck" "${@:-./...}"
