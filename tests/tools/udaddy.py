#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma-udaddy: rdma-core 44's udaddy counterpart, prdma <-> prdma over a
memif link.

1. The defaults (10 messages of 100 bytes) and -C 3 -S 512: SIDR resolves
   the server's QPN and Q_Key, the client's SENDs reach the server, the
   server's replies reach the client's QPN (from the immediate) and carry
   the client's message after the GRH room; both "return status 0".
2. A client with nobody listening: no SIDR_REP, it fails (exit != 0).
usage: udaddy.py <prdma-udaddy> <tmp dir>
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_common import devargs, fail, memif_args, sock_ready  # noqa


def run_pair(tool, tmp, tag, args, serve=True):
    sock = os.path.join(tmp, "udaddy-%s.sock" % tag)
    common = ["--timeout", "5"] + args
    srv = subprocess.Popen(
        [tool] + memif_args("server", sock, "uds%s" % tag, 0) + ["--", "--devargs", devargs(0)] +
        (common if serve else ["-s", "192.0.2.2"] + common),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [tool] + memif_args("client", sock, "udc%s" % tag, 1) +
            ["--", "--devargs", devargs(1), "-s", "192.0.2.1"] + common,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        sout, _ = srv.communicate(timeout=60)
    finally:
        if srv.poll() is None:
            srv.kill()
    return srv.returncode, sout, cli.returncode, cli.stdout


def main():
    tool, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    for tag, args, checked in (("a", [], 60), ("b", ["-C", "3", "-S", "512"], 472)):
        src, sout, crc, cout = run_pair(tool, tmp, tag, args)
        if src != 0 or crc != 0:
            print(sout + cout)
            fail("%s: server rc %d, client rc %d" % (args, src, crc))
        for out in (sout, cout):
            if "data transfers complete" not in out or "return status 0" not in out:
                print(out)
                fail("%s: no 'data transfers complete' / 'return status 0'" % args)
        if "replies carry our message's first %d bytes" % checked not in cout:
            print(cout)
            fail("%s: the client did not find its message in the replies" % args)
        print("ok: udaddy %s: SIDR, SENDs and replies, %d bytes checked" %
              (" ".join(args) or "(defaults)", checked))

    # Both sides clients: nobody answers the SIDR_REQ.
    src, sout, crc, cout = run_pair(tool, tmp, "c", [], serve=False)
    if crc == 0 or src == 0:
        print(sout + cout)
        fail("two clients: rc %d / %d, a client without a server must fail" % (src, crc))
    print("ok: a client without a server fails")


main()
