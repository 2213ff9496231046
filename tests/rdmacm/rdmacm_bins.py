#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Debian's rdmacm-utils binaries, unmodified, on prdma's librdmacm.so.1 and
libibverbs.so.1 (LD_LIBRARY_PATH), two processes over a memif link; and
each against prdma's own apps on the other side where prdma has one.

- rping -v -C N both ways (Debian <-> Debian, Debian <-> prdma-rping):
  both exit 0 and both print rping's ping data, ping by ping;
- rdma_server / rdma_client (synchronous endpoints, rdma_get_request);
- ucmatose, several connections, several messages each;
- udaddy (UD, SIDR, a reply AH from each datagram's GRH area) both ways
  (Debian <-> Debian, Debian <-> prdma-udaddy);
- an unreachable port: rping's client fails cleanly (REJECTED).
usage: rdmacm_bins.py <prdma verbs dir> <prdma rdmacm dir> <prdma-rping> <tmp>
       [<prdma-udaddy>]
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from perf_common import devargs, fail, memif_args, sock_ready  # noqa

VERBS_DIR, RDMACM_DIR, PRDMA_RPING, TMP = sys.argv[1:5]
PRDMA_UDADDY = sys.argv[5] if len(sys.argv) > 5 else None
SERVER_IP = "192.0.2.1"
CLIENT_IP = "192.0.2.2"


def rping_data(i, size):
    """rping.c's start buffer of ping i, as its -v prints it."""
    out = list(("rdma-ping-%d: " % i)[:size - 1])
    c = 65 + i % 58
    while len(out) < size - 1:
        out.append(chr(c))
        c = 65 if c == 122 else c + 1
    return "".join(out)


def drop_in(role, sock, prefix, lcore, side):
    """The environment that puts a Debian binary on prdma."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = VERBS_DIR + ":" + RDMACM_DIR
    env["PRDMA_VERBS_EAL"] = " ".join(memif_args(role, sock, prefix, lcore))
    env["PRDMA_VERBS_DEVARGS"] = devargs(side)
    env.pop("PRDMA_VERBS_CONF", None)
    return env


def prdma_app(app, role, sock, prefix, lcore, side, args):
    return [app] + memif_args(role, sock, prefix, lcore) + \
        ["--", "--devargs", devargs(side), "--timeout", "10"] + args


def run_pair(name, server, client, timeout=60, stop_server=False):
    """run_pair_once, again once if a process died of a signal: DPDK
    22.11's memif PMD can crash on a peer's disconnect (perf_common.py).
    A second such death is returned as it is."""
    r = run_pair_once(name, server, client, timeout, stop_server)
    if (r[0] < 0 and not stop_server) or r[2] < 0:
        print("WARNING: %s: a process died of signal %d (DPDK memif?); running the "
              "pair again; its output:" % (name, -min(r[0], r[2])))
        print(r[1] + "\n----\n" + r[3])
        r = run_pair_once(name, server, client, timeout, stop_server)
    return r


def run_pair_once(name, server, client, timeout, stop_server):
    """server/client: ("debian", argv) or ("prdma", app, argv). The server
    side owns the memif socket and is 192.0.2.1, the client 192.0.2.2."""
    sock = os.path.join(TMP, "rcm-%s-%d.sock" % (name, os.getpid()))
    if os.path.exists(sock):
        os.unlink(sock)
    tag = "%d%s" % (os.getpid(), name)

    def cmd(spec, role, lcore, side):
        if spec[0] == "debian":
            return spec[1], drop_in(role, sock, "rcm%s%s" % (role[0], tag), lcore, side)
        return prdma_app(spec[1], role, sock, "rcm%s%s" % (role[0], tag), lcore, side,
                         spec[2]), None

    sargv, senv = cmd(server, "server", 0, 0)
    cargv, cenv = cmd(client, "client", 1, 1)
    srv = subprocess.Popen(sargv, env=senv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(0.5)   # the server's rdma_listen follows its EAL start
    try:
        cli = subprocess.run(cargv, env=cenv, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=timeout)
        if stop_server:
            srv.kill()
        sout, _ = srv.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        srv.kill()
        out, _ = srv.communicate()
        print(out)
        fail("%s: timed out" % name)
    finally:
        if srv.poll() is None:
            srv.kill()
    return srv.returncode, sout, cli.returncode, cli.stdout


def check_udaddy(name, server, client):
    """Both sides finish their transfers: udaddy's server answers every
    message through an AH made from the datagram's GRH area."""
    src, sout, crc, cout = run_pair(name, server, client)
    if src != 0 or crc != 0 or "return status 0" not in sout or \
            "return status 0" not in cout or "data transfers complete" not in cout:
        print(sout + "\n----\n" + cout)
        fail("%s: server rc %d, client rc %d" % (name, src, crc))
    print("ok: %s: 10 datagrams each way, replies through an AH from the GRH" % name)


def lines(out, prefix):
    return [ln[len(prefix):] for ln in out.splitlines() if ln.startswith(prefix)]


def check_rping(name, server, client, n, size):
    src, sout, crc, cout = run_pair(name, server, client)
    if src != 0 or crc != 0:
        print(sout + "\n----\n" + cout)
        fail("%s: server rc %d, client rc %d" % (name, src, crc))
    want = [rping_data(i, size) for i in range(n)]
    if lines(cout, "ping data: ") != want or lines(sout, "server ping data: ") != want:
        print(sout + "\n----\n" + cout)
        fail("%s: the ping data is not rping's pattern, ping by ping" % name)
    print("ok: %s: %d pings of %d bytes, rping's data on both sides" % (name, n, size))


def main():
    os.makedirs(TMP, exist_ok=True)
    n, size = 10, 100
    rps = ["rping", "-s", "-a", SERVER_IP, "-p", "7180", "-v", "-C", str(n), "-S", str(size)]
    rpc = ["rping", "-c", "-a", SERVER_IP, "-p", "7180", "-v", "-C", str(n), "-S", str(size)]
    check_rping("rping", ("debian", rps), ("debian", rpc), n, size)
    check_rping("rping-vs-prdma-server",
                ("prdma", PRDMA_RPING, ["-s", "-p", "7180", "-v", "-S", str(size)]),
                ("debian", rpc), n, size)
    check_rping("rping-vs-prdma-client", ("debian", rps),
                ("prdma", PRDMA_RPING, ["-c", "-a", SERVER_IP, "-p", "7180", "-v", "-V",
                                        "-C", str(n), "-S", str(size)]), n, size)

    src, sout, crc, cout = run_pair(
        "rdma_server", ("debian", ["rdma_server", "-s", SERVER_IP, "-p", "7471"]),
        ("debian", ["rdma_client", "-s", SERVER_IP, "-p", "7471"]))
    if src != 0 or crc != 0 or "rdma_server: end 0" not in sout or \
            "rdma_client: end 0" not in cout:
        print(sout + "\n----\n" + cout)
        fail("rdma_server/rdma_client: server rc %d, client rc %d" % (src, crc))
    print("ok: rdma_server / rdma_client: a message each way on synchronous endpoints")

    src, sout, crc, cout = run_pair(
        "ucmatose", ("debian", ["ucmatose", "-b", SERVER_IP, "-c", "4", "-C", "20"]),
        ("debian", ["ucmatose", "-s", SERVER_IP, "-b", CLIENT_IP, "-c", "4", "-C", "20"]))
    if src != 0 or crc != 0 or "return status 0" not in sout or "return status 0" not in cout:
        print(sout + "\n----\n" + cout)
        fail("ucmatose: server rc %d, client rc %d" % (src, crc))
    print("ok: ucmatose: 4 connections, 20 messages each way, disconnected")

    check_udaddy("udaddy", ("debian", ["udaddy", "-b", SERVER_IP, "-C", "10"]),
                 ("debian", ["udaddy", "-s", SERVER_IP, "-b", CLIENT_IP, "-C", "10"]))
    if PRDMA_UDADDY is not None:
        check_udaddy("udaddy-vs-prdma-server",
                     ("prdma", PRDMA_UDADDY, ["-b", SERVER_IP, "-C", "10"]),
                     ("debian", ["udaddy", "-s", SERVER_IP, "-b", CLIENT_IP, "-C", "10"]))
        check_udaddy("udaddy-vs-prdma-client",
                     ("debian", ["udaddy", "-b", SERVER_IP, "-C", "10"]),
                     ("prdma", PRDMA_UDADDY, ["-s", SERVER_IP, "-b", CLIENT_IP, "-C", "10"]))

    # Nobody listens on the port: the REQ is rejected and rping says so.
    src, sout, crc, cout = run_pair(
        "refused", ("debian", ["rping", "-s", "-a", SERVER_IP, "-p", "7181", "-C", "1"]),
        ("debian", ["rping", "-c", "-a", SERVER_IP, "-p", "7182", "-C", "1"]), timeout=30,
        stop_server=True)
    if crc == 0 or "REJECTED" not in cout:
        print(sout + "\n----\n" + cout)
        fail("rping to a port nobody listens on succeeded")
    print("ok: rping to a port nobody listens on fails (client rc %d)" % crc)


main()
