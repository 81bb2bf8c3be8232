#!/usr/bin/env bash
# install-test-tools.sh
#
# Installs the real tools the packaging tests use, and prints `export` lines for them on
# stdout, so a caller writes:
#
#   eval "$(hack/install-test-tools.sh)"
#
#   pre-commit                Debian's package, for test/e2e/precommit_test.go; installed with
#                             apt-get when missing and running as root, else only reported
#   krew, validate-krew-manifest
#                             sigs.k8s.io/krew ${KREW_VERSION}, built from the Go module proxy, for
#                             test/e2e/krew_test.go; exported as KUBECTL_WORKLOAD_KREW and
#                             KUBECTL_WORKLOAD_KREW_VALIDATE
#   helm, kustomize           helm.sh/helm/v4 ${HELM_VERSION} and sigs.k8s.io/kustomize/kustomize/v5
#                             ${KUSTOMIZE_VERSION} (built on sigs.k8s.io/kustomize/api ${KUSTOMIZE_API_VERSION}), the
#                             versions of the libraries internal/render/ links, built from the Go module proxy,
#                             for render's comparison test; exported as KUBECTL_WORKLOAD_HELM and
#                             KUBECTL_WORKLOAD_KUSTOMIZE
#   the SARIF 2.1.0 schema    lib/schemas/sarif-2.1.0-rtm.5.json of the npm package
#                             @microsoft/jest-sarif, for lint/report's schema test; exported as
#                             KUBECTL_WORKLOAD_SARIF_SCHEMA
#
# Everything else (progress, build logs) goes to stderr. A tool already in the cache is not
# fetched again, so a second run costs a few file tests.
#
# Cache: ${KUBECTL_WORKLOAD_CACHE:-$HOME/.cache/kubectl-workload}/
#   krew-${KREW_VERSION}/bin/     krew and validate-krew-manifest
#   krew-${KREW_VERSION}/build/   the throwaway Go module they are built in (never the repository's)
#   render-tools/bin/             helm and kustomize
#   render-tools/build/           the throwaway Go module they are built in
#   sarif/                        the npm tarball and the extracted schema
set -euo pipefail

# krew v0.4.4 is the newest release the module proxy serves. Its module has no replace
# directives, but `go install ...@version` still asks the proxy for the module's version list
# (to report deprecation), which the proxy refuses; a throwaway module pinning the version
# builds it without that request.
KREW_VERSION=v0.4.4
# The CLIs of the libraries internal/render/ uses (see go.mod): kustomize v5.8.2 is the release built on
# sigs.k8s.io/kustomize/api v0.21.2 (v5.8.3 moves to v0.21.3, which needs Go 1.27).
HELM_VERSION=v4.3.1
KUSTOMIZE_VERSION=v5.8.2
KUSTOMIZE_API_VERSION=v0.21.2
SARIF_PACKAGE=@microsoft/jest-sarif
SARIF_PACKAGE_VERSION=1.0.0-beta.0
# The registry's dist.integrity of ${SARIF_PACKAGE}@${SARIF_PACKAGE_VERSION}
# (sha512-A1fOhPd6Ic5iDk4F9YPw1qNB4XF+7+IviR7xl8r2F6QzQkx5cpY9LsGk2rExiFIEcBbjpVnSmwWGBukASkiQ9A==), in hex.
SARIF_PACKAGE_SHA512=0357ce84f77a21ce620e4e05f583f0d6a341e1717eefe22f891ef197caf617a433424c7972963d2ec1a4dab1318852047016e3a559d29b058606e9004a4890f4
SARIF_SCHEMA_PATH=package/lib/schemas/sarif-2.1.0-rtm.5.json

log() {
	echo "install-test-tools: $*" >&2
}

die() {
	log "$*"
	exit 1
}

cache_root=${KUBECTL_WORKLOAD_CACHE:-${HOME:?HOME is not set and KUBECTL_WORKLOAD_CACHE is empty}/.cache/kubectl-workload}
case "$cache_root" in
/*) ;;
*) cache_root="${PWD}/${cache_root}" ;;
esac
mkdir -p "$cache_root" || die "cannot create $cache_root"

# timed NAME CMD... runs CMD with its output on stderr and logs how long it took.
timed() {
	local name=$1 start
	shift
	start=$(date +%s)
	"$@" >&2 || die "$name failed (command: $*)"
	log "$name took $(($(date +%s) - start))s"
}

# --- pre-commit ---------------------------------------------------------------------------
install_pre_commit() {
	if command -v pre-commit >/dev/null 2>&1; then
		return
	fi
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		log "pre-commit is not on PATH and this is not a root Debian shell: install it (apt-get install pre-commit, or pipx install pre-commit); the pre-commit e2e test fails without it"
		return
	fi
	log "installing pre-commit with apt-get"
	timed "apt-get update" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	timed "apt-get install pre-commit" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends pre-commit
	command -v pre-commit >/dev/null 2>&1 || die "apt-get installed pre-commit, but it is not on PATH"
}

# --- krew -----------------------------------------------------------------------------------
install_krew() {
	local dir="${cache_root}/krew-${KREW_VERSION}" bin mod tmp
	bin="${dir}/bin"
	if [ -x "${bin}/krew" ] && [ -x "${bin}/validate-krew-manifest" ]; then
		echo "$bin"
		return
	fi
	command -v go >/dev/null 2>&1 || die "go is not on PATH; it is needed to build krew"
	mkdir -p "$bin" "${dir}/build"
	exec 8>"${dir}/.lock"
	if command -v flock >/dev/null 2>&1; then
		flock 8
	fi
	if [ -x "${bin}/krew" ] && [ -x "${bin}/validate-krew-manifest" ]; then # built while we waited
		echo "$bin"
		return
	fi
	mod="${dir}/build"
	log "building krew ${KREW_VERSION} in $mod"
	(
		cd "$mod"
		export GOWORK=off GOFLAGS=-buildvcs=false
		if [ ! -f go.mod ]; then
			go mod init kubectl-workload.local/build-krew >&2
		fi
		go get "sigs.k8s.io/krew/cmd/krew@${KREW_VERSION}" "sigs.k8s.io/krew/cmd/validate-krew-manifest@${KREW_VERSION}" >&2
	) || die "go get sigs.k8s.io/krew@${KREW_VERSION} failed (is the module proxy reachable? GOPROXY=$(go env GOPROXY))"
	tmp=$(mktemp -d "${bin}/.build.XXXXXX")
	# krew reports its version from these; a release-like tag also turns off its upgrade check.
	timed "building krew" env GOWORK=off GOFLAGS=-buildvcs=false bash -c 'cd "$1" && go build -o "$2/" -ldflags "$3" \
		sigs.k8s.io/krew/cmd/krew sigs.k8s.io/krew/cmd/validate-krew-manifest' _ "$mod" "$tmp" \
		"-s -w -X sigs.k8s.io/krew/internal/version.gitTag=${KREW_VERSION} -X sigs.k8s.io/krew/internal/version.gitCommit=${KREW_VERSION}"
	mv -f "${tmp}/validate-krew-manifest" "${bin}/validate-krew-manifest"
	mv -f "${tmp}/krew" "${bin}/krew"
	rmdir "$tmp"
	log "installed ${bin}/krew and ${bin}/validate-krew-manifest"
	echo "$bin"
}

# --- helm and kustomize -------------------------------------------------------------------
install_render_tools() {
	local dir="${cache_root}/render-tools-${HELM_VERSION}-${KUSTOMIZE_VERSION}" bin mod tmp
	bin="${dir}/bin"
	if [ -x "${bin}/helm" ] && [ -x "${bin}/kustomize" ]; then
		echo "$bin"
		return
	fi
	command -v go >/dev/null 2>&1 || die "go is not on PATH; it is needed to build helm and kustomize"
	mkdir -p "$bin" "${dir}/build"
	exec 7>"${dir}/.lock"
	if command -v flock >/dev/null 2>&1; then
		flock 7
	fi
	if [ -x "${bin}/helm" ] && [ -x "${bin}/kustomize" ]; then # built while we waited
		echo "$bin"
		return
	fi
	mod="${dir}/build"
	log "building helm ${HELM_VERSION} and kustomize ${KUSTOMIZE_VERSION} in $mod"
	(
		cd "$mod"
		export GOWORK=off GOFLAGS=-buildvcs=false
		if [ ! -f go.mod ]; then
			go mod init kubectl-workload.local/build-render-tools >&2
		fi
		go get "helm.sh/helm/v4/cmd/helm@${HELM_VERSION}" "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}" \
			"sigs.k8s.io/kustomize/api@${KUSTOMIZE_API_VERSION}" >&2
	) || die "go get helm ${HELM_VERSION} / kustomize ${KUSTOMIZE_VERSION} failed (is the module proxy reachable? GOPROXY=$(go env GOPROXY))"
	tmp=$(mktemp -d "${bin}/.build.XXXXXX")
	timed "building helm and kustomize" env GOWORK=off GOFLAGS=-buildvcs=false bash -c 'cd "$1" && go build -o "$2/" -ldflags "-s -w" \
		helm.sh/helm/v4/cmd/helm sigs.k8s.io/kustomize/kustomize/v5' _ "$mod" "$tmp"
	mv -f "${tmp}/helm" "${bin}/helm"
	mv -f "${tmp}/v5" "${bin}/kustomize" 2>/dev/null || mv -f "${tmp}/kustomize" "${bin}/kustomize"
	rm -rf "$tmp"
	log "installed ${bin}/helm and ${bin}/kustomize"
	echo "$bin"
}

# --- SARIF schema ---------------------------------------------------------------------------
# fetch_sarif_package DIR writes the package tarball into DIR and prints its path: with npm
# when there is one, else straight from the registry.
fetch_sarif_package() {
	local dir=$1 name tarball url
	if command -v npm >/dev/null 2>&1; then
		name=$(cd "$dir" && npm pack --silent "${SARIF_PACKAGE}@${SARIF_PACKAGE_VERSION}" 2>/dev/null | tail -n 1) ||
			die "npm pack ${SARIF_PACKAGE}@${SARIF_PACKAGE_VERSION} failed (is the npm registry reachable?)"
		echo "${dir}/${name}"
		return
	fi
	tarball="${dir}/jest-sarif-${SARIF_PACKAGE_VERSION}.tgz"
	url="https://registry.npmjs.org/${SARIF_PACKAGE}/-/jest-sarif-${SARIF_PACKAGE_VERSION}.tgz"
	log "npm is not on PATH; downloading $url"
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL -o "$tarball" "$url" || die "download $url failed"
	else
		python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' "$url" "$tarball" ||
			die "download $url failed (no npm, no curl, and python3 could not fetch it)"
	fi
	echo "$tarball"
}

install_sarif_schema() {
	local dir="${cache_root}/sarif" schema tmp tarball sum
	schema="${dir}/sarif-2.1.0-rtm.5.json"
	if [ -s "$schema" ]; then
		echo "$schema"
		return
	fi
	mkdir -p "$dir"
	tmp=$(mktemp -d "${dir}/.fetch.XXXXXX")
	tarball=$(fetch_sarif_package "$tmp")
	[ -s "$tarball" ] || die "no tarball for ${SARIF_PACKAGE}@${SARIF_PACKAGE_VERSION}"
	sum=$(sha512sum "$tarball" | cut -d' ' -f1)
	[ "$sum" = "$SARIF_PACKAGE_SHA512" ] ||
		die "${SARIF_PACKAGE}@${SARIF_PACKAGE_VERSION}: sha512 $sum, want $SARIF_PACKAGE_SHA512 (the registry's dist.integrity)"
	tar -xzf "$tarball" -C "$tmp" "$SARIF_SCHEMA_PATH" || die "$tarball holds no $SARIF_SCHEMA_PATH"
	mv -f "$tarball" "${dir}/$(basename "$tarball")"
	mv -f "${tmp}/${SARIF_SCHEMA_PATH}" "$schema"
	rm -rf "$tmp"
	log "extracted $schema from ${SARIF_PACKAGE}@${SARIF_PACKAGE_VERSION}"
	echo "$schema"
}

install_pre_commit
krew_bin=$(install_krew)
schema=$(install_sarif_schema)
render_bin=$(install_render_tools)

printf 'export KUBECTL_WORKLOAD_KREW=%q\n' "${krew_bin}/krew"
printf 'export KUBECTL_WORKLOAD_KREW_VALIDATE=%q\n' "${krew_bin}/validate-krew-manifest"
printf 'export KUBECTL_WORKLOAD_SARIF_SCHEMA=%q\n' "$schema"
printf 'export KUBECTL_WORKLOAD_HELM=%q\n' "${render_bin}/helm"
printf 'export KUBECTL_WORKLOAD_KUSTOMIZE=%q\n' "${render_bin}/kustomize"
