#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Instructions per call on the Hermon PMD fast path, counted by callgrind:
# post of a 64 B inline RDMA WRITE and poll of one CQE, against the device
# model, side by side with baselines measured in the same run (an rte_ring
# enqueue+dequeue of one pointer, a 64-byte memcpy).
#
# usage: bench/hermon-ipc.sh [build-dir] [iterations]
set -eu

build=${1:-build}
iters=${2:-300}
exe=$build/tests/hermon/hermon-bench-ipc
[ -x "$exe" ] || { echo "hermon-ipc: $exe not built (ninja -C $build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "hermon-ipc: valgrind not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One callgrind run counting the inclusive instructions of every function of
# interest; callgrind_annotate gives each function's inclusive total.
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
	--toggle-collect=bench_post_one --toggle-collect=bench_poll_one \
	--toggle-collect=bench_ring_one --toggle-collect=bench_memcpy_one \
	"$exe" "$iters" >"$out/run.log" 2>&1 || {
	echo "hermon-ipc: benchmark failed:" >&2; tail -5 "$out/run.log" >&2; exit 1; }

callgrind_annotate --inclusive=yes "$out/cg.out" >"$out/ann.txt" 2>/dev/null
per_call() {
	ir=$(awk -v f="$1" '$0 ~ (":" f " ") || $0 ~ (":" f "$") || $0 ~ (" " f " ") {
		gsub(",", "", $1); print $1; exit }' "$out/ann.txt")
	[ -n "$ir" ] || ir=0
	echo "$ir $iters" | awk '{ printf "%.1f", $1 / $2 }'
}
post=$(per_call bench_post_one)
poll=$(per_call bench_poll_one)
ring=$(per_call bench_ring_one)
mcpy=$(per_call bench_memcpy_one)
pair=$(echo "$post $poll" | awk '{ printf "%.1f", $1 + $2 }')

printf '%-44s %12s\n' "callgrind, $iters iterations" "instr/call"
printf '%-44s %12s\n' "hermon post: 64 B inline RDMA WRITE" "$post"
printf '%-44s %12s\n' "hermon poll: one CQE" "$poll"
printf '%-44s %12s\n' "hermon post + poll (target <= 150)" "$pair"
printf '%-44s %12s\n' "baseline: rte_ring enqueue+dequeue (1 ptr)" "$ring"
printf '%-44s %12s\n' "baseline: memcpy 64 B" "$mcpy"
