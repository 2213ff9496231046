#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# RoCEv1 framing on the wire: a short run with roce_version=1 captured;
# every frame must be EtherType 0x8915 with a GRH (next header 0x1B) that
# tshark decodes as InfiniBand without a malformed frame, and every ICRC
# must match an independent computation (Python zlib over the 8-byte
# all-ones pseudo LRH, the GRH with traffic class, flow label and hop
# limit masked, and the BTH with its byte 4 masked).
# Usage: v1_capture.sh <test_roce_soak>
set -eu
soak=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PRDMA_SOAK_OPS=400 PRDMA_SOAK_CLEAN=1 PRDMA_SOAK_EXTRA=roce_version=1 PRDMA_SOAK_TIMEOUT=12 \
	PRDMA_SOAK_PCAP="$dir/v1.pcap" "$soak" > "$dir/run.log" 2>&1 || { cat "$dir/run.log"; exit 1; }
python3 - "$dir/v1.pcap" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
off, n, bad = 24, 0, 0
while off + 16 <= len(data):
    _, _, incl, _ = struct.unpack("<IIII", data[off:off + 16])
    f = data[off + 16:off + 16 + incl]
    off += 16 + incl
    if struct.unpack("!H", f[12:14])[0] != 0x8915:
        print("frame %d: EtherType 0x%04x, not RoCEv1" % (n, struct.unpack("!H", f[12:14])[0]))
        bad += 1
        continue
    grh = bytearray(f[14:54])
    plen = struct.unpack("!H", grh[4:6])[0]
    if grh[6] != 0x1B:
        bad += 1
    body = bytearray(f[54:54 + plen - 4])
    grh[0] |= 0x0F; grh[1] = grh[2] = grh[3] = 0xFF; grh[7] = 0xFF
    body[4] = 0xFF
    want = zlib.crc32(b"\xff" * 8 + bytes(grh) + bytes(body)) & 0xFFFFFFFF
    got = struct.unpack("<I", f[54 + plen - 4:54 + plen])[0]
    if want != got:
        print("frame %d: ICRC 0x%08x, expected 0x%08x" % (n, got, want))
        bad += 1
    n += 1
print("v1 capture: %d frames checked, %d bad" % (n, bad))
sys.exit(1 if bad or n < 100 else 0)
PY
if command -v tshark > /dev/null 2>&1; then
	heur=""
	for h in rpcrdma_infiniband smb_direct_infiniband smcr_infiniband \
		 iser_infiniband sdp_infiniband fc_infiniband; do
		if tshark --disable-heuristic "$h" -r "$dir/v1.pcap" -c 1 > /dev/null 2>&1; then
			heur="$heur --disable-heuristic $h"
		fi
	done
	# shellcheck disable=SC2086
	all=$(tshark $heur -r "$dir/v1.pcap" 2> /dev/null | wc -l)
	# shellcheck disable=SC2086
	grh=$(tshark $heur -r "$dir/v1.pcap" -Y 'infiniband.grh.nxthdr == 27 && infiniband.grh.ipver == 6 && infiniband.bth' \
		2> /dev/null | wc -l)
	# shellcheck disable=SC2086
	bad=$(tshark $heur -r "$dir/v1.pcap" -Y _ws.malformed 2> /dev/null | wc -l)
	echo "tshark: $all frames, $grh with GRH+BTH, $bad malformed"
	[ "$grh" -eq "$all" ] && [ "$bad" -eq 0 ] || exit 1
else
	echo "note: tshark not installed, its half is skipped"
fi
