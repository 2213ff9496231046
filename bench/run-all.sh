#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Every side-by-side benchmark, one after the other; each writes its own
# section (table, plot, machine, commands) into doc/performance.md.
#   PRDMA_BUILD=<build dir> (default build-tools), PRDMA_BENCH_EAL=<EAL args>,
#   QUICK=1 for a short pass (fewer iterations, fewer sizes).

dir=$(dirname "$0")
. "$dir/lib.sh"
need_tools
if [ -n "$QUICK" ]; then
	export ITERS=3000 MSGS=20000 SIZES="64 1024" COUNTS="1 16 256 1024 16384"
	export MIN_MSGS=5000 PER_QP=20
fi
# The summary reads only files written from here on.
since=$(date +%s)
intro=$OUT/intro.md
{
	echo "## Side-by-side benchmarks (bench/)"
	echo
	echo "Each table below comes from one script of \`bench/\`, which measures prdma and its baseline"
	echo "in the same run and rewrites only its own section here (between \`bench:\` markers)."
	echo "\`bench/run-all.sh\` runs them all (about ten minutes, root for the AF_XDP ones; \`QUICK=1\` for a short pass)."
	echo "The tools are prdma-perf (\`doc/tools.md\`) and \`bench/tcp_pingpong.c\`."
	echo
	machine
} > "$intro"
section intro "$intro"
rc=0
for b in net_ring bandwidth scale engines histogram afxdp_veth; do
	echo "=== bench/$b.sh"
	"$dir/$b.sh" || rc=1
done

# The same veth pair with the project's XDP program and the CM (hugepages).
echo "=== bench/roce-afxdp.sh"
if [ "$(id -u)" = 0 ]; then
	PRDMA_BUILD=$BUILD "$dir/roce-afxdp.sh" "${ITERS:-20000}" || rc=1
else
	echo "bench: roce-afxdp needs root" >&2
fi

# Tail latency with ~1 % loss each way (tc BPF filter, net_af_packet).
echo "=== bench/loss-tail.sh"
if [ "$(id -u)" = 0 ]; then
	PRDMA_BUILD=$BUILD "$dir/loss-tail.sh" "${ITERS:-20000}" || rc=1
else
	echo "bench: loss-tail needs root" >&2
fi

# Hermon model: instructions per post and poll, counted by callgrind.
echo "=== bench/hermon-ipc.sh"
md=$OUT/hermon_ipc.md
if "$dir/hermon-ipc.sh" "$BUILD" 300 > "$OUT/hermon_ipc.txt" 2>&1; then
	{
		echo "## Hermon model: instructions per post and poll (callgrind)"
		echo
		echo "A 64 B inline RDMA WRITE posted and its CQE polled on the Hermon PMD against the"
		echo "device model, 300 iterations; baselines counted in the same run. The breakdown"
		echo "and what would reach the target are in \"Hermon PMD fast path\" above."
		echo
		echo "| call | instructions |"
		echo "|---|---:|"
		sed -n '2,$p' "$OUT/hermon_ipc.txt" |
			sed -E 's/^(.*[^ ]) +([0-9.]+)$/| \1 | \2 |/'
		echo
		machine
		echo "- command: \`bench/hermon-ipc.sh $(basename "$BUILD") 300\` (valgrind $(valgrind --version | sed 's/valgrind-//'))"
	} > "$md"
	cat "$md"
	section hermon_ipc "$md"
else
	cat "$OUT/hermon_ipc.txt" >&2
	rc=1
fi

# Soft provider: instructions per round trip, message and byte (callgrind).
echo "=== bench/profile.sh"
if command -v valgrind >/dev/null; then
	N=${PROFILE_N:-500} "$dir/profile.sh" || rc=1
else
	echo "bench: profile needs valgrind" >&2
fi

# Healthy-QP throughput under a garbage flood on the same port.
echo "=== bench/flood.sh"
md=$OUT/flood.md
if "$dir/flood.sh" "$BUILD" 3 > "$OUT/flood.txt" 2>&1; then
	{
		echo "## Flood: a healthy QP's throughput beside garbage on its port"
		echo
		echo "The soft provider in one process: the throughput of one RC QP alone (4 KiB WRITEs,"
		echo "16 outstanding, MTU 1024), then with frames of bad ICRC, unknown QPs and malformed"
		echo "headers arriving on the same port, one receive burst (32) per engine step, then"
		echo "four (128). Target: >= 80 %."
		echo
		echo '```'
		cat "$OUT/flood.txt"
		echo '```'
		echo
		machine
		echo "- command: \`bench/flood.sh $(basename "$BUILD") 3\`"
	} > "$md"
	cat "$md"
	section flood "$md"
else
	cat "$OUT/flood.txt" >&2
	rc=1
fi
# Every target of issue 17 with its same-run baseline, in one table.
echo "=== summary"
md=$OUT/summary.md
{
	echo "## Targets: this run of bench/run-all.sh"
	echo
	echo "Each figure beside its baseline from this run, the ratio and the target (the sections"
	echo "below have the details). \"not run\" means its script failed or could not run here; the"
	echo "targets are reported, never enforced."
	echo
	if ! python3 "$dir/summary.py" "$OUT" "$since"; then
		echo "(bench/summary.py failed)"
		rc=1
	fi
	echo
	machine
	echo "- command: \`PRDMA_BUILD=$(basename "$BUILD") bench/run-all.sh\`"
} > "$md"
cat "$md"
section summary "$md"
# Benchmarks report; they do not judge a target. A script that could not
# run fails the run, so a broken benchmark is never mistaken for a figure.
if [ $rc -ne 0 ]; then
	echo "bench: a script failed to run, see above" >&2
fi
exit $rc
