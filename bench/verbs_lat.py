#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""The cost of the libibverbs compatibility layer: Debian's ib_write_lat
(both sides, on prdma's libibverbs.so.1) against prdma-perf write_lat
(both sides, prdma's own API), same link (memif), same size, same
iterations, measured alternately in one run. prdma-perf runs twice: with
its own inline progress (its default), and with progress=thread as the
verbs library uses, which separates the cost of the progress thread from
the cost of the translation. Prints t_typical and the ratios; absolute
figures move with the machine's load.
usage: bench/verbs_lat.py <build dir> [rounds] [iterations] [size]
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
    libdir = os.path.join(build, "lib", "verbs")
    perf = os.path.join(build, "apps", "prdma-perf", "prdma-perf")
    tmp = tempfile.mkdtemp(prefix="verbs-lat-")
    args = ["-n", iters, "-s", size]
    kinds = ("verbs", "perf", "perf-thread")
    res = {k: [] for k in kinds}
    for r in range(rounds):
        for k, kind in enumerate(kinds):
            port = 19000 + 3 * r + k
            sock = os.path.join(tmp, "b%d.sock" % port)
            if kind == "verbs":
                prog = ["ib_write_lat", "-p", str(port)] + args
                sv = side("verbs", "server", sock, "bs%d" % port, 0, 0, libdir, prog)
                cl = side("verbs", "client", sock, "bc%d" % port, 1, 1, libdir, prog,
                          host="127.0.0.1")
            else:
                extra = ",progress=thread" if kind == "perf-thread" else ""
                sv = side("perf", "server", sock, "bs%d" % port, 0, 0, libdir, args,
                          perf=perf, perf_test="write_lat", port=port, dev_extra=extra)
                cl = side("perf", "client", sock, "bc%d" % port, 1, 1, libdir, args,
                          perf=perf, perf_test="write_lat", port=port, host="127.0.0.1",
                          dev_extra=extra)
            _, cout = run_pair("%s round %d" % (kind, r), sv, cl, sock, timeout=300)
            res[kind].append(typical(cout))
            print("round %d %-11s t_typical %.2f us" % (r, kind, res[kind][-1]))
    v, p, t = (statistics.median(res[k]) for k in kinds)
    print("ib_write_lat -s %s -n %s over memif, median of %d rounds:" % (size, iters, rounds))
    print("  ib_write_lat on prdma's libibverbs        t_typical %8.2f us" % v)
    print("  prdma-perf write_lat (inline progress)    t_typical %8.2f us" % p)
    print("  prdma-perf write_lat (progress=thread)    t_typical %8.2f us" % t)
    print("  ratio verbs / prdma-perf inline           %8.2f" % (v / p))
    print("  ratio verbs / prdma-perf progress=thread  %8.2f" % (v / t))


if __name__ == "__main__":
    main()
