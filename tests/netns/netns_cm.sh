#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# Two prdma processes in two network namespaces, one veth pair, net_af_xdp
# with the project's XDP program: they connect by IP and port alone through
# the connection manager (GIDs from the interfaces' addresses, the peer's
# MAC resolved by the provider), move checked data (WRITE, SEND, READ) and
# run a WRITE ping-pong - while ping and a TCP connection over the same
# interfaces keep working (the XDP program passes them to the kernel).
# With "packet" as the second argument the same runs over net_af_packet,
# the fallback where XDP cannot attach.
# Usage: netns_cm.sh <prdma-nsdemo> <roce_xdp.o | packet>
set -eu
demo=$1
xdp=$2
here=$(dirname "$0")
. "$here/netns_lib.sh"
ns_skip_unless_able
if [ "$xdp" != packet ] && [ ! -f "$xdp" ]; then
	echo "SKIP: the XDP program was not built (clang missing)"
	exit 77
fi
eal_a() {
	if [ "$xdp" = packet ]; then ns_eal_packet "$NS_A" "$IF_A" "nsa$$" 0
	else ns_eal "$NS_A" "$IF_A" "nsa$$" "$xdp" 0; fi
}
eal_b() {
	if [ "$xdp" = packet ]; then ns_eal_packet "$NS_B" "$IF_B" "nsb$$" 1
	else ns_eal "$NS_B" "$IF_B" "nsb$$" "$xdp" 1; fi
}
ns_setup
out=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$out"' EXIT INT TERM

# A kernel TCP echo server in A, alive during the RDMA run.
ns_run "$NS_A" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5001)); s.listen(1); s.settimeout(30)
c, _ = s.accept()
while True:
    d = c.recv(4096)
    if not d: break
    c.sendall(d)
' > "$out/echo.log" 2>&1 &
echo_pid=$!

# shellcheck disable=SC2046
ns_run "$NS_A" "$demo" $(eal_a) -- \
	--mode cm --server --port 7471 --iters 2000 > "$out/server.log" 2>&1 &
srv=$!
sleep 1
# shellcheck disable=SC2046
ns_run "$NS_B" "$demo" $(eal_b) -- \
	--mode cm --connect "$IP_A" --port 7471 --iters 2000 > "$out/client.log" 2>&1 &
cli=$!

# Kernel traffic on the same interfaces while RDMA runs.
ping_ok=0
ip netns exec "$NS_B" python3 "$here/icmp_ping.py" "$IP_A" 20 > "$out/ping.log" 2>&1 && ping_ok=1
tcp_ok=0
ip netns exec "$NS_B" python3 -c '
import socket, sys
c = socket.create_connection(("'"$IP_A"'", 5001), timeout=5)
for i in range(50):
    m = ("hello %d " % i).encode() * 20
    c.sendall(m)
    got = b""
    while len(got) < len(m):
        got += c.recv(4096)
    if got != m: sys.exit(1)
c.close()
' > "$out/tcp.log" 2>&1 && tcp_ok=1

rc=0
wait "$cli" || rc=1
wait "$srv" || rc=1
wait "$echo_pid" 2> /dev/null || true

echo "---- server"; cat "$out/server.log"
echo "---- client"; cat "$out/client.log"
echo "---- ping"; cat "$out/ping.log"
echo "---- tcp"; cat "$out/tcp.log"
grep -q "CHECK server WRITE" "$out/server.log" || { echo "FAIL: server data check"; rc=1; }
grep -q "CHECK client READ" "$out/client.log" || { echo "FAIL: client data check"; rc=1; }
grep -q "RESULT rdma-write" "$out/client.log" || { echo "FAIL: no ping-pong result"; rc=1; }
[ "$ping_ok" = 1 ] || { echo "FAIL: ping over the XDP interface"; rc=1; }
[ "$tcp_ok" = 1 ] || { echo "FAIL: TCP over the XDP interface"; rc=1; }
echo "ping ok=$ping_ok tcp ok=$tcp_ok rc=$rc"
exit $rc
