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


def devargs(side, ip=None):
    ip = ip or "192.0.2.%d" % (side + 1)
    return "roce:port=0,ip=%s,mac=02:00:00:00:00:0%d" % (ip, side + 1)


def dmac(side):
    return "02:00:00:00:00:0%d" % (side + 1)


def sock_ready(sock):
    if os.path.exists(sock):
        return True
    with open("/proc/net/unix") as f:
        return any(line.rstrip().endswith(" @" + sock) for line in f)


def run_pair(perf, test, extra, tmp, port, timeout=60, host="127.0.0.1", ips=(None, None),
             cextra=(), sextra=()):
    """run_pair_once, run again once if a process died of a signal: DPDK
    22.11's memif PMD can crash on a peer's disconnect (its interrupt
    thread panics re-adding a control fd it closed after a failed
    sendmsg, or races the port's own stop). A second crash fails."""
    r = run_pair_once(perf, test, extra, tmp, port, timeout, host, ips, cextra, sextra, True)
    if r is None:
        print("WARNING: %s: a process died of a signal at teardown (DPDK memif); "
              "running the pair again" % test)
        r = run_pair_once(perf, test, extra, tmp, port, timeout, host, ips, cextra, sextra,
                          False)
    return r


def run_pair_once(perf, test, extra, tmp, port, timeout, host, ips, cextra, sextra,
                  may_retry):
    """Run a server and a client over a memif link and TCP on 127.0.0.1.
    ips: the RoCE addresses (server, client); cextra/sextra: one side's
    own options. Returns (server output, client output, server trace,
    client trace)."""
    sock = os.path.join(tmp, "memif-%s.sock" % test)
    if os.path.exists(sock):
        os.unlink(sock)
    st = os.path.join(tmp, "%s.server.trace" % test)
    ct = os.path.join(tmp, "%s.client.trace" % test)
    common = [test, "-p", str(port)] + extra
    srv = subprocess.Popen(
        [perf] + memif_args("server", sock, "s" + test, 0) + ["--"] + common +
        ["--devargs", devargs(0, ips[0]), "--dmac", dmac(1), "--oob-trace", st] +
        list(sextra),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # The memif client needs the server's socket to exist (DPDK 22.11's
    # memif makes it in the abstract namespace: no file, a '@' entry).
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [perf] + memif_args("client", sock, "c" + test, 1) + ["--"] + common +
            ["--devargs", devargs(1, ips[1]), "--dmac", dmac(0), "--oob-trace", ct] +
            list(cextra) + [host],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=timeout)
        sout, _ = srv.communicate(timeout=timeout)
    finally:
        if srv.poll() is None:
            srv.kill()
    if may_retry and (cli.returncode < 0 or srv.returncode < 0) and \
            cli.returncode in (0, -6, -11) and srv.returncode in (0, -6, -11):
        return None
    if cli.returncode != 0 or srv.returncode != 0:
        print(sout)
        print(cli.stdout)
        fail("%s: server rc %s, client rc %s" % (test, srv.returncode, cli.returncode))
    return sout, cli.stdout, read_trace(st), read_trace(ct)
