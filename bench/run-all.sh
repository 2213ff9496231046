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
	export ITERS=3000 MSGS=20000 SIZES="64 1024" COUNTS="1 16 256 1022 1024 16384"
	export MIN_MSGS=5000 PER_QP=20
fi
intro=$OUT/intro.md
{
	echo "## Side-by-side benchmarks (bench/)"
	echo
	echo "Each table below comes from one script of \`bench/\`, which measures prdma and its baseline"
	echo "in the same run and rewrites only its own section here (between \`bench:\` markers)."
	echo "\`bench/run-all.sh\` runs them all (about ten minutes; \`QUICK=1\` for a short pass)."
	echo "The tools are prdma-perf (\`doc/tools.md\`) and \`bench/tcp_pingpong.c\`."
	echo
	machine
} > "$intro"
section intro "$intro"
rc=0
for b in net_ring bandwidth scale histogram afxdp_veth; do
	echo "=== bench/$b.sh"
	"$dir/$b.sh" || rc=1
done
# Benchmarks report; they do not judge. A script that could not run says so.
[ $rc -ne 0 ] && echo "bench: a script failed to run, see above" >&2
exit 0
