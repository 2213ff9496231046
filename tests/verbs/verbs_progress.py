#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""progress=hybrid under Debian's unmodified binaries, both sides on prdma's
libibverbs over memif with the mode named in the devargs: ibv_rc_pingpong
--chk polls its CQ (the poll steps the engine), ibv_rc_pingpong -e sleeps
in ibv_get_cq_event, ib_write_lat spins on the memory the peer writes and
polls only its send CQ, ib_send_lat polls its receive CQ; ib_write_lat
also against prdma-perf write_lat in the same mode. Each must exit 0 and
print its result lines (pingpong: data checked by --chk).
usage: verbs_progress.py <verbs libdir> <prdma-perf> <tmp dir>
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verbs_common import fail, run_pair, side  # noqa: E402

MODE = ",progress=hybrid"
PP_ROWS = (r"^\d+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$",
           r"^%d iters in [0-9.]+ seconds = [0-9.]+ usec/iter$")
LAT_ROW = re.compile(r"^\s*\d+\s+\d+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+", re.M)

# (name, binary, args, prdma-perf test for the server or None)
CASES = [
    ("rc_pingpong polling", "ibv_rc_pingpong", ["-g", "0", "-n", "200", "--chk"], None),
    ("rc_pingpong events", "ibv_rc_pingpong", ["-g", "0", "-n", "100", "-e", "--chk"], None),
    ("write_lat memory spin", "ib_write_lat", ["-n", "200"], None),
    ("write_lat vs prdma-perf", "ib_write_lat", ["-n", "200"], "write_lat"),
    ("send_lat polling", "ib_send_lat", ["-n", "200"], None),
]


def main():
    libdir, perf, tmp = sys.argv[1:4]
    os.makedirs(tmp, exist_ok=True)
    for i, (name, binary, args, ptest) in enumerate(CASES):
        port = 18960 + i
        sock = os.path.join(tmp, "vpg%d.sock" % i)
        prog = [binary, "-p", str(port)] + args
        if ptest is not None:
            sv = side("perf", "server", sock, "vpgs%d" % i, 0, 0, libdir, args,
                      perf=perf, perf_test=ptest, port=port, dev_extra=MODE)
        else:
            sv = side("verbs", "server", sock, "vpgs%d" % i, 0, 0, libdir, prog,
                      dev_extra=MODE)
        cl = side("verbs", "client", sock, "vpgc%d" % i, 1, 1, libdir, prog,
                  host="127.0.0.1", dev_extra=MODE)
        sout, cout = run_pair(name, sv, cl, sock, timeout=120)
        if binary.endswith("pingpong"):
            # --chk only prints the bad pages; the exit status stays 0.
            if "invalid data" in sout + cout:
                print(sout + cout)
                fail("%s: the server found invalid data" % name)
            n = int(args[args.index("-n") + 1])
            for out in (sout, cout):
                if not re.search(PP_ROWS[0], out, re.M) or \
                        not re.search(PP_ROWS[1] % n, out, re.M):
                    print(out)
                    fail("%s: no result lines" % name)
        else:
            outs = [cout] + ([sout] if "send" in binary else [])
            for out in outs:
                if not LAT_ROW.search(out):
                    print(out)
                    fail("%s: no result row" % name)
        print("ok: %s (%s)" % (name, " ".join(prog)))


if __name__ == "__main__":
    main()
