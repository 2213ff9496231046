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
# Usage: bench/loss-tail.sh [iterations]   (root; PRDMA_BUILD=<build dir>,
#   ROCE_DEVARGS=<extra roce devargs>, default tlp=1: the tail-loss probe)
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
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM
devargs=${ROCE_DEVARGS-tlp=1}

eal() {
	echo "$NS_MEM --no-pci --file-prefix $3 -l $4 \
--vdev net_af_packet0,iface=$2,qpairs=1,qdisc_bypass=0"
}

# run <name>: one ping-pong, server in A, client in B.
run() {
	name=$1
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
}

run lossless
for pair in "$NS_A $IF_A" "$NS_B $IF_B"; do
	# shellcheck disable=SC2086
	set -- $pair
	ip netns exec "$1" tc qdisc add dev "$2" clsact
	ip netns exec "$1" tc filter add dev "$2" egress bpf direct-action obj "$bpf" sec tc
done
run lossy
for pair in "$NS_A $IF_A" "$NS_B $IF_B"; do
	# shellcheck disable=SC2086
	set -- $pair
	ip netns exec "$1" tc -s qdisc show dev "$2" | sed -n 's/.*Sent \([0-9]*\) bytes \([0-9]*\) pkt (dropped \([0-9]*\).*/\2 \3/p' | tail -n 1 >> "$out/drops"
done
echo "frames sent, dropped by the filter (A, B):"; cat "$out/drops"

python3 - "$out" "$top/doc/performance.md" "$iters" "$(git -C "$top" rev-parse --short HEAD)" "$devargs" <<'PY'
import os, re, sys, time
out, doc, iters, rev, devargs = sys.argv[1:6]
res = {}
for name in ("lossless", "lossy"):
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
         "| run | p50 | p99 | p99.9 |", "|---|---:|---:|---:|",
         "| lossless | %s |" % cells(res["lossless"]),
         "| ~1 %% dropped each way | %s |" % cells(res["lossy"]), ""]
if res["lossless"] and res["lossy"]:
    lines.append("p99 with loss / p99 without = **%.1fx** (target <= 5x)." %
                 (res["lossy"][1] / res["lossless"][1]))
    lines.append("")
la = os.getloadavg()
lines += ["- machine: %d CPUs, kernel %s, load average %.2f %.2f %.2f (shared: compare the two runs, not runs of different days)" %
          (os.cpu_count(), os.uname().release, *la),
          "- roce devargs: `roce:port=0%s`" % ("," + devargs if devargs else " (the defaults)"),
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
