#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""The cost of the libibverbs compatibility layer: Debian's ib_write_lat
(both sides, on prdma's libibverbs.so.1) against prdma-perf write_lat
(both sides, prdma's own API), same link (memif), same size, same
iterations, measured alternately in one run. Each runs with the progress
modes that apply: ib_write_lat with the library's default (no progress=
in the devargs), progress=hybrid and progress=thread; prdma-perf with its
own inline progress (its default), progress=hybrid and progress=thread,
which separates the cost of the progress model from the cost of the
translation. Prints t_typical of each and the ratios to prdma-perf
inline; absolute figures move with the machine's load.
usage: bench/verbs_lat.py <build dir> [rounds] [iterations] [size] [test]
test: write_lat (default) or send_lat (ib_send_lat, which polls its CQs)
"""

import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "verbs"))
from verbs_common import run_pair, side  # noqa: E402

ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", re.M)


def typical(out):
    m = ROW.search(out)
    if m is None:
        print(out)
        sys.exit("no result row")
    return float(m.group(5))


def main():
    build = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    iters = sys.argv[3] if len(sys.argv) > 3 else "2000"
    size = sys.argv[4] if len(sys.argv) > 4 else "64"
    test = sys.argv[5] if len(sys.argv) > 5 else "write_lat"
    if test not in ("write_lat", "send_lat"):
        sys.exit("test: write_lat or send_lat")
    libdir = os.path.join(build, "lib", "verbs")
    perf = os.path.join(build, "apps", "prdma-perf", "prdma-perf")
    tmp = tempfile.mkdtemp(prefix="verbs-lat-")
    args = ["-n", iters, "-s", size]
    # (name, program kind, devargs suffix)
    kinds = (("verbs default", "verbs", ""),
             ("verbs hybrid", "verbs", ",progress=hybrid"),
             ("verbs thread", "verbs", ",progress=thread"),
             ("perf inline", "perf", ""),
             ("perf hybrid", "perf", ",progress=hybrid"),
             ("perf thread", "perf", ",progress=thread"))
    res = {k[0]: [] for k in kinds}
    fails = {k[0]: 0 for k in kinds}
    for r in range(rounds):
        for k, (name, kind, extra) in enumerate(kinds):
            port = 19000 + len(kinds) * r + k
            sock = os.path.join(tmp, "b%d.sock" % port)
            if kind == "verbs":
                prog = ["ib_" + test, "-p", str(port)] + args
                sv = side("verbs", "server", sock, "bs%d" % port, 0, 0, libdir, prog,
                          dev_extra=extra)
                cl = side("verbs", "client", sock, "bc%d" % port, 1, 1, libdir, prog,
                          host="127.0.0.1", dev_extra=extra)
            else:
                sv = side("perf", "server", sock, "bs%d" % port, 0, 0, libdir, args,
                          perf=perf, perf_test=test, port=port, dev_extra=extra)
                cl = side("perf", "client", sock, "bc%d" % port, 1, 1, libdir, args,
                          perf=perf, perf_test=test, port=port, host="127.0.0.1",
                          dev_extra=extra)
            try:
                _, cout = run_pair("%s round %d" % (name, r), sv, cl, sock, timeout=300)
            except SystemExit:
                # A run that failed (under load: a retry budget
                # exhausted) counts as a failed round, not as a figure.
                fails[name] += 1
                print("round %d %-13s FAILED" % (r, name), flush=True)
                continue
            res[name].append(typical(cout))
            print("round %d %-13s t_typical %.2f us" % (r, name, res[name][-1]), flush=True)
    med = {k[0]: statistics.median(res[k[0]]) if res[k[0]] else float("nan") for k in kinds}
    print("ib_%s / prdma-perf %s -s %s -n %s over memif, median of %d rounds:" %
          (test, test, size, iters, rounds))
    for name, _, _ in kinds:
        print("  %-13s t_typical %9.2f us  ratio to perf inline %8.2f  (%d failed runs)" %
              (name, med[name], med[name] / med["perf inline"], fails[name]))

if __name__ == "__main__":
    main()
