#!/usr/bin/env bash
# Side-by-side benchmark of `kubectl workload lint` against the linters people
# would pick instead, on the same generated corpora, on this machine, in one
# run. Not part of CI.
#
#   hack/bench-peers.sh                 # 10k side by side, 100k (ours), pre-commit set
#   ROUNDS_10K=3 SIZES=10k hack/bench-peers.sh
#
# Peers are installed with `go install` at pinned versions from the Go module
# proxy into ~/.cache/kubectl-workload/peers/<tool>-<version>. A peer the proxy
# does not serve is reported and left out of the table. Runs alternate: each
# round runs every tool once, the starting tool rotating, so that a slower or
# busier stretch of time is shared. Each tool is executed directly (no
# shell in between); peak RSS comes from /usr/bin/time, and wall time from
# bash's microsecond clock around it. The table gives medians and each
# peer's ratio to ours.
#
# Environment:
#   SIZES             which sets to run: any of 10k 100k precommit fixtures (default: all four)
#   SHAPES            the corpus shapes of the 10k and 100k sets (bench/gencorpus -shape): any of
#                     bench repo services one-namespace (default: all four)
#   ROUNDS_10K        rounds on the 10,000-object corpus (default 5)
#   ROUNDS_100K       rounds on the 100,000-object corpus (default 3)
#   ROUNDS_PRECOMMIT  rounds on the pre-commit set of 5 files (default 20)
#   PEERS_100K        also run the peers on the 100,000-object corpus (default 0)
#   PEERS             which peers to run, of those installed (default: kube-score
#                     kubeconform kube-linter polaris)
#   FLOOR             1: also run "api-tier", ours with every built-in rule disabled by a config
#                     file (decoding, defaulting and the API server's validation, positions and
#                     the input checks only): the floor under lint with every default rule
#                     (default 0)
#   WORK              scratch directory (default: a new one under /tmp, removed at exit)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-workload/peers
SIZES=${SIZES:-10k 100k precommit fixtures}
SHAPES=${SHAPES:-bench repo services one-namespace}
ROUNDS_10K=${ROUNDS_10K:-5}
ROUNDS_100K=${ROUNDS_100K:-3}
ROUNDS_PRECOMMIT=${ROUNDS_PRECOMMIT:-20}
PEERS_100K=${PEERS_100K:-0}
FLOOR=${FLOOR:-0}

# Pinned peers: name, version, go install package, binary.
KUBE_SCORE_VERSION=v1.20.0
KUBE_LINTER_VERSION=v0.7.6
POLARIS_VERSION=v9.6.1
KUBECONFORM_VERSION=v0.8.0
# kubeconform's schemas: generated offline from the v1.37.1 OpenAPI document by
# bench/schemagen and pinned in the repository (standalone-strict, the kinds of the corpora
# and of the differential test's fixtures).
KUBECONFORM_SCHEMAS="$ROOT/bench/testdata/kubeconform-schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json"

if [[ -z ${WORK:-} ]]; then
	WORK=$(mktemp -d /tmp/kw-bench-peers.XXXXXX)
	trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK" "$CACHE"

if [[ ! -x /usr/bin/time ]]; then
	echo "installing GNU time (apt-get install -y time)" >&2
	apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
fi

log() { echo "bench-peers: $*" >&2; }

# install NAME VERSION PACKAGE BINARY: go install into the cache once; prints
# the binary's path, or nothing when the proxy does not serve it or it does
# not build.
install() {
	local name=$1 version=$2 pkg=$3
	local dir=$CACHE/$name-$version
	local bin=$dir/$4
	if [[ ! -x $bin ]]; then
		log "installing $name $version ($pkg@$version)"
		if ! (cd "$WORK" && GOBIN=$dir GOFLAGS=-mod=mod go install "$pkg@$version") >"$WORK/install-$name.log" 2>&1; then
			log "$name $version is not available here: $(tail -n 1 "$WORK/install-$name.log")"
			return 0
		fi
	fi
	echo "$bin"
}

KUBE_SCORE=$(install kube-score "$KUBE_SCORE_VERSION" github.com/zegl/kube-score/cmd/kube-score kube-score)
KUBE_LINTER=$(install kube-linter "$KUBE_LINTER_VERSION" golang.stackrox.io/kube-linter/cmd/kube-linter kube-linter)
POLARIS=$(install polaris "$POLARIS_VERSION" github.com/fairwindsops/polaris/v9 polaris)
KUBECONFORM=$(install kubeconform "$KUBECONFORM_VERSION" github.com/yannh/kubeconform/cmd/kubeconform kubeconform)

# Built as hack/dist.sh builds the release binaries krew installs: static
# (CGO_ENABLED=0), -trimpath, no symbol table. A cgo build links Go's plugin
# package (kustomize's, through cli-runtime) dynamically, exporting every
# symbol: 30 MB more binary and 5-8 ms more start-up per run.
log "building kubectl-workload"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/kubectl-workload" ./cmd/kubectl-workload)
KW=$WORK/kubectl-workload

# Checks each tool runs.
kw_rules=$("$KW" lint --list-rules | awk 'NR > 1 && $1 !~ /^(api|input|ignore)\// {n++} END {print n}')
kw_api=$("$KW" lint --list-rules | awk '$1 ~ /^api\// {n++} END {print n}')
kw_input=$("$KW" lint --list-rules | awk '$1 ~ /^input\// {n++} END {print n}')
declare -A CHECKS
CHECKS[kubectl-workload]="$((kw_rules + kw_api + kw_input)): $kw_rules built-in rules, API-server validation ($kw_api finding types), $kw_input input checks"
[[ -n $KUBE_SCORE ]] && CHECKS[kube-score]="$("$KUBE_SCORE" list | awk -F, '$4 == "default" {n++} END {print n}') (default checks; $("$KUBE_SCORE" list | awk -F, '$4 != "default" {n++} END {print n+0}') optional off)"
[[ -n $KUBE_LINTER ]] && CHECKS[kube-linter]="$("$KUBE_LINTER" checks list --format plain 2>/dev/null | grep -c '^Name:' || echo '?') (built-in)"
[[ -n $POLARIS ]] && CHECKS[polaris]="(built-in)"
[[ -n $KUBECONFORM ]] && CHECKS[kubeconform]="JSON schema only, -strict ($(find "$ROOT/bench/testdata/kubeconform-schemas" -name '*.json' | wc -l) kinds, standalone-strict from the v1.37.1 OpenAPI document)"
declare -A VERSION=([kubectl-workload]=$(cd "$ROOT" && git rev-parse --short HEAD) [kube-score]=$KUBE_SCORE_VERSION
	[kube-linter]=$KUBE_LINTER_VERSION [polaris]=$POLARIS_VERSION [kubeconform]=$KUBECONFORM_VERSION)
# The floor (FLOOR=1): a configuration that disables every rule family but api/* and input/*.
FLOOR_CONFIG=$WORK/api-tier.yaml
{
	echo "rules:"
	echo "  disable:"
	"$KW" lint --list-rules | awk 'NR > 1 {split($1, p, "/"); if (p[1] != "api" && p[1] != "input") print p[1]}' | sort -u | sed 's|.*|    - "&/*"|'
} >"$FLOOR_CONFIG"
VERSION[api-tier]=${VERSION[kubectl-workload]}
CHECKS[api-tier]="$((kw_api + kw_input)): ours with every built-in rule disabled (API-server validation, input checks)"

# tool_cmd TOOL CORPUS FILELIST: sets CMD to the command line of one run.
# kube-score gets the object files only (not the broken templates-*.yaml):
# it gives up on the whole run at an unparsable document. Every tool sees
# every object.
tool_cmd() {
	local tool=$1 corpus=$2 list=$3
	case $tool in
	kubectl-workload) CMD=("$KW" lint -o json "$corpus") ;;
	api-tier) CMD=("$KW" lint --config "$FLOOR_CONFIG" -o json "$corpus") ;;
	kube-score) CMD=(xargs -a "$list" -d '\n' -s 2000000 "$KUBE_SCORE" score --output-format ci) ;;
	kube-linter) CMD=("$KUBE_LINTER" lint --format plain "$corpus") ;;
	polaris) CMD=("$POLARIS" audit --audit-path "$corpus" --format score) ;;
	kubeconform) CMD=("$KUBECONFORM" -strict -summary -schema-location "$KUBECONFORM_SCHEMAS" "$corpus") ;;
	esac
}

# timed SET TOOL CMD...: runs the command once under /usr/bin/time and
# appends "tool wall rss" to $WORK/SET.times. The command is executed
# directly, with no shell in between; the wall time is taken around it with
# bash's microsecond clock (/usr/bin/time prints only hundredths), so it
# includes starting /usr/bin/time itself, about a millisecond.
timed() {
	local set=$1 tool=$2
	shift 2
	local t0=$EPOCHREALTIME
	# Exit status 1 means findings, for every tool here.
	/usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" >"$WORK/$tool.out" 2>"$WORK/$tool.err" || true
	local t1=$EPOCHREALTIME
	local rss wall
	rss=$(grep -E '^[0-9.]+ [0-9]+$' "$WORK/time.out" | tail -n 1 | cut -d' ' -f2)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
	echo "$tool $wall $rss" >>"$WORK/$set.times"
	LAST="$wall $rss"
}

# measure SET CORPUS ROUNDS TOOL...: alternating rounds; appends "tool wall rss"
# lines to $WORK/SET.times.
measure() {
	local set=$1 corpus=$2 rounds=$3
	shift 3
	local tools=("$@") list=$WORK/$set.files n=${#tools[@]}
	find "$corpus" -name '*.yaml' ! -name 'templates-*' | sort >"$list"
	: >"$WORK/$set.times"
	for ((r = 0; r < rounds; r++)); do
		for ((k = 0; k < n; k++)); do
			local tool=${tools[$(((r + k) % n))]}
			tool_cmd "$tool" "$corpus" "$list"
			timed "$set" "$tool" "${CMD[@]}"
			read -r wall rss <<<"$LAST"
			log "$set round $((r + 1))/$rounds: $tool ${wall}s $((rss / 1024)) MB"
		done
	done
}

# table SET TITLE: the markdown table of a set's medians and ratios to ours.
table() {
	local set=$1 title=$2
	echo
	echo "### $title"
	echo
	echo "| tool | version | checks enabled | median wall | median peak RSS | wall vs ours | RSS vs ours |"
	echo "|---|---|---|---|---|---|---|"
	awk -v kw=kubectl-workload '
		function median(a, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ n[$1]++; w[$1, n[$1]] = $2; m[$1, n[$1]] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
		END {
			for (t in n) {
				for (i = 1; i <= n[t]; i++) { a[i] = w[t, i]; b[i] = m[t, i] }
				mw[t] = median(a, n[t]); mm[t] = median(b, n[t])
			}
			for (i = 1; i <= k; i++) {
				t = order[i]
				printf "%s\t%.3f s\t%.0f MB\t%.2f×\t%.2f×\t%d\n", t, mw[t], mm[t] / 1024, mw[t] / mw[kw], mm[t] / mm[kw], n[t]
			}
		}' "$WORK/$set.times" | while IFS=$'\t' read -r tool wall rss wr mr runs; do
		echo "| $tool | ${VERSION[$tool]} | ${CHECKS[$tool]} | $wall ($runs runs) | $rss | $wr | $mr |"
	done
}

median_of() { # median_of SET TOOL: the median wall time, in seconds
	awk -v t="$2" '$1 == t {a[++n] = $2} END {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		print n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }' "$WORK/$1.times"
}

peers=(kubectl-workload)
[[ $FLOOR == 1 ]] && peers+=(api-tier)
for t in ${PEERS:-kube-score kubeconform kube-linter polaris}; do
	case $t in
	kube-score) [[ -n $KUBE_SCORE ]] && peers+=("$t") ;;
	kubeconform) [[ -n $KUBECONFORM ]] && peers+=("$t") ;;
	kube-linter) [[ -n $KUBE_LINTER ]] && peers+=("$t") ;;
	polaris) [[ -n $POLARIS ]] && peers+=("$t") ;;
	esac
done

echo "## kubectl workload lint, side by side ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(go env GOVERSION), load average $(cut -d' ' -f1-3 /proc/loadavg))"
for t in kube-linter polaris; do
	case $t in
	kube-linter) [[ -z $KUBE_LINTER ]] && echo && echo "- kube-linter $KUBE_LINTER_VERSION: not in the table, the Go module proxy does not serve it here ($(tail -n 1 "$WORK/install-kube-linter.log" 2>/dev/null))." ;;
	polaris) [[ -z $POLARIS ]] && echo "- polaris $POLARIS_VERSION: not in the table, the Go module proxy does not serve it here ($(tail -n 1 "$WORK/install-polaris.log" 2>/dev/null))." ;;
	esac
done

for size in $SIZES; do
	case $size in
	10k)
		for shape in $SHAPES; do
			(cd "$ROOT" && go run ./bench/gencorpus -shape "$shape" -n 10000 -o "$WORK/c10k-$shape") >&2
			measure "10k-$shape" "$WORK/c10k-$shape" "$ROUNDS_10K" "${peers[@]}"
			table "10k-$shape" "10,000 objects, $shape shape ($(du -sh "$WORK/c10k-$shape" | cut -f1), $(find "$WORK/c10k-$shape" -name '*.yaml' | wc -l) files), $ROUNDS_10K alternating rounds"
		done
		;;
	100k)
		for shape in $SHAPES; do
			(cd "$ROOT" && go run ./bench/gencorpus -shape "$shape" -n 100000 -o "$WORK/c100k") >&2
			if [[ $PEERS_100K == 1 ]]; then
				measure "100k-$shape" "$WORK/c100k" "$ROUNDS_100K" "${peers[@]}"
			else
				measure "100k-$shape" "$WORK/c100k" "$ROUNDS_100K" kubectl-workload
			fi
			table "100k-$shape" "100,000 objects, $shape shape ($(du -sh "$WORK/c100k" | cut -f1)), $ROUNDS_100K rounds"
			if [[ -s $WORK/10k-$shape.times ]]; then
				t10=$(median_of "10k-$shape" kubectl-workload)
				t100=$(median_of "100k-$shape" kubectl-workload)
				echo
				echo "Linearity ($shape): 100k / 10k wall = $(awk -v a="$t100" -v b="$t10" 'BEGIN {printf "%.2f", a / b}')× (linear is 10×; the target is at most 12×)."
			fi
			rm -rf "$WORK/c100k"
		done
		;;
	fixtures)
		# The API server's verdicts: test/e2e's differential fixtures, one object per file,
		# under invalid/ (the server rejects it; test/e2e checks that against a real
		# kube-apiserver) and valid/ (it accepts it). Which of them each tool flags.
		fx=$ROOT/test/e2e/testdata/differential
		# Ours: a file with an api/* error (the differential test's criterion); the text output
		# is FILE:LINE:COL: SEVERITY RULE: MESSAGE.
		kw_flagged=$("$KW" lint "$fx/invalid" "$fx/valid" 2>/dev/null | awk -F': ' '$2 ~ /^error api\// {sub(/:[0-9]+:[0-9]+$/, "", $1); print $1}' | sort -u || true)
		echo
		echo "### API server rejections caught (test/e2e/testdata/differential: $(find "$fx/invalid" -name '*.yaml' | wc -l) rejected, $(find "$fx/valid" -name '*.yaml' | wc -l) accepted)"
		echo
		echo "| tool | rejected objects flagged | accepted objects flagged (false alarms) |"
		echo "|---|---|---|"
		echo "| kubectl-workload | $(grep -c '/invalid/' <<<"$kw_flagged") | $(grep -c '/valid/' <<<"$kw_flagged") |"
		if [[ -n $KUBECONFORM ]]; then
			kc_flagged=$("$KUBECONFORM" -strict -schema-location "$KUBECONFORM_SCHEMAS" "$fx/invalid" "$fx/valid" 2>/dev/null | sed -n 's/^\(.*\.yaml\) - .* \(is invalid\|failed validation\): .*$/\1/p; s/^\(.*\.yaml\) - .*could not find schema.*$/\1/p' | sort -u || true)
			echo "| kubeconform $KUBECONFORM_VERSION | $(grep -c '/invalid/' <<<"$kc_flagged") | $(grep -c '/valid/' <<<"$kc_flagged") |"
			echo
			echo "Rejections kubeconform flags that kubectl-workload does not: $(comm -23 <(grep '/invalid/' <<<"$kc_flagged") <(grep '/invalid/' <<<"$kw_flagged") | wc -l)."
		fi
		;;
	precommit)
		(cd "$ROOT" && go run ./bench/gencorpus -precommit -o "$WORK/pre") >&2
		measure precommit "$WORK/pre" "$ROUNDS_PRECOMMIT" "${peers[@]}"
		# The floor: starting the binary at all (no linting).
		: >"$WORK/floor.times"
		for ((r = 0; r < ROUNDS_PRECOMMIT; r++)); do
			timed floor kubectl-workload "$KW" version
		done
		table precommit "Pre-commit set: 5 files, 50 objects, $ROUNDS_PRECOMMIT alternating rounds (process start included)"
		echo
		echo "Process start alone (\`kubectl-workload version\`, median of $ROUNDS_PRECOMMIT): $(median_of floor kubectl-workload) s."
		;;
	*)
		echo "unknown size $size (want 10k, 100k, precommit or fixtures)" >&2
		exit 2
		;;
	esac
done
