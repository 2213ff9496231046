#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Instructions per call on the Hermon PMD fast path, counted by callgrind:
# post of a 64 B inline RDMA WRITE and poll of one CQE, against the device
# model, side by side with baselines measured in the same run (an rte_ring
# enqueue+dequeue of one pointer, a 64-byte memcpy). The same request is
# also posted in bursts of 16 through prdma_post_send_burst and its CQEs
# polled in one call: that pair is printed per request. Last, the same
# request from a work-request template (prdma_post_template), one post and
# its CQE, and sixteen template posts with one poll of their sixteen CQEs
# (every request signaled), per request, and the sixteen in one
# prdma_post_template_burst with one poll of their CQEs.
#
# usage: bench/hermon-ipc.sh [build-dir] [iterations] [before-build-dir]
# With a third argument the same figures of a second build (an older tree)
# are measured in the same run and printed in a "before" column.
set -eu

build=${1:-build}
iters=${2:-300}
before=${3:-}
command -v valgrind >/dev/null || { echo "hermon-ipc: valgrind not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One callgrind run of the benchmark built in $1, counting the inclusive
# instructions of every function of interest into $out/$2.ann.
measure() {
	exe=$1/tests/hermon/hermon-bench-ipc
	[ -x "$exe" ] || { echo "hermon-ipc: $exe not built (ninja -C $1)" >&2; exit 1; }
	valgrind --tool=callgrind --callgrind-out-file="$out/$2.cg" \
		--toggle-collect=bench_post_one --toggle-collect=bench_poll_one \
		--toggle-collect=bench_ring_one --toggle-collect=bench_memcpy_one \
		--toggle-collect=bench_post_burst --toggle-collect=bench_poll_burst \
		--toggle-collect=bench_post_burst_sel --toggle-collect=bench_poll_burst_sel \
		--toggle-collect=bench_post_tmpl --toggle-collect=bench_poll_tmpl \
		--toggle-collect=bench_post_tmpl16 --toggle-collect=bench_poll_tmpl16 \
		--toggle-collect=bench_post_tmpl_burst --toggle-collect=bench_poll_tmpl_burst \
		"$exe" "$iters" >"$out/$2.log" 2>&1 || {
		echo "hermon-ipc: benchmark in $1 failed:" >&2; tail -5 "$out/$2.log" >&2; exit 1; }
	callgrind_annotate --threshold=100 --inclusive=yes "$out/$2.cg" >"$out/$2.ann" 2>/dev/null
}

# instructions per call of function $2 in run $1, divided by $3 (default 1)
per_call() {
	ir=$(awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") || $0 ~ (" " f " ") {
		gsub(",", "", $1); print $1; exit }' "$out/$1.ann")
	[ -n "$ir" ] || ir=0
	echo "$ir $iters ${3:-1}" | awk '{ printf "%.1f", $1 / $2 / $3 }'
}

burst=16

# figures of run $1 as "post poll pair ring memcpy bpost bpoll bpair spair
# tpost tpoll tpair t16post t16poll t16pair tbpost tbpoll tbpair" (the b*, s*,
# t16* and tb* figures per
# request; 0 for a build without the burst or the templates)
figures() {
	post=$(per_call "$1" bench_post_one)
	poll=$(per_call "$1" bench_poll_one)
	pair=$(echo "$post $poll" | awk '{ printf "%.1f", $1 + $2 }')
	bpost=$(per_call "$1" bench_post_burst $burst)
	bpoll=$(per_call "$1" bench_poll_burst $burst)
	bpair=$(echo "$bpost $bpoll" | awk '{ printf "%.1f", $1 + $2 }')
	spost=$(per_call "$1" bench_post_burst_sel $burst)
	spoll=$(per_call "$1" bench_poll_burst_sel $burst)
	spair=$(echo "$spost $spoll" | awk '{ printf "%.1f", $1 + $2 }')
	tpost=$(per_call "$1" bench_post_tmpl)
	tpoll=$(per_call "$1" bench_poll_tmpl)
	tpair=$(echo "$tpost $tpoll" | awk '{ printf "%.1f", $1 + $2 }')
	t16post=$(per_call "$1" bench_post_tmpl16 $burst)
	t16poll=$(per_call "$1" bench_poll_tmpl16 $burst)
	t16pair=$(echo "$t16post $t16poll" | awk '{ printf "%.1f", $1 + $2 }')
	tbpost=$(per_call "$1" bench_post_tmpl_burst $burst)
	tbpoll=$(per_call "$1" bench_poll_tmpl_burst $burst)
	tbpair=$(echo "$tbpost $tbpoll" | awk '{ printf "%.1f", $1 + $2 }')
	echo "$post $poll $pair $(per_call "$1" bench_ring_one) $(per_call "$1" bench_memcpy_one)" \
		"$bpost $bpoll $bpair $spair $tpost $tpoll $tpair $t16post $t16poll $t16pair" \
		"$tbpost $tbpoll $tbpair"
}

measure "$build" now
set -- $(figures now)
if [ -z "$before" ]; then
	printf '%-44s %12s\n' "callgrind, $iters iterations" "instr/call"
	printf '%-44s %12s\n' "hermon post: 64 B inline RDMA WRITE" "$1"
	printf '%-44s %12s\n' "hermon poll: one CQE" "$2"
	printf '%-44s %12s\n' "hermon post + poll" "$3"
	printf '%-44s %12s\n' "burst of $burst: post, per request" "$6"
	printf '%-44s %12s\n' "burst of $burst: poll, per CQE" "$7"
	printf '%-44s %12s\n' "burst of $burst: post + poll (target <= 150)" "$8"
	printf '%-44s %12s\n' "burst of $burst, last signaled: post + poll" "$9"
	printf '%-44s %12s\n' "template: post" "${10}"
	printf '%-44s %12s\n' "template: poll of its CQE" "${11}"
	printf '%-44s %12s\n' "template: post + poll (target <= 150)" "${12}"
	printf '%-44s %12s\n' "16 template posts: post, per request" "${13}"
	printf '%-44s %12s\n' "16 template posts: poll, per CQE" "${14}"
	printf '%-44s %12s\n' "16 template posts: post + poll (<= 150)" "${15}"
	printf '%-44s %12s\n' "template burst of $burst: post, per request" "${16}"
	printf '%-44s %12s\n' "template burst of $burst: poll, per CQE" "${17}"
	printf '%-44s %12s\n' "template burst: post + poll (<= 150)" "${18}"
	printf '%-44s %12s\n' "baseline: rte_ring enqueue+dequeue (1 ptr)" "$4"
	printf '%-44s %12s\n' "baseline: memcpy 64 B" "$5"
	exit 0
fi
# Before/after in one run: the same benchmark built from another tree.
measure "$before" before
now="$*"
set -- $(figures before) $now
printf '%-44s %10s %10s\n' "callgrind, $iters iterations, instr/call" "before" "after"
printf '%-44s %10s %10s\n' "hermon post: 64 B inline RDMA WRITE" "$1" "${19}"
printf '%-44s %10s %10s\n' "hermon poll: one CQE" "$2" "${20}"
printf '%-44s %10s %10s\n' "hermon post + poll" "$3" "${21}"
printf '%-44s %10s %10s\n' "burst of $burst: post, per request" "$6" "${24}"
printf '%-44s %10s %10s\n' "burst of $burst: poll, per CQE" "$7" "${25}"
printf '%-44s %10s %10s\n' "burst of $burst: post + poll (target <= 150)" "$8" "${26}"
printf '%-44s %10s %10s\n' "burst of $burst, last signaled: post + poll" "$9" "${27}"
printf '%-44s %10s %10s\n' "template: post" "${10}" "${28}"
printf '%-44s %10s %10s\n' "template: poll of its CQE" "${11}" "${29}"
printf '%-44s %10s %10s\n' "template: post + poll (target <= 150)" "${12}" "${30}"
printf '%-44s %10s %10s\n' "16 template posts: post, per request" "${13}" "${31}"
printf '%-44s %10s %10s\n' "16 template posts: poll, per CQE" "${14}" "${32}"
printf '%-44s %10s %10s\n' "16 template posts: post + poll (<= 150)" "${15}" "${33}"
printf '%-44s %10s %10s\n' "template burst of $burst: post, per request" "${16}" "${34}"
printf '%-44s %10s %10s\n' "template burst of $burst: poll, per CQE" "${17}" "${35}"
printf '%-44s %10s %10s\n' "template burst: post + poll (<= 150)" "${18}" "${36}"
printf '%-44s %10s %10s\n' "baseline: rte_ring enqueue+dequeue (1 ptr)" "$4" "${22}"
printf '%-44s %10s %10s\n' "baseline: memcpy 64 B" "$5" "${23}"
