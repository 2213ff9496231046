#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Debian's ibv_rc/uc/ud/srq_pingpong, unmodified, on prdma's libibverbs,
two processes over a memif link: each case with both sides the Debian
binary, then with apps/prdma-pingpong (which speaks the tools' TCP
exchange) as the server, then as the client. Each side must finish with
exit status 0, print its result lines, and name the other side's QP;
--chk (every program here has it) has the server check the first byte of
every page the client wrote (prdma-pingpong also the rest of the last
message), so a Debian server checks prdma-pingpong's data and a
prdma-pingpong server the Debian client's; the tools only print "invalid
data in page N", which fails the test.
usage: verbs_pingpong.py <verbs libdir> <tmp dir> [<prdma-pingpong> [filter]]
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verbs_common import devargs, dmac, fail, memif_args, run_pair, side  # noqa: E402

ADDR = r"^  %s address: +LID 0x[0-9a-f]{4}, QPN (0x[0-9a-f]{6}), PSN 0x[0-9a-f]{6}[:,] GID (\S+)$"

CASES = [
    ("ibv_rc_pingpong", ["-g", "0", "-n", "200", "--chk"]),
    ("ibv_rc_pingpong", ["-g", "0", "-n", "50", "-s", "65536", "--chk"]),
    ("ibv_rc_pingpong", ["-g", "0", "-n", "100", "-e", "--chk"]),
    ("ibv_uc_pingpong", ["-g", "0", "-n", "200", "--chk"]),
    ("ibv_ud_pingpong", ["-g", "0", "-n", "200", "-s", "512", "--chk"]),
    ("ibv_srq_pingpong", ["-g", "0", "-n", "200", "-q", "4", "--chk"]),
]

MODES = {"verbs": "both Debian's", "pp": "prdma-pingpong server",
         "pp-client": "prdma-pingpong client"}


def pp_side(pp, role, sock, tag, lcore, me, binary, args, port, host=None, dev_extra=""):
    """prdma-pingpong in place of @p binary, with the same options but -e
    (it polls; the Debian side still sleeps on its completion channel)."""
    kind = binary[len("ibv_"):-len("_pingpong")]
    opts = [a for a in args if a != "-e"]
    argv = [pp] + memif_args(role, sock, tag, lcore) + ["--", kind, "-p", str(port)] + opts + \
        ["--timeout", "60", "--devargs", devargs(me) + dev_extra, "--dmac", dmac(1 - me)] + \
        ([host] if host else [])
    return argv, dict(os.environ)


def check(name, n, sout, cout):
    # --chk: the server checks the first byte of every page after the run
    # and only prints what is wrong (the tools still exit 0).
    if "invalid data" in sout + cout:
        print(sout + cout)
        fail("%s: the server found invalid data" % name)
    for out in (sout, cout):
        if not re.search(r"^\d+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$", out, re.M) \
                or not re.search(r"^%d iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" % n,
                                 out, re.M):
            print(out)
            fail("%s: no result lines" % name)
    sl = re.findall(ADDR % "local", sout, re.M)
    cl_ = re.findall(ADDR % "local", cout, re.M)
    if not sl or sl != re.findall(ADDR % "remote", cout, re.M) or \
            cl_ != re.findall(ADDR % "remote", sout, re.M):
        print(sout + cout)
        fail("%s: the sides do not name each other's QPs" % name)
    if sl[0][1] != "::ffff:192.0.2.1" or cl_[0][1] != "::ffff:192.0.2.2":
        fail("%s: the GIDs are not the devices' addresses: %r %r" % (name, sl, cl_))


def main():
    libdir, tmp = sys.argv[1], sys.argv[2]
    pp = sys.argv[3] if len(sys.argv) > 3 else None
    only = sys.argv[4] if len(sys.argv) > 4 else None  # run the cases naming it
    os.makedirs(tmp, exist_ok=True)
    for i, (binary, args) in enumerate(CASES):
        if only and only not in " ".join([binary] + args):
            continue
        for j, mode in enumerate(MODES):
            if mode != "verbs" and pp is None:
                continue
            port = 18700 + 3 * i + j
            name = "%s (%s)" % (" ".join([binary] + args), MODES[mode])
            sock = os.path.join(tmp, "vpp%d.sock" % port)
            common = [binary, "-p", str(port)] + args
            if mode == "pp":
                # srq: the server may end with SENDs posted that the Debian
                # client, gone at its own count, never ACKs; their zero-copy
                # frames, queued for a memif port whose peer has left, are
                # freed by the QP's destroy (they made the close fail or
                # crash before, doc/guides/verbs.md).
                sv = pp_side(pp, "server", sock, "vpps%d" % port, 0, 0, binary, args, port)
            else:
                sv = side("verbs", "server", sock, "vpps%d" % port, 0, 0, libdir, common)
            if mode == "pp-client":
                cl = pp_side(pp, "client", sock, "vppc%d" % port, 1, 1, binary, args, port,
                             host="127.0.0.1")
            else:
                cl = side("verbs", "client", sock, "vppc%d" % port, 1, 1, libdir, common,
                          host="127.0.0.1")
                if mode == "pp":
                    # The Debian client connects once: prdma-pingpong
                    # listens only after its QPs and receives are set up,
                    # once the link is up; leave it more than the 1 s
                    # side() gives a Debian server.
                    cl[1]["PRDMA_VERBS_LINK_SETTLE_MS"] = "3000"
            sout, cout = run_pair(name, sv, cl, sock)
            check(name, int(args[args.index("-n") + 1]), sout, cout)
            print("ok: %s" % name)


if __name__ == "__main__":
    main()
