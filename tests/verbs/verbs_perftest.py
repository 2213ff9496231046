#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Debian's perftest 4.5 binaries, unmodified, on prdma's libibverbs, two
processes over a memif link: each test with both sides the Debian binary,
then with prdma-perf as the server and as the client (prdma-perf follows perftest's
exchange, so each side must understand the other). Every run must exit 0
and print its result row.
usage: verbs_perftest.py <verbs libdir> <prdma-perf> <tmp dir> <group>
group: lat | bw | atomic; [filter]: only the cases whose command line has it
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verbs_common import fail, run_pair, side  # noqa: E402

# (binary, prdma-perf test or None when it has none, extra arguments[,
#  {"perf_dev": prdma-perf's extra devargs, "modes": the modes to run}])
GROUPS = {
    "lat": [
        ("ib_write_lat", "write_lat", ["-n", "200"]),
        ("ib_write_lat", "write_lat", ["-n", "200", "-c", "UC"]),
        ("ib_read_lat", "read_lat", ["-n", "200"]),
        ("ib_send_lat", "send_lat", ["-n", "200"]),
        ("ib_send_lat", "send_lat", ["-n", "200", "-c", "UC"]),
        ("ib_send_lat", "send_lat", ["-n", "200", "-c", "UD"]),
    ],
    "bw": [
        ("ib_write_bw", "write_bw", ["-n", "500"]),
        ("ib_write_bw", "write_bw", ["-n", "500", "-c", "UC"]),
        ("ib_read_bw", "read_bw", ["-n", "500"]),
        ("ib_send_bw", "send_bw", ["-n", "500"]),
        ("ib_send_bw", "send_bw", ["-n", "500", "-c", "UC"]),
        ("ib_send_bw", "send_bw", ["-n", "500", "-c", "UC", "-s", "1024"]),
        ("ib_send_bw", "send_bw", ["-n", "500", "-c", "UD"]),
        # prdma-perf copying payloads (zc=0): a UC SEND completes once its
        # frames are staged, before the port has taken them, and prdma-perf
        # once stopped progressing its device after its last completion,
        # so the last messages never left and Debian's server, which waits
        # for all 500, gave up (exit 17). Zero-copy completes only once the
        # port let go of the frames, which hid it in the case above.
        ("ib_send_bw", "send_bw", ["-n", "500", "-c", "UC"],
         {"perf_dev": ",zc=0", "modes": ("perf-client",)}),
    ],
    "atomic": [
        ("ib_atomic_lat", "atomic_lat", ["-n", "200"]),
        ("ib_atomic_lat", "atomic_lat", ["-n", "200", "-A", "FETCH_AND_ADD"]),
        ("ib_atomic_bw", "atomic_bw", ["-n", "200"]),
        ("ib_atomic_bw", "atomic_bw", ["-n", "200", "-A", "CMP_AND_SWAP"]),
    ],
}

LAT_ROW = re.compile(r"^\s*\d+\s+\d+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+", re.M)
BW_ROW = re.compile(r"^\s*\d+\s+\d+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+", re.M)


def check(name, out, binary):
    if not (LAT_ROW if "lat" in binary else BW_ROW).search(out):
        print(out)
        fail("%s: no result row" % name)


def main():
    libdir, perf, tmp, group = sys.argv[1:5]
    only = sys.argv[5] if len(sys.argv) > 5 else None  # run the cases naming it
    os.makedirs(tmp, exist_ok=True)
    base = {"lat": 18800, "bw": 18850, "atomic": 18900}[group]
    for i, case in enumerate(GROUPS[group]):
        binary, ptest, args = case[:3]
        opt = case[3] if len(case) > 3 else {}
        pdev = opt.get("perf_dev", "")
        if only and only not in " ".join([binary] + args + [pdev]):
            continue
        for j, mode in enumerate(("verbs", "perf", "perf-client")):
            if ptest is None and mode != "verbs":
                continue  # prdma-perf has no such test
            if mode not in opt.get("modes", (mode,)):
                continue
            port = base + 3 * i + j
            name = "%s %s (%s%s)" % (binary, " ".join(args), {
                "verbs": "both Debian's", "perf": "prdma-perf server",
                "perf-client": "prdma-perf client"}[mode], pdev and ", devargs " + pdev)
            sock = os.path.join(tmp, "vpt-%s-%d.sock" % (group, port))
            if mode == "perf":
                sv = side("perf", "server", sock, "vpts%d" % port, 0, 0, libdir, args,
                          perf=perf, perf_test=ptest, port=port, dev_extra=pdev)
            else:
                sv = side("verbs", "server", sock, "vpts%d" % port, 0, 0, libdir,
                          [binary, "-p", str(port)] + args)
            if mode == "perf-client":
                cl = side("perf", "client", sock, "vptc%d" % port, 1, 1, libdir, args,
                          perf=perf, perf_test=ptest, port=port, host="127.0.0.1",
                          dev_extra=pdev)
            else:
                cl = side("verbs", "client", sock, "vptc%d" % port, 1, 1, libdir,
                          [binary, "-p", str(port)] + args, host="127.0.0.1")
            sout, cout = run_pair(name, sv, cl, sock, timeout=120)
            if mode != "perf-client":
                check(name, cout, binary)
            # The passive side of WRITE, READ and atomic tests reports
            # nothing (perftest's own behaviour); SEND's receiver does.
            if mode != "perf" and "send" in binary:
                check(name, sout, binary)
            print("ok: %s" % name)


if __name__ == "__main__":
    main()
