#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# BlueFlame against the doorbell on the Hermon PMD (issue 14 item 5), in
# one run: the same benchmark as bench/hermon-ipc.sh on a model that has
# BlueFlame, once with the PMD using it (the default) and once with bf=0.
# Per mode: callgrind instructions of one prdma_post_send of a 64 B inline
# RDMA WRITE and of one poll, then, without valgrind, the round trip from
# the post to its CQE seen on the model (TSC; the model is a thread on
# another core, so this is the model's reaction time, not a card's).
#
# usage: bench/hermon-bf.sh [build-dir] [callgrind-iterations] [native-iterations]
set -eu

build=${1:-build}
iters=${2:-300}
niters=${3:-20000}
exe=$build/tests/hermon/hermon-bench-ipc
[ -x "$exe" ] || { echo "hermon-bf: $exe not built (ninja -C $build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "hermon-bf: valgrind not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# instructions per call of function $2 in callgrind annotation $1
per_call() {
	ir=$(awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") || $0 ~ (" " f " ") {
		gsub(",", "", $1); print $1; exit }' "$1")
	[ -n "$ir" ] || ir=0
	echo "$ir $iters" | awk '{ printf "%.1f", $1 / $2 }'
}

# mode name, devargs suffix: "post poll rt_avg_ns rt_min_ns"
run() {
	valgrind --tool=callgrind --callgrind-out-file="$out/$1.cg" \
		--toggle-collect=bench_post_one --toggle-collect=bench_poll_one \
		"$exe" "$iters" "$2" >"$out/$1.cg.log" 2>&1 || {
		echo "hermon-bf: $1 under callgrind failed:" >&2; tail -5 "$out/$1.cg.log" >&2; exit 1; }
	callgrind_annotate --threshold=100 --inclusive=yes "$out/$1.cg" >"$out/$1.ann" 2>/dev/null
	"$exe" "$niters" "$2" >"$out/$1.log" 2>&1 || {
		echo "hermon-bf: $1 failed:" >&2; tail -5 "$out/$1.log" >&2; exit 1; }
	grep -q "target ok" "$out/$1.log" || { echo "hermon-bf: $1: wrong data" >&2; exit 1; }
	rt=$(awk '/^round trip/ { print $10, $12 }' "$out/$1.log")
	echo "$(per_call "$out/$1.ann" bench_post_one) $(per_call "$out/$1.ann" bench_poll_one) $rt"
}

set -- $(run bf ",model_bf=1") $(run db ",model_bf=1,bf=0")
printf '%-44s %12s %12s\n' "64 B inline RDMA WRITE, model with BlueFlame" "BlueFlame" "doorbell"
printf '%-44s %12s %12s\n' "post, instructions (callgrind, $iters)" "$1" "$5"
printf '%-44s %12s %12s\n' "poll, instructions" "$2" "$6"
printf '%-44s %12s %12s\n' "round trip on the model, avg ns ($niters)" "$3" "$7"
printf '%-44s %12s %12s\n' "round trip on the model, min ns" "$4" "$8"
