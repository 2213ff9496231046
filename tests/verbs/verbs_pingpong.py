#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Debian's ibv_rc/uc/ud/srq_pingpong, unmodified, on prdma's libibverbs,
two processes over a memif link. Each must finish with exit status 0,
print its result lines, and name the other side's QP; --chk (RC, UC, SRQ)
has the receiver check every byte the sender wrote.
usage: verbs_pingpong.py <verbs libdir> <tmp dir>
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verbs_common import fail, run_pair, side  # noqa: E402

ADDR = r"^  %s address: +LID 0x[0-9a-f]{4}, QPN (0x[0-9a-f]{6}), PSN 0x[0-9a-f]{6}[:,] GID (\S+)$"

CASES = [
    ("ibv_rc_pingpong", ["-g", "0", "-n", "200", "--chk"]),
    ("ibv_rc_pingpong", ["-g", "0", "-n", "50", "-s", "65536", "--chk"]),
    ("ibv_rc_pingpong", ["-g", "0", "-n", "100", "-e", "--chk"]),
    ("ibv_uc_pingpong", ["-g", "0", "-n", "200", "--chk"]),
    ("ibv_ud_pingpong", ["-g", "0", "-n", "200", "-s", "512"]),
    ("ibv_srq_pingpong", ["-g", "0", "-n", "200", "-q", "4", "--chk"]),
]


def main():
    libdir, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    for i, (binary, args) in enumerate(CASES):
        port = 18700 + i
        name = " ".join([binary] + args)
        sock = os.path.join(tmp, "vpp%d.sock" % i)
        common = [binary, "-p", str(port)] + args
        sv = side("verbs", "server", sock, "vpps%d" % i, 0, 0, libdir, common)
        cl = side("verbs", "client", sock, "vppc%d" % i, 1, 1, libdir, common, host="127.0.0.1")
        sout, cout = run_pair(name, sv, cl, sock)
        n = int(args[args.index("-n") + 1])
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
        print("ok: %s" % name)


if __name__ == "__main__":
    main()
