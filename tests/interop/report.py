#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Prints the interop matrix as a Markdown table from the results.json of
one or more runs: report.py LABEL=OUTDIR... (each OUTDIR a group's --outdir,
or a directory holding several). A case missing from a run shows as "-".
"""

import json
import os
import sys


def load(path):
    files = []
    if os.path.isfile(os.path.join(path, "results.json")):
        files.append((os.path.basename(os.path.normpath(path)),
                      os.path.join(path, "results.json")))
    else:
        order = ["afxdp-p2k", "afxdp-k2p", "afpacket-p2k", "afpacket-k2p", "cm-afxdp"]
        for d in sorted(os.listdir(path), key=lambda d: (order.index(d) if d in order
                                                         else len(order), d)):
            f = os.path.join(path, d, "results.json")
            if os.path.isfile(f):
                files.append((d, f))
    out = {}
    for g, f in files:
        with open(f) as fh:
            for r in json.load(fh):
                out["%s | %s" % (g, r["case"])] = r
    return out


def why(r):
    """The first note that says what failed (not a summary or a note)."""
    import re
    for n in r["notes"]:
        if re.match(r"wire: \d+ frames|note:|peer \(rxe\)|rxe counters|tap toward", n):
            continue
        n = re.sub(r"; last lines: ", ": ", n)
        return n[:150]
    return ""


def main():
    runs = []
    for arg in sys.argv[1:]:
        label, path = arg.split("=", 1)
        runs.append((label, load(path)))
    names = []
    for _, res in runs:
        for n in res:
            if n not in names:
                names.append(n)
    print("| group | case | " + " | ".join(l for l, _ in runs) +
          " | why (the last run that failed) |")
    print("|---|---|" + "---|" * len(runs) + "---|")
    for n in names:
        cells = []
        reason = ""
        for _, res in runs:
            r = res.get(n)
            if r is None:
                cells.append("-")
            else:
                cells.append("PASS" if r["pass"] else "FAIL")
                if not r["pass"]:
                    reason = why(r)
        print("| %s | %s | %s |" % (n, " | ".join(cells), reason.replace("|", "/")))
    for label, res in runs:
        p = sum(1 for r in res.values() if r["pass"])
        print("\n%s: %d of %d passed" % (label, p, len(res)), end="")
    print()


if __name__ == "__main__":
    main()
