#!/usr/bin/env bash
# install-control-plane.sh [BINARY...]
#
# Builds the control-plane binaries the end-to-end tests run, from the Go module proxy
# alone, and caches them. The directory that holds them is printed on the last line of
# stdout, so a caller can write:
#
#   KUBECTL_WORKLOAD_E2E_BIN=$(hack/install-control-plane.sh)
#
# BINARY is any of: etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok
# (default: etcd kube-apiserver kubectl). A binary already in the cache is not rebuilt, so a
# cache hit costs a file test. Everything else (build logs) goes to stderr.
#
# Cache: ${KUBECTL_WORKLOAD_CACHE:-$HOME/.cache/kubectl-workload}/k8s-${KUBERNETES_VERSION}/
#   bin/        the binaries
#   build/      throwaway Go modules the binaries are built in (never the repository's)
#
# Why throwaway modules:
#   - etcd's server module has replace directives, so `go install ...@v3.6.x` is refused;
#     building it as a dependency of a scratch module works.
#   - k8s.io/kubernetes requires its staging modules (k8s.io/api, ...) at v0.0.0 and replaces
#     them with ./staging paths; a consumer must replace each with its published v0.MINOR.PATCH.
#   - Without version ldflags the binaries report v0.0.0-master+$Format:%H$, which breaks
#     version detection (kubectl skew checks, discovery).
set -euo pipefail

KUBERNETES_VERSION=v1.37.1
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.7.0

all_binaries=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok)
default_binaries=(etcd kube-apiserver kubectl)

die() {
	echo "install-control-plane: $*" >&2
	exit 1
}

log() {
	echo "install-control-plane: $*" >&2
}

usage() {
	echo "usage: $0 [BINARY...]" >&2
	echo "  BINARY: ${all_binaries[*]}" >&2
	echo "  default: ${default_binaries[*]}" >&2
}

if [ $# -eq 0 ]; then
	set -- "${default_binaries[@]}"
fi
for b in "$@"; do
	case "$b" in
	-h | --help)
		usage
		exit 0
		;;
	etcd | kube-apiserver | kubectl | kube-controller-manager | kube-scheduler | kwok) ;;
	*)
		echo "install-control-plane: unknown binary \"$b\"" >&2
		usage
		exit 2
		;;
	esac
done

if ! [[ $KUBERNETES_VERSION =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
	die "malformed KUBERNETES_VERSION $KUBERNETES_VERSION"
fi
k8s_minor=${BASH_REMATCH[1]}
staging_version="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

cache_root=${KUBECTL_WORKLOAD_CACHE:-${HOME:?HOME is not set and KUBECTL_WORKLOAD_CACHE is empty}/.cache/kubectl-workload}
# The builds cd into the throwaway modules; every path must be absolute.
case "$cache_root" in
/*) ;;
*) cache_root="${PWD}/${cache_root}" ;;
esac
version_dir="${cache_root}/k8s-${KUBERNETES_VERSION}"
bin_dir="${version_dir}/bin"
build_dir="${version_dir}/build"

# Fast path: everything requested is already there. No go, no lock.
missing=()
for b in "$@"; do
	if [ ! -x "${bin_dir}/${b}" ]; then
		missing+=("$b")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "$bin_dir"
	exit 0
fi

command -v go >/dev/null 2>&1 || die "go is not on PATH; it is needed to build ${missing[*]}"
mkdir -p "$bin_dir" "$build_dir" || die "cannot create $bin_dir"

# The throwaway modules must not see a go.work from a parent directory nor a -mod flag
# meant for the repository.
export GOWORK=off
export GOFLAGS="-buildvcs=false"

# One build at a time per cache: two concurrent runs (for example two test packages)
# would otherwise both spend minutes building the same binary.
exec 9>"${version_dir}/.lock"
if command -v flock >/dev/null 2>&1; then
	if ! flock -n 9; then
		log "waiting for another install-control-plane run to release ${version_dir}/.lock"
		flock 9
	fi
fi

# install_file SRC NAME moves a freshly built SRC into the cache atomically (same filesystem).
install_file() {
	local src=$1 name=$2
	[ -s "$src" ] || die "build of $name produced no file"
	chmod 0755 "$src"
	mv -f "$src" "${bin_dir}/${name}"
	log "installed ${bin_dir}/${name}"
}

# tmp_out NAME prints a temp file path in bin_dir for NAME; it is removed on exit if left over.
tmp_files=()
cleanup() {
	local f
	for f in "${tmp_files[@]+"${tmp_files[@]}"}"; do
		rm -rf "$f"
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tmp_out() {
	local f
	f=$(mktemp "${bin_dir}/.${1}.XXXXXX") || die "cannot create a temp file in $bin_dir"
	tmp_files+=("$f")
	echo "$f"
}

# timed NAME CMD... runs CMD with its output on stderr and logs how long it took.
timed() {
	local name=$1 start end
	shift
	start=$(date +%s)
	"$@" >&2 || die "building $name failed (command: $*)"
	end=$(date +%s)
	log "built $name in $((end - start))s"
}

build_etcd() {
	local mod="${build_dir}/etcd-${ETCD_VERSION}" out
	mkdir -p "$mod"
	if [ ! -f "${mod}/go.mod" ]; then
		(cd "$mod" && go mod init kubectl-workload.local/build-etcd >&2) || die "go mod init in $mod failed"
	fi
	log "building etcd ${ETCD_VERSION} in $mod"
	(cd "$mod" && go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" >&2) ||
		die "go get go.etcd.io/etcd/server/v3@${ETCD_VERSION} failed (is the module proxy reachable? GOPROXY=$(go env GOPROXY))"
	out=$(tmp_out etcd)
	timed etcd bash -c 'cd "$1" && go build -o "$2" go.etcd.io/etcd/server/v3' _ "$mod" "$out"
	install_file "$out" etcd
}

# k8s_module prepares (once) the throwaway module that builds k8s.io/kubernetes commands and
# prints its directory.
k8s_module() {
	local mod="${build_dir}/kubernetes-${KUBERNETES_VERSION}" gomod modules m args=()
	if [ -f "${mod}/.ready" ]; then
		echo "$mod"
		return
	fi
	rm -rf "$mod"
	mkdir -p "$mod"
	gomod=$(cd "$mod" && go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" |
		sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p') ||
		die "go mod download k8s.io/kubernetes@${KUBERNETES_VERSION} failed (is the module proxy reachable?)"
	[ -n "$gomod" ] && [ -f "$gomod" ] || die "cannot find the go.mod of k8s.io/kubernetes@${KUBERNETES_VERSION}"
	modules=$(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*$#\1#p' "$gomod" | sort -u)
	[ -n "$modules" ] || die "no staging replace directives in $gomod"
	for m in $modules; do
		args+=("-replace=${m}=${m}@${staging_version}")
	done
	(
		cd "$mod"
		go mod init kubectl-workload.local/build-kubernetes >&2
		go mod edit "${args[@]}" -require="k8s.io/kubernetes@${KUBERNETES_VERSION}"
	) || die "cannot set up the build module in $mod"
	touch "${mod}/.ready"
	echo "$mod"
}

build_k8s() {
	local name=$1 mod out pkg ldflags v
	mod=$(k8s_module)
	pkg="k8s.io/kubernetes/cmd/${name}"
	ldflags="-s -w"
	# Both packages carry a copy of the version; upstream's hack/lib/version.sh sets both.
	for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X ${v}.gitVersion=${KUBERNETES_VERSION}"
		ldflags+=" -X ${v}.gitMajor=1 -X ${v}.gitMinor=${k8s_minor}"
		ldflags+=" -X ${v}.gitTreeState=clean"
	done
	log "building ${name} ${KUBERNETES_VERSION} in $mod"
	(cd "$mod" && go get "${pkg}@${KUBERNETES_VERSION}" >&2) || die "go get ${pkg}@${KUBERNETES_VERSION} failed"
	out=$(tmp_out "$name")
	timed "$name" bash -c 'cd "$1" && go build -o "$2" -ldflags "$3" "$4"' _ "$mod" "$out" "$ldflags" "$pkg"
	install_file "$out" "$name"
}

build_kwok() {
	local gobin
	gobin=$(mktemp -d "${bin_dir}/.kwok-gobin.XXXXXX") || die "cannot create a temp dir in $bin_dir"
	tmp_files+=("$gobin")
	log "building kwok ${KWOK_VERSION}"
	timed kwok bash -c 'cd "$1" && GOBIN="$2" go install "sigs.k8s.io/kwok/cmd/kwok@$3"' _ "$build_dir" "$gobin" "$KWOK_VERSION"
	install_file "${gobin}/kwok" kwok
}

for b in "${missing[@]}"; do
	# Another run may have built it while this one waited for the lock.
	if [ -x "${bin_dir}/${b}" ]; then
		continue
	fi
	case "$b" in
	etcd) build_etcd ;;
	kwok) build_kwok ;;
	*) build_k8s "$b" ;;
	esac
done

echo "$bin_dir"
