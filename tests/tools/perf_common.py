# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Helpers of the prdma-perf tests: EAL arguments, running, trace files."""

import os
import subprocess
import sys
import time

EAL = ["--no-huge", "-m", "512", "--no-shconf", "--no-pci",
       "--log-level=lib.eal:error"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_trace(path):
    """[(dir, bytes)] from a --oob-trace file; dir is 'tx' or 'rx'."""
    out = []
    with open(path) as f:
        for line in f:
            d, n, h = line.split()
            b = bytes.fromhex(h)
            if len(b) != int(n):
                fail("%s: length %s does not match its bytes" % (path, n))
            out.append((d, b))
    return out


def memif_args(role, sock, prefix, lcore):
    return EAL + ["-l", str(lcore), "--file-prefix", prefix,
                  "--vdev=net_memif0,role=%s,socket=%s" % (role, sock)]


def devargs(side):
    ip = "192.0.2.%d" % (side + 1)
    return "roce:port=0,ip=%s,mac=02:00:00:00:00:0%d" % (ip, side + 1)


def dmac(side):
    return "02:00:00:00:00:0%d" % (side + 1)


def run_pair(perf, test, extra, tmp, port, timeout=60, host="127.0.0.1"):
    """Run a server and a client over a memif link and TCP on 127.0.0.1.
    Returns (server output, client output, server trace, client trace)."""
    sock = os.path.join(tmp, "memif-%s.sock" % test)
    if os.path.exists(sock):
        os.unlink(sock)
    st = os.path.join(tmp, "%s.server.trace" % test)
    ct = os.path.join(tmp, "%s.client.trace" % test)
    common = [test, "-p", str(port)] + extra
    srv = subprocess.Popen(
        [perf] + memif_args("server", sock, "s" + test, 0) + ["--"] + common +
        ["--devargs", devargs(0), "--dmac", dmac(1), "--oob-trace", st],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # The memif client needs the server's socket to exist.
    for _ in range(200):
        if os.path.exists(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [perf] + memif_args("client", sock, "c" + test, 1) + ["--"] + common +
            ["--devargs", devargs(1), "--dmac", dmac(0), "--oob-trace", ct,
             host],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=timeout)
        sout, _ = srv.communicate(timeout=timeout)
    finally:
        if srv.poll() is None:
            srv.kill()
    if cli.returncode != 0 or srv.returncode != 0:
        print(sout)
        print(cli.stdout)
        fail("%s: server rc %s, client rc %s" % (test, srv.returncode, cli.returncode))
    return sout, cli.stdout, read_trace(st), read_trace(ct)
