#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# A lossy soak run with side 0 capturing: the capture, full of drops,
# reorders, duplicates and corrupted payloads, must decode in tshark with
# no malformed frame. Usage: soak_capture.sh <test_roce_soak>
set -eu
soak=$1
command -v tshark >/dev/null 2>&1 || { echo "SKIP: tshark not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PRDMA_SOAK_OPS=5000 PRDMA_SOAK_TIMEOUT=12 PRDMA_SOAK_PCAP="$dir/soak.pcap" "$soak"
# Wireshark's payload heuristics (RPC-over-RDMA, iSER, ...) read the
# pattern bytes as their own headers; the transport is what is checked.
heur=""
for h in rpcrdma_infiniband smb_direct_infiniband smcr_infiniband \
	 iser_infiniband sdp_infiniband fc_infiniband; do
	if tshark --disable-heuristic "$h" -r "$dir/soak.pcap" -c 1 > /dev/null 2>&1; then
		heur="$heur --disable-heuristic $h"
	fi
done
# shellcheck disable=SC2086
frames=$(tshark $heur -r "$dir/soak.pcap" -T fields -e frame.number 2>/dev/null | wc -l)
# shellcheck disable=SC2086
roce=$(tshark $heur -r "$dir/soak.pcap" -Y infiniband -T fields -e frame.number 2>/dev/null | wc -l)
# shellcheck disable=SC2086
bad=$(tshark $heur -r "$dir/soak.pcap" -Y '_ws.malformed || _ws.expert.severity == error' \
	-T fields -e frame.number 2>/dev/null | wc -l)
echo "capture: $frames frames, $roce decoded as InfiniBand, $bad malformed"
[ "$frames" -gt 1000 ] || { echo "FAIL: too few frames captured"; exit 1; }
[ "$roce" -eq "$frames" ] || { echo "FAIL: frames not decoded as RoCE"; exit 1; }
[ "$bad" -eq 0 ] || { echo "FAIL: malformed frames"; exit 1; }
