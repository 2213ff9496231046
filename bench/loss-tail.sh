#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Tail latency under loss: a 64 B RC WRITE ping-pong between two processes
# in two namespaces over net_af_packet (qdisc_bypass=0, so frames go
# through the qdisc layer), first lossless, then with about 1 % of each
# side's RoCE frames dropped on veth egress by a tc BPF filter (clsact,
# direct-action, bench/loss_drop.bpf.c built by meson: this kernel has
# neither netem nor gact). Prints p50/p99/p99.9 of both runs side by side
# and p99 with loss / p99 without (target <= 5x), with the requester
# counters of the lossy run, and rewrites its section of doc/performance.md.
# Both with the provider's defaults and with a tuning devarg (ROCE_TUNED,
# default tlp=1: the tail-loss probe), each lossy run beside its own
# lossless one, all four in one run of the script.
# Usage: bench/loss-tail.sh [iterations]   (root; PRDMA_BUILD=<build dir>,
#   ROCE_TUNED=<roce devargs of the tuned rows>, PRDMA_BENCH_OUT=<dir> keeps
#   the RESULT lines as loss_tail_<run>.txt for bench/summary.py)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${PRDMA_BUILD:-$top/build}
demo=$build/apps/prdma-nsdemo/prdma-nsdemo
bpf=$build/bench/loss_drop.bpf.o
iters=${1:-20000}
. "$top/tests/netns/netns_lib.sh"
ns_skip_unless_able
[ -x "$demo" ] && [ -f "$bpf" ] || { echo "build $build first (apps, and clang for $bpf)"; exit 1; }
command -v tc > /dev/null || { echo "tc (iproute2) not found"; exit 1; }
ns_setup
out=$(mktemp -d)
keep=${PRDMA_BENCH_OUT:-$build/bench}
mkdir -p "$keep"
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM
tuned=${ROCE_TUNED-tlp=1}

eal() {
	echo "$NS_MEM --no-pci --file-prefix $3 -l $4 \
--vdev net_af_packet0,iface=$2,qpairs=1,qdisc_bypass=0"
}

# run <name> [devargs]: one ping-pong, server in A, client in B.
run() {
	name=$1
	devargs=${2-}
	# shellcheck disable=SC2046
	ns_run "$NS_A" "$demo" $(eal "$NS_A" "$IF_A" "la$$" 0) -- --server \
		--iters "$iters" --timeout 120 --mode cm --port 7481 \
		${devargs:+--devargs "$devargs"} > "$out/$name.server" 2>&1 &
	spid=$!
	sleep 1
	# shellcheck disable=SC2046
	ns_run "$NS_B" "$demo" $(eal "$NS_B" "$IF_B" "lb$$" 1) -- \
		--iters "$iters" --timeout 120 --mode cm --port 7481 \
		${devargs:+--devargs "$devargs"} --connect "$IP_A" \
		> "$out/$name.client" 2>&1 || true
	wait "$spid" 2> /dev/null || true
	grep '^RESULT' "$out/$name.client" || { echo "$name failed:"; tail -n 5 "$out/$name.client"; }
	grep '^RESULT' "$out/$name.client" > "$keep/loss_tail_$name.txt" || :
}

run lossless
run lossless_tuned "$tuned"
for pair in "$NS_A $IF_A" "$NS_B $IF_B"; do
	# shellcheck disable=SC2086
	set -- $pair
	ip netns exec "$1" tc qdisc add dev "$2" clsact
	ip netns exec "$1" tc filter add dev "$2" egress bpf direct-action obj "$bpf" sec tc
done
run lossy
run lossy_tuned "$tuned"
for pair in "$NS_A $IF_A" "$NS_B $IF_B"; do
	# shellcheck disable=SC2086
	set -- $pair
	ip netns exec "$1" tc -s qdisc show dev "$2" | sed -n 's/.*Sent \([0-9]*\) bytes \([0-9]*\) pkt (dropped \([0-9]*\).*/\2 \3/p' | tail -n 1 >> "$out/drops"
done
echo "frames sent, dropped by the filter (A, B):"; cat "$out/drops"

python3 - "$out" "$top/doc/performance.md" "$iters" "$(git -C "$top" rev-parse --short HEAD)" "$tuned" <<'PY'
import os, re, sys, time
out, doc, iters, rev, tuned = sys.argv[1:6]
res = {}
for name in ("lossless", "lossy", "lossless_tuned", "lossy_tuned"):
    try:
        text = open(os.path.join(out, name + ".client")).read()
    except OSError:
        text = ""
    m = re.search(r"p50=([\d.]+) p99=([\d.]+) p99\.9=([\d.]+)", text)
    res[name] = tuple(float(x) for x in m.groups()) if m else None
def cells(v):
    return " | ".join("%.2f" % x for x in v) if v else "failed | failed | failed"
lines = ["## Tail latency under loss: RC WRITE ping-pong over net_af_packet (bench/loss-tail.sh)", "",
         "Two processes in two namespaces joined by a veth pair, net_af_packet with",
         "`qdisc_bypass=0`, CM-connected RC QPs (ACK timeout 10 = 4 ms, retry 7), 64-byte",
         "WRITE ping-pong, half round trip in microseconds, %s samples per run. The lossy run" % iters,
         "drops about 1 % of each side's RoCE frames on veth egress with a tc BPF filter",
         "(`bench/loss_drop.bpf.c`: clsact, direct-action, `bpf_get_prandom_u32()`).", "",
         "", 
         "| roce devargs | run | p50 | p99 | p99.9 |", "|---|---|---:|---:|---:|",
         "| defaults (`roce:port=0`) | lossless | %s |" % cells(res["lossless"]),
         "| defaults | ~1 %% dropped each way | %s |" % cells(res["lossy"]),
         "| tuned (`roce:port=0,%s`) | lossless | %s |" % (tuned, cells(res["lossless_tuned"])),
         "| tuned | ~1 %% dropped each way | %s |" % cells(res["lossy_tuned"]), ""]
for a, b, what in (("lossless", "lossy", "defaults"), ("lossless_tuned", "lossy_tuned", "tuned (`%s`)" % tuned)):
    if res[a] and res[b]:
        lines.append("p99 with loss / p99 without, %s = **%.1fx** (target <= 5x)." %
                     (what, res[b][1] / res[a][1]))
        lines.append("")
try:
    drops = [l.split() for l in open(os.path.join(out, "drops")) if l.strip()]
except OSError:
    drops = []
if len(drops) == 2:
    lines.append("The filter dropped %s of %s frames on A's egress and %s of %s on B's, over both lossy "
                 "runs (it is attached after both lossless ones)." % (drops[0][1], drops[0][0], drops[1][1], drops[1][0]))
    lines.append("")
la = os.getloadavg()
lines += ["- machine: %d CPUs, kernel %s, load average %.2f %.2f %.2f (shared: compare the two runs, not runs of different days)" %
          (os.cpu_count(), os.uname().release, *la),
          "- command: `sudo bench/loss-tail.sh %s` at %s, %s" % (iters, rev, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))]
section = "\n".join(lines)
print(section)
try:
    text = open(doc).read()
except OSError:
    sys.exit(0)
begin, end = "<!-- bench:loss_tail -->", "<!-- /bench:loss_tail -->"
block = begin + "\n" + section + "\n" + end
if begin in text and end in text:
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(doc, "w").write(text)
PY
