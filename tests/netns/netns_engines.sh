#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Several engines over a real multi-queue port (issue 17): two processes in
# two namespaces, a veth pair of 2 queues each way, net_af_packet with
# qpairs=2 (the kernel's fanout spreads frames over the two sockets) and
# the soft provider with engines=2 on each side. ns_engines runs 8 RC QPs,
# each on its own CQs (slot mod 2 puts 4 on each engine), every WRITE
# completion and every byte checked. At removal each device logs what each
# engine moved: every engine of both sides must have received and sent
# RoCE frames (so both ran QPs, not only handed frames on). rx_handoff
# (frames the fanout put on the other engine's queue) is printed, not
# required: how many there are depends on the kernel's hash.
# Usage: netns_engines.sh <ns_engines> packet|<roce_xdp.o>
set -eu
prog=$1
here=$(dirname "$0")
. "$here/netns_lib.sh"
ns_skip_unless_able
NS_QUEUES=2 # read by ns_setup
ns_setup
out=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM

mode=$2
case $mode in
packet) ;;
no-xdp-program) echo "SKIP: the XDP program was not built (no clang)"; exit 77 ;;
*) [ -f "$mode" ] || { echo "FAIL: no XDP program $mode"; exit 1; } ;;
esac
eal() { # <iface> <prefix> <lcore>
	if [ "$mode" = packet ]; then
		port="net_af_packet0,iface=$1,qpairs=2"
	else
		port="net_af_xdp0,iface=$1,start_queue=0,queue_count=2,busy_budget=0,xdp_prog=$mode"
	fi
	echo "$NS_MEM --no-pci --file-prefix $2 -l $3 --vdev $port \
--log-level=pmd.prdma.roce:info --log-level=pmd.net.af_xdp:info"
}
# RoCE addresses apart from the kernel's.
RIP_A=192.0.2.11
RIP_B=192.0.2.12

rc=0
# shellcheck disable=SC2046
ns_run "$NS_A" "$prog" $(eal "$IF_A" "nea$$" 0) -- 0 "$out" \
	"roce:port=0,ip=$RIP_A,mac=$MAC_A,engines=2" "$MAC_B" > "$out/a.log" 2>&1 &
pa=$!
# shellcheck disable=SC2046
ns_run "$NS_B" "$prog" $(eal "$IF_B" "neb$$" 1) -- 1 "$out" \
	"roce:port=0,ip=$RIP_B,mac=$MAC_B,engines=2" "$MAC_A" > "$out/b.log" 2>&1 || {
	echo "FAIL: side 1"; rc=1; }
wait "$pa" || { echo "FAIL: side 0"; rc=1; }
# net_af_xdp (DPDK 22.11) takes the queue count from ETHTOOL_GCHANNELS
# combined channels; veth reports rx/tx channels only (max_combined 0),
# which the PMD reads as one queue: queue_count=2 is refused at probe.
if [ "$mode" != packet ] && grep -q "is larger than combined queue count" "$out/a.log"; then
	grep -m1 "combined queue count" "$out/a.log"
	echo "SKIP: net_af_xdp refuses queue_count=2 on veth (it reports no combined channels)"
	exit 77
fi
for s in a b; do
	echo "---- side $s"; cat "$out/$s.log"
	grep -q "^CHECK side" "$out/$s.log" || { echo "FAIL: side $s: no data check"; rc=1; }
done

# "<dev>: engine <i>: rx <n> tx <n> rx_handoff <n> rx_handoff_drops <n>"
for s in a b; do
	for i in 0 1; do
		line=$(grep -m1 "engine $i: rx " "$out/$s.log" || true)
		if [ -z "$line" ]; then
			echo "FAIL: side $s: no summary of engine $i"; rc=1; continue
		fi
		# shellcheck disable=SC2046
		set -- $(echo "$line" | sed 's/.*engine [0-9]*: //')
		echo "side $s engine $i: rx $2 tx $4 rx_handoff $6 drops $8"
		if [ "$2" -eq 0 ] || [ "$4" -eq 0 ]; then
			echo "FAIL: side $s engine $i moved no RoCE frames"; rc=1
		fi
	done
done
echo "rc=$rc"
exit $rc
