#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma-rping: rdma-core 44's rping counterpart, prdma <-> prdma over a
memif link (the CM resolves the peer's MAC by ARP on the link).

1. -C 5 -S 100 -v -V: both exit 0, the server disconnects on the client's
   DREQ, and both print rping's exact ping data, ping by ping (the start
   letter moving by one each ping), so the data crossed the READ and the
   WRITE unchanged.
2. A server of -S 64 and a client of -S 100: the server refuses to READ
   past its buffer, and both fail.
usage: rping.py <prdma-rping> <tmp dir>
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_common import devargs, fail, memif_args, sock_ready  # noqa


def rping_data(i, size):
    """rping.c's start buffer of ping i, as its -v prints it."""
    out = list(("rdma-ping-%d: " % i)[:size - 1])
    c = 65 + i % 58
    while len(out) < size - 1:
        out.append(chr(c))
        c = 65 if c == 122 else c + 1
    return "".join(out)


def run_pair(tool, tmp, port, sargs, cargs):
    sock = os.path.join(tmp, "rping-%d.sock" % port)
    srv = subprocess.Popen(
        [tool] + memif_args("server", sock, "rps%d" % port, 0) + ["--", "-s", "-p", str(port),
                                                                "--timeout", "10",
                                                                "--devargs", devargs(0)] +
        sargs, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [tool] + memif_args("client", sock, "rpc%d" % port, 1) +
            ["--", "-c", "-a", "192.0.2.1", "-p", str(port), "--timeout", "10",
             "--devargs", devargs(1)] + cargs,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        sout, _ = srv.communicate(timeout=60)
    finally:
        if srv.poll() is None:
            srv.kill()
    return srv.returncode, sout, cli.returncode, cli.stdout


def lines(out, prefix):
    return [ln[len(prefix):] for ln in out.splitlines() if ln.startswith(prefix)]


def main():
    tool, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    n, size = 5, 100
    src, sout, crc, cout = run_pair(tool, tmp, 7174, ["-v", "-S", str(size)],
                                    ["-v", "-V", "-C", str(n), "-S", str(size)])
    if src != 0 or crc != 0:
        print(sout + cout)
        fail("-C %d -S %d: server rc %d, client rc %d" % (n, size, src, crc))
    want = [rping_data(i, size) for i in range(n)]
    if lines(cout, "ping data: ") != want or lines(sout, "server ping data: ") != want:
        print(sout + cout)
        fail("the ping data is not rping's pattern, ping by ping")
    if "server DISCONNECT EVENT..." not in sout:
        print(sout)
        fail("the server did not see the client's disconnect")
    print("ok: %d pings of %d bytes, READ and WRITE back, rping's data on both sides" %
          (n, size))

    src, sout, crc, cout = run_pair(tool, tmp, 7175, ["-S", "64"], ["-V", "-C", "1", "-S", "100"])
    if src == 0 or crc == 0 or "client's buffer (100) is larger than ours (64)" not in sout:
        print(sout + cout)
        fail("a client buffer larger than the server's: server rc %d, client rc %d" %
             (src, crc))
    print("ok: a client buffer larger than the server's is refused")


main()
