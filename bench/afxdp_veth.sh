#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Two network namespaces joined by a veth pair (root needed): 64-byte
# one-way latency of
#   - kernel TCP ping-pong, both ends busy polling non-blocking sockets;
#   - raw AF_XDP ping-pong (net_af_xdp on each end, prdma-perf raw_lat);
#   - RC WRITE (prdma-perf write_lat, the soft provider in port mode on
#     net_af_xdp), with the out-of-band TCP over a second veth pair since
#     AF_XDP takes every frame of the data veth's queue.
# A column that cannot run says why; nothing is estimated.

. "$(dirname "$0")/lib.sh"
need_tools
ITERS=${ITERS:-20000}
NSA=prdma-bench-a
NSB=prdma-bench-b
md=$OUT/afxdp_veth.md
XEAL=${PRDMA_BENCH_XDP_EAL:---no-huge -m 1024 --no-shconf --no-pci --log-level=lib.eal:error}

cleanup() {
	ip netns del $NSA 2>/dev/null
	ip netns del $NSB 2>/dev/null
}

setup() {
	cleanup
	ip netns add $NSA && ip netns add $NSB || return 1
	ip link add bva type veth peer name bvb || return 1
	ip link add bca type veth peer name bcb || return 1
	ip link set bva netns $NSA && ip link set bca netns $NSA
	ip link set bvb netns $NSB && ip link set bcb netns $NSB
	ip -n $NSA addr add 10.77.0.1/24 dev bva && ip -n $NSB addr add 10.77.0.2/24 dev bvb
	ip -n $NSA addr add 10.78.0.1/24 dev bca && ip -n $NSB addr add 10.78.0.2/24 dev bcb
	for l in bva bca lo; do ip -n $NSA link set $l up; done
	for l in bvb bcb lo; do ip -n $NSB link set $l up; done
	# One queue each, so the AF_XDP socket on queue 0 sees every frame.
	ip netns exec $NSA ethtool -L bva rx 1 tx 1 >/dev/null 2>&1
	ip netns exec $NSB ethtool -L bvb rx 1 tx 1 >/dev/null 2>&1
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	return 0
}

if [ "$(id -u)" != 0 ]; then
	echo "bench: afxdp_veth needs root (ip netns, veth, AF_XDP)" >&2
	exit 0
fi
trap cleanup EXIT
tcp=n/a; raw=n/a; rdma=n/a
tcp_note=""; raw_note=""; rdma_note=""
if ! setup; then
	echo "bench: cannot create the namespaces and veth pairs" >&2
	exit 0
fi
mac_a=$(ip netns exec $NSA cat /sys/class/net/bva/address)
mac_b=$(ip netns exec $NSB cat /sys/class/net/bvb/address)

# 1. Kernel TCP on the data veth, before any XDP program is attached.
TCP_PP=$OUT/tcp_pingpong
cc -O2 -o "$TCP_PP" "$BENCH_DIR/tcp_pingpong.c"
ip netns exec $NSB "$TCP_PP" server 7000 64 "$ITERS" &
spid=$!
sleep 0.3
if ip netns exec $NSA "$TCP_PP" client 10.77.0.2 7000 64 "$ITERS" > "$OUT/tcp.json"; then
	tcp=$(python3 -c "import json; print(json.load(open('$OUT/tcp.json'))['p50_us'])")
	tcp99=$(python3 -c "import json; print(json.load(open('$OUT/tcp.json'))['p99_us'])")
else
	tcp_note="failed"
fi
wait $spid 2>/dev/null

# 2. Raw AF_XDP ping-pong.
ip netns exec $NSB "$PERF" $XEAL -l 1 --file-prefix xb --vdev=net_af_xdp0,iface=bvb \
	-- raw_lat --raw-port 0 --timeout 5 > "$OUT/afxdp_echo.txt" 2>&1 &
epid=$!
sleep 1.5
if ip netns exec $NSA "$PERF" $XEAL -l 0 --file-prefix xa --vdev=net_af_xdp0,iface=bva \
	-- raw_lat --raw-port 0 -n "$ITERS" -s 64 --timeout 30 --json "$OUT/afxdp_raw.json" x \
	> "$OUT/afxdp_raw.txt" 2>&1; then
	raw=$(jget afxdp_raw p50_us); raw99=$(jget afxdp_raw p99_us)
else
	raw_note="failed: $(grep -m1 -i -E 'error|fail|cannot' "$OUT/afxdp_raw.txt")"
fi
wait $epid 2>/dev/null

# 3. RC WRITE over the provider in port mode on net_af_xdp.
ip netns exec $NSB "$PERF" $XEAL -l 1 --file-prefix rb --vdev=net_af_xdp0,iface=bvb \
	-- write_lat -n "$ITERS" -s 64 -p 18600 --timeout 20 \
	--devargs "roce:port=0,ip=10.77.0.2,mac=$mac_b" --dmac "$mac_a" \
	> "$OUT/afxdp_rdma_server.txt" 2>&1 &
rpid=$!
sleep 1.5
if ip netns exec $NSA "$PERF" $XEAL -l 0 --file-prefix ra --vdev=net_af_xdp0,iface=bva \
	-- write_lat -n "$ITERS" -s 64 -p 18600 --timeout 20 \
	--devargs "roce:port=0,ip=10.77.0.1,mac=$mac_a" --dmac "$mac_b" \
	--json "$OUT/afxdp_rdma.json" --samples "$OUT/afxdp_rdma.samples" 10.78.0.2 \
	> "$OUT/afxdp_rdma.txt" 2>&1; then
	rdma=$(jget afxdp_rdma p50_us); rdma99=$(jget afxdp_rdma p99_us)
else
	rdma_note="pending: the soft provider did not run over net_af_xdp here ($(grep -m1 -E 'prdma-perf:|roce' "$OUT/afxdp_rdma.txt"))"
fi
wait $rpid 2>/dev/null

# The histogram of the RC WRITE ping-pong over AF_XDP (up to its p99.9).
hist=0
if [ -s "$OUT/afxdp_rdma.samples" ]; then
	python3 - "$OUT/afxdp_rdma.samples" "$OUT/afxdp_hist.dat" <<'PY'
import sys
rc = sorted(float(x) for x in open(sys.argv[1]))
cut = rc[max(int(len(rc) * 0.999) - 1, 0)]
step = max(cut / 80, 0.01)
b = {}
for x in rc:
    if x <= cut:
        b[int(x / step)] = b.get(int(x / step), 0) + 1
with open(sys.argv[2], "w") as f:
    for k in sorted(b):
        f.write("%.4f %d\n" % ((k + 0.5) * step, b[k]))
PY
	gnuplot <<GP && hist=1
set terminal png size 800,420
set output "$IMG/afxdp_histogram.png"
set termoption noenhanced
set title "64 B RC WRITE ping-pong over AF_XDP between two namespaces: one-way latency (up to p99.9)"
set xlabel "one-way latency (us)"
set ylabel "samples"
set logscale y
set style fill solid 0.6
set boxwidth 0.9 relative
plot "$OUT/afxdp_hist.dat" using 1:2 with boxes title "RC WRITE"
GP
fi

{
	echo "## AF_XDP veth: RC WRITE vs kernel TCP vs raw AF_XDP"
	echo
	echo "Two namespaces joined by a veth pair (10.77.0.1 <-> 10.77.0.2), one process per"
	echo "namespace on its own lcore. 64-byte messages, one-way latency (half the round trip), us."
	echo
	echo "| path | p50 | p99 | note |"
	echo "|---|---:|---:|---|"
	echo "| kernel TCP, busy-polled non-blocking sockets | $(calc "${tcp/n\/a/nan}") | $(calc "${tcp99:-nan}") | $tcp_note |"
	echo "| raw AF_XDP ping-pong (net_af_xdp, 106-byte frames) | $(calc "${raw/n\/a/nan}") | $(calc "${raw99:-nan}") | $raw_note |"
	echo "| prdma RC WRITE (roce port mode on net_af_xdp) | $(calc "${rdma/n\/a/nan}") | $(calc "${rdma99:-nan}") | $rdma_note |"
	echo
	echo "p50 ratios: RC WRITE / kernel TCP = **$(calc "${rdma/n\/a/nan}/${tcp/n\/a/nan}")x** (target <= 0.5x),"
	echo "RC WRITE / raw AF_XDP = **$(calc "${rdma/n\/a/nan}/${raw/n\/a/nan}")x** (target <= 1.3x)."
	echo
	if [ $hist = 1 ]; then
		echo "![AF_XDP latency histogram](img/afxdp_histogram.png)"
		echo
	fi
	EAL="$XEAL, plus per process -l 0|1, --file-prefix and --vdev=net_af_xdp0,iface=bva|bvb" machine
	echo "- commands: \`bench/afxdp_veth.sh\` (creates and deletes the namespaces $NSA/$NSB);"
	echo "  \`tcp_pingpong server|client\` (bench/tcp_pingpong.c), \`prdma-perf --vdev=net_af_xdp0,iface=bvX -- raw_lat --raw-port 0\`,"
	echo "  \`prdma-perf --vdev=net_af_xdp0,iface=bvX -- write_lat --devargs roce:port=0,ip=...,mac=... --dmac <peer>\`"
} > "$md"
cat "$md"
section afxdp_veth "$md"
