#!/usr/bin/env bash
# dist.sh VERSION
#
# Builds the release archives krew and GitHub releases serve:
#
#   dist/kubectl-workload_<VERSION>_<os>_<arch>.tar.gz   kubectl-workload and its render helper
#                                                        kubectl_workload-render (.exe on windows) + LICENSE
#   dist/kubectl-workload_<VERSION>_checksums.txt        sha256 of each archive, sha256sum format
#
# for linux, darwin and windows on amd64 and arm64. VERSION is the release tag, such as
# v0.1.0 (krew requires a v-prefixed semantic version); it is compiled in with
# -X github.com/kubectl-workload/kubectl-workload/internal/version.Version=VERSION, so
# `kubectl workload version` reports it. Binaries are static (CGO_ENABLED=0) and built with
# -trimpath; archives list their files in a fixed order with fixed owners and times, so the
# same commit gives the same bytes.
#
# Environment:
#   DIST_DIR        output directory (default: dist at the repository root)
#   DIST_PLATFORMS  space-separated os/arch pairs to build instead of all six, e.g.
#                   "linux/amd64" for a quick local archive (the krew e2e test does this)
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "dist: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 VERSION (a tag such as v0.1.0)"
version=$1
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
[[ $version =~ $semver ]] || die "VERSION $version is not a v-prefixed semantic version (krew requires one), e.g. v0.1.0"

module=github.com/kubectl-workload/kubectl-workload
platforms=${DIST_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
out_dir=${DIST_DIR:-dist}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
[ -f LICENSE ] || die "LICENSE is missing at the repository root"

# Fixed archive metadata: GNU tar can pin owners and times (the files go in the order they are
# named); other tars (bsdtar on macOS) still make valid archives, just not byte-for-byte
# reproducible ones.
tar_flags=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
	tar_flags=(--owner=0 --group=0 --numeric-owner --mtime="@${epoch}")
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

archives=()
for platform in $platforms; do
	goos=${platform%/*}
	goarch=${platform#*/}
	case "$goos/$goarch" in
	linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64 | windows/amd64 | windows/arm64) ;;
	*) die "unsupported platform $platform" ;;
	esac
	bin=kubectl-workload
	helper=kubectl_workload-render
	[ "$goos" = windows ] && bin=kubectl-workload.exe && helper=kubectl_workload-render.exe
	name="kubectl-workload_${version}_${goos}_${goarch}"
	dir="${stage}/${name}"
	mkdir -p "$dir"
	start=$(date +%s)
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
		-ldflags "-s -w -X ${module}/internal/version.Version=${version}" \
		-o "${dir}/${bin}" ./cmd/kubectl-workload ||
		die "go build for $platform failed"
	# The helper that renders Helm charts and kustomizations (internal/render/helper): kubectl-workload
	# finds it beside itself.
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
		-ldflags "-s -w -X ${module}/internal/version.Version=${version}" \
		-o "${dir}/${helper}" ./cmd/kubectl_workload-render ||
		die "go build of the render helper for $platform failed"
	cp LICENSE "${dir}/LICENSE"
	chmod 0755 "${dir}/${bin}" "${dir}/${helper}"
	chmod 0644 "${dir}/LICENSE"
	tar "${tar_flags[@]+"${tar_flags[@]}"}" -C "$dir" -cf - LICENSE "$bin" "$helper" | gzip -n -9 >"${out_dir}/${name}.tar.gz"
	archives+=("${name}.tar.gz")
	echo "dist: ${out_dir}/${name}.tar.gz ($(($(date +%s) - start))s)" >&2
done

sums="kubectl-workload_${version}_checksums.txt"
(cd "$out_dir" && sha256sum "${archives[@]}" >"$sums")
echo "dist: ${out_dir}/${sums}" >&2
echo "$out_dir"
