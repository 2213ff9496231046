#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# The milestone's "done when": a short lossless prdma-demo run captured
# with --pcap must (a) pass prdma-capaudit with zero bad ICRCs and no
# anomalies, and (b) decode in tshark with no malformed frame and every
# frame as InfiniBand (tshark is installed by the set-up).
# Usage: demo_capture.sh <prdma-demo> <prdma-capaudit>

demo=$1
audit=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eal=${PRDMA_TEST_EAL_ARGS:-"--no-huge -m 1024 --no-shconf --no-pci"}
lcores="-l 0-1"
[ "$(nproc)" -ge 2 ] || lcores="-l 0"

# shellcheck disable=SC2086
"$demo" $eal $lcores --log-level=pmd.*:error -- \
	--sizes 8,64,1024,4096,65536 --iters 50 --min-iters 5 \
	--bw-bytes 256K --bw-max-msgs 100 --window 8 --timeout 15 \
	--pcap "$tmp/cap" --json "$tmp/demo.json" > "$tmp/demo.out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'no provider "roce"' "$tmp/demo.out"; then
	echo "SKIP: the roce provider is not in this build"
	exit 77
fi
cat "$tmp/demo.out"
if [ "$rc" -ne 0 ]; then
	echo "FAIL: prdma-demo exited $rc"
	exit 1
fi
fail=0
for side in a b; do
	f="$tmp/cap-$side.pcap"
	if [ ! -s "$f" ]; then
		echo "FAIL: no capture $f"
		fail=1
		continue
	fi
	"$audit" "$f" > "$tmp/audit-$side.txt" 2>&1
	arc=$?
	if [ "$arc" -ne 0 ] || ! grep -q ' 0 bad, 0 not checked' "$tmp/audit-$side.txt"; then
		echo "FAIL: prdma-capaudit on $f exited $arc"
		cat "$tmp/audit-$side.txt"
		fail=1
	else
		echo "ok: capaudit $side: $(sed -n 2p "$tmp/audit-$side.txt")"
	fi
	if ! command -v tshark > /dev/null 2>&1; then
		echo "FAIL: tshark not installed (devtools/common.sh installs it)"
		fail=1
		continue
	fi
	# Wireshark's payload heuristics (RPC-over-RDMA, iSER, ...) read our
	# pattern bytes as their own headers and call them malformed; the
	# transport headers are what is checked here, so they are turned off.
	heur=""
	for h in rpcrdma_infiniband smb_direct_infiniband smcr_infiniband \
		 iser_infiniband sdp_infiniband fc_infiniband; do
		if tshark --disable-heuristic "$h" -r "$f" -c 1 > /dev/null 2>&1; then
			heur="$heur --disable-heuristic $h"
		fi
	done
	# shellcheck disable=SC2086
	all=$(tshark $heur -r "$f" 2>/dev/null | wc -l)
	# shellcheck disable=SC2086
	bad=$(tshark $heur -r "$f" -Y _ws.malformed 2>/dev/null | wc -l)
	# shellcheck disable=SC2086
	ib=$(tshark $heur -r "$f" -Y infiniband 2>/dev/null | wc -l)
	if [ "$all" -eq 0 ] || [ "$bad" -ne 0 ] || [ "$ib" -ne "$all" ]; then
		echo "FAIL: tshark on $f: $all frames, $bad malformed, $ib InfiniBand"
		# shellcheck disable=SC2086
		tshark $heur -r "$f" -Y '_ws.malformed || !infiniband' 2>/dev/null | head -20
		fail=1
	else
		echo "ok: tshark $side: $all frames, all InfiniBand, none malformed"
	fi
done
exit $fail
