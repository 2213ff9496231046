# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Running Debian's own verbs binaries on prdma's libibverbs.so.1.

Each side of a pair is either an unmodified verbs binary, given its EAL
arguments and devargs through the environment (PRDMA_VERBS_EAL,
PRDMA_VERBS_DEVARGS) and prdma's library through LD_LIBRARY_PATH, or
prdma-perf with the same memif link. The memif/EAL/devargs helpers are
tests/tools/perf_common.py's.
"""

import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from perf_common import EAL, devargs, dmac, fail, memif_args, sock_ready  # noqa: E402,F401


def verbs_env(libdir, eal, dev):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"]
                                       if env.get("LD_LIBRARY_PATH") else "")
    env["PRDMA_VERBS_EAL"] = " ".join(eal)
    env["PRDMA_VERBS_DEVARGS"] = dev
    env.pop("PRDMA_VERBS_CONF", None)
    return env


def need(binary):
    path = shutil.which(binary)
    if path is None:
        # The binaries come with Debian's perftest and ibverbs-utils, which
        # devtools/common.sh installs: their absence is a broken setup.
        fail("%s is not installed (apt-get install perftest ibverbs-utils)" % binary)
    return path


def side(kind, role, sock, tag, lcore, me, libdir, args, perf=None, perf_test=None, port=None,
         host=None, dev_extra=""):
    """(argv, env) of one side. kind 'verbs': args is the binary and its
    arguments; kind 'perf': prdma-perf running perf_test with args."""
    eal = memif_args(role, sock, tag, lcore)
    other = 1 - me
    if kind == "verbs":
        argv = [need(args[0])] + list(args[1:]) + ([host] if host else [])
        env = verbs_env(libdir, eal, devargs(me) + dev_extra)
        if host:
            # The memif link comes up in both processes at once: the
            # client gives the server time to reach its listen().
            env["PRDMA_VERBS_LINK_SETTLE_MS"] = "1000"
        return argv, env
    argv = [perf] + eal + ["--", perf_test, "-p", str(port)] + list(args) + \
        ["--devargs", devargs(me) + dev_extra, "--dmac", dmac(other)] + ([host] if host else [])
    return argv, dict(os.environ)


def run_pair_once(sv, cl, sock, timeout):
    if os.path.exists(sock):
        os.unlink(sock)
    srv = subprocess.Popen(sv[0], env=sv[1], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    for _ in range(400):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(0.2)  # the socket is bound a moment before it listens
    cout = ""
    crc = None
    try:
        try:
            cli = subprocess.run(cl[0], env=cl[1], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, timeout=timeout)
            cout, crc = cli.stdout, cli.returncode
        except subprocess.TimeoutExpired as e:
            cout = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            crc = "timeout"
        try:
            sout, _ = srv.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            srv.kill()
            sout, _ = srv.communicate()
            return "timeout", sout, crc, cout
    finally:
        if srv.poll() is None:
            srv.kill()
    return srv.returncode, sout, crc, cout


# "Failed status 12" is perftest's way of saying IBV_WC_RETRY_EXC_ERR;
# "Couldn't connect to" is the pingpong programs' refused TCP connect.
LOAD_SYMPTOMS = ("state is Down", "Failed to connect socket", "retry counter exceeded",
                 "Failed status 12", "Couldn't connect to")


def run_pair(name, sv, cl, sock, timeout=90):
    """Both sides must exit 0. A process killed by a signal is run again
    once: DPDK 22.11's memif PMD can crash a process at its peer's
    disconnect (tests/tools/perf_common.run_pair says how)."""
    r = run_pair_once(sv, cl, sock, timeout)
    if isinstance(r[0], int) and isinstance(r[2], int) and (r[0] < 0 or r[2] < 0):
        print("WARNING: %s: a process died of a signal (DPDK memif); running again" % name)
        r = run_pair_once(sv, cl, sock, timeout)
    elif (r[0] != 0 or r[2] != 0) and any(m in r[1] + r[3] for m in LOAD_SYMPTOMS):
        # Seen only when the shared machine is overloaded (load average
        # above 30): the link not up within PRDMA_VERBS_LINK_WAIT, the
        # memif socket bound but not yet listening, a peer's progress
        # thread starved past the programs' fixed 0.5 s retry budget.
        print("WARNING: %s: %s; running again" %
              (name, [m for m in LOAD_SYMPTOMS if m in r[1] + r[3]]))
        r = run_pair_once(sv, cl, sock, timeout)
    src, sout, crc, cout = r
    if src != 0 or crc != 0:
        print("--- server\n" + sout + "\n--- client\n" + cout)
        fail("%s: server exit %s, client exit %s" % (name, src, crc))
    return sout, cout
