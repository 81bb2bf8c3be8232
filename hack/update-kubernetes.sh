#!/usr/bin/env bash
# update-kubernetes.sh VERSION
#
# Pins k8s.io/kubernetes at VERSION (for example v1.37.1) and writes one `replace`
# directive per staging module, reading the list from k8s.io/kubernetes's own go.mod
# (every `k8s.io/X => ./staging/src/k8s.io/X` line). Each staging module is replaced by
# its published tag v0.<minor>.<patch>, which is what go needs because k8s.io/kubernetes
# requires them at v0.0.0. A version bump is this one command followed by `go test ./...`.
set -euo pipefail

if [ $# -ne 1 ] || ! [[ $1 =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
	echo "usage: $0 v1.MINOR.PATCH" >&2
	exit 2
fi
version=$1
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

cd "$(dirname "$0")/.."

modfile=$(go mod download -json "k8s.io/kubernetes@${version}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
if [ -z "$modfile" ] || [ ! -f "$modfile" ]; then
	echo "update-kubernetes: cannot find go.mod of k8s.io/kubernetes@${version}" >&2
	exit 1
fi

mapfile -t modules < <(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*$#\1#p' "$modfile" | sort -u)
if [ ${#modules[@]} -eq 0 ]; then
	echo "update-kubernetes: no staging replace directives in $modfile" >&2
	exit 1
fi

# Drop the previous staging replaces, so that modules upstream removed do not linger.
# Both the block form ("\tk8s.io/X => k8s.io/X v0...") and the one-line form are read.
if [ -f go.mod ]; then
	for old in $(sed -n 's#^\(replace\)\{0,1\}[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => k8s\.io/.*$#\2#p' go.mod | sort -u); do
		go mod edit -dropreplace="$old"
	done
fi

args=()
for m in "${modules[@]}"; do
	args+=("-replace=${m}=${m}@${staging}")
done
go mod edit "${args[@]}"
go mod edit -require="k8s.io/kubernetes@${version}"

# The staging modules this project imports directly move with the same tag.
for m in $(go list -m -f '{{if not .Indirect}}{{.Path}}{{end}}' all 2>/dev/null | grep '^k8s\.io/' | grep -v '^k8s\.io/kubernetes$' || true); do
	for s in "${modules[@]}"; do
		if [ "$m" = "$s" ]; then
			go mod edit -require="${m}@${staging}"
		fi
	done
done

go mod tidy
echo "k8s.io/kubernetes ${version}, staging modules ${staging} (${#modules[@]} replaced)"
