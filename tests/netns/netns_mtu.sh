#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Path MTU 4096 over net_af_packet: a veth pair at MTU 4200 (what Soft-RoCE
# needs for 4096), ring frames of 8 KiB (framesz=8192,blocksz=8192). The
# port's active MTU must follow the interface: the client asks for mtu=4096,
# the connection manager takes the active MTU as the path MTU, and the
# provider's own capture must show RDMA WRITE Middle packets of exactly
# 4096 bytes after the BTH. Then at link MTU 1500 the same mtu=4096 must be
# refused at probe with an error that says why.
# Usage: netns_mtu.sh <prdma-nsdemo>
set -eu
demo=$1
here=$(dirname "$0")
. "$here/netns_lib.sh"
ns_skip_unless_able
ns_setup
out=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM
ip -n "$NS_A" link set "$IF_A" mtu 4200
ip -n "$NS_B" link set "$IF_B" mtu 4200

eal() { # <iface> <prefix> <lcore>
	echo "$NS_MEM --no-pci --file-prefix $2 -l $3 \
--vdev net_af_packet0,iface=$1,qpairs=1,framesz=8192,blocksz=8192"
}

rc=0
# shellcheck disable=SC2046
ns_run "$NS_A" "$demo" $(eal "$IF_A" "nma$$" 0) -- \
	--mode cm --server --port 7481 --iters 200 > "$out/server.log" 2>&1 &
srv=$!
sleep 1
# shellcheck disable=SC2046
ns_run "$NS_B" "$demo" $(eal "$IF_B" "nmb$$" 1) -- \
	--mode cm --connect "$IP_A" --port 7481 --iters 200 \
	--devargs "mtu=4096,pcap=$out/b.pcap" > "$out/client.log" 2>&1 || rc=1
wait "$srv" || rc=1
echo "---- server"; cat "$out/server.log"
echo "---- client"; cat "$out/client.log"
grep -q "CHECK server WRITE" "$out/server.log" || { echo "FAIL: server data check"; rc=1; }
grep -q "CHECK client READ" "$out/client.log" || { echo "FAIL: client data check"; rc=1; }

# The largest payload after the BTH of an RDMA WRITE Middle (opcode 7, no
# extension header), and the largest of any RoCE packet.
python3 - "$out/b.pcap" > "$out/sizes" <<'PY' || { echo "FAIL: capture unreadable"; rc=1; }
import struct, sys
d = open(sys.argv[1], "rb").read()
off, mid, top = 24, 0, 0
while off + 16 <= len(d):
    _, _, incl, _ = struct.unpack_from("<IIII", d, off)
    f = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if len(f) < 14 + 20 + 8 + 12 or f[12:14] != b"\x08\x00" or f[23] != 17:
        continue
    ihl = (f[14] & 15) * 4
    udp = 14 + ihl
    if struct.unpack_from(">H", f, udp + 2)[0] != 4791:
        continue
    ulen = struct.unpack_from(">H", f, udp + 4)[0]
    pay = ulen - 8 - 12 - 4
    top = max(top, pay)
    if f[udp + 8] == 7:
        mid = max(mid, pay)
print(mid, top)
PY
read -r mid top < "$out/sizes" || true
echo "largest WRITE Middle payload ${mid:-?}, largest RoCE payload ${top:-?}"
[ "${mid:-0}" = 4096 ] || { echo "FAIL: no 4096-byte WRITE Middle packet"; rc=1; }
[ "${top:-0}" -le 4112 ] || { echo "FAIL: a packet above path MTU 4096"; rc=1; }

# Link MTU 1500: mtu=4096 cannot be carried, and probe says so.
ip -n "$NS_B" link set "$IF_B" mtu 1500
# shellcheck disable=SC2046
if ns_run "$NS_B" "$demo" $(eal "$IF_B" "nmc$$" 1) -- \
	--mode cm --connect "$IP_A" --port 7482 --iters 10 --timeout 3 \
	--devargs "mtu=4096" > "$out/small.log" 2>&1; then
	echo "FAIL: mtu=4096 accepted at link MTU 1500"; rc=1
fi
echo "---- link MTU 1500"; cat "$out/small.log"
grep -q "mtu=4096 does not fit the link: interface MTU 1500" "$out/small.log" ||
	{ echo "FAIL: no clear refusal of mtu=4096 at link MTU 1500"; rc=1; }
echo "rc=$rc"
exit $rc
