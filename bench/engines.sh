#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Engines per device (engines=, issue 17): the 64 B RC WRITE message rate of
# many QPs with 2 engines on 2 lcores against 1 engine on 1 lcore, both in
# one run of bench/engines.c (both endpoints in one process over net_ring).
# Target: >= 1.8x (printed, never enforced).

. "$(dirname "$0")/lib.sh"
ENG=$BUILD/bench/engines
if [ ! -x "$ENG" ]; then
	echo "bench: $ENG not built (ninja -C $BUILD)" >&2
	exit 2
fi
QPS=${QPS:-64}
DEPTH=${DEPTH:-16}
SECS=${SECS:-1}
RUNS=${RUNS:-4}
[ -n "$QUICK" ] && RUNS=2
md=$OUT/engines.md
txt=$OUT/engines.txt
load=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2086
if ! "$ENG" $EAL -- -q "$QPS" -t "$DEPTH" -d "$SECS" -r "$RUNS" > "$txt" 2>&1; then
	echo "bench: engines failed, see $txt" >&2
	tail -3 "$txt" >&2
	exit 1
fi
one=$(awk '/^one_engine_mpps/ {print $2}' "$txt")
two=$(awk '/^two_engines_mpps/ {print $2}' "$txt")
ratio=$(awk '/^ratio/ {print $2}' "$txt")
{
	echo "## engines: 2 engines on 2 lcores vs 1 engine on 1 lcore"
	echo
	echo "64 B RC WRITEs over $QPS connected QP pairs, $DEPTH in flight per QP (one signaled in"
	echo "16), both devices in one process over the embedded net_ring link, $SECS s a run."
	echo "One engine: \`engines=1\`, one lcore drives every QP. Two engines: \`engines=2\`"
	echo "(two ring pairs), each lcore its own CQ and half of the QPs; each lcore's polls"
	echo "step its engine on both devices. Same run, same binary: the two alternate $RUNS times"
	echo "after a warm-up, the one-lcore run on lcore 0 and lcore 1 in turn, and the best run"
	echo "of each is shown (every run below)."
	echo
	echo "| configuration | Mpps |"
	echo "|---|---:|"
	echo "| 1 engine, 1 lcore | $one |"
	echo "| 2 engines, 2 lcores | $two |"
	echo "| ratio (target >= 1.8x) | ${ratio}x |"
	echo
	echo "Runs (Mpps): $(awk '/^run/ {printf "%s%s/%s", sep, $4, $6; sep="; "}' "$txt") (one engine / two engines)."
	echo
	echo "- load average before the run: $load; after: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "  Two engines need two otherwise idle cores. On a shared 2-core machine the other"
	echo "  processes' lcores (most use 0-1 too) load the CPUs unevenly: compare the one-engine"
	echo "  runs on lcore 0 and lcore 1 above; the two-engine runs always have a lane on each,"
	echo "  the busier one included, so the ratio is a lower bound there."
	machine
	echo "- command: \`build/bench/$(basename "$ENG") <EAL> -- -q $QPS -t $DEPTH -d $SECS -r $RUNS\`; script: \`bench/engines.sh\`"
} > "$md"
cat "$md"
section engines "$md"
