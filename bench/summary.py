#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# The issue-17 target table of one bench/run-all.sh run: every figure
# beside its baseline from the same run, the ratio, the target and whether
# this run met it. It reads only what the scripts left in the output
# directory during this run (files older than --since are "not run"), so a
# figure from an earlier run can never stand in for one of this run.
# Usage: bench/summary.py <out dir> <since epoch> > summary.md

import json
import os
import re
import sys

out, since = sys.argv[1], float(sys.argv[2])


def fresh(name):
    path = os.path.join(out, name)
    try:
        return path if os.path.getmtime(path) >= since else None
    except OSError:
        return None


def jres(name, field):
    """A field of results[0] (or of the top level) of a prdma-perf JSON."""
    path = fresh(name)
    if path is None:
        return None
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return None
    if field in d:
        return float(d[field])
    rows = d.get("results") or []
    if rows and field in rows[0]:
        return float(rows[0][field])
    return None


def result(name, field="p50"):
    """A field of a RESULT line (prdma-nsdemo) kept by the netns scripts."""
    path = fresh(name)
    if path is None:
        return None
    m = re.search(r"\b%s=([\d.]+)" % re.escape(field), open(path).read())
    return float(m.group(1)) if m else None


def grep(name, pattern, group=1):
    path = fresh(name)
    if path is None:
        return None
    m = re.search(pattern, open(path).read(), re.M)
    return float(m.group(group)) if m else None


rows = []


def row(figure, value, base, unit, target, better, percent=False):
    """better: 'le' if the ratio must be at most target, 'ge' at least."""
    if value is None or base is None or base == 0:
        ratio, verdict = None, "not run"
    else:
        ratio = value / base
        ok = ratio <= target if better == "le" else ratio >= target
        verdict = "met" if ok else "not met"
    fmt = (lambda r: "%.0f %%" % (r * 100)) if percent else (lambda r: "%.2fx" % r)
    tgt = ("<= " if better == "le" else ">= ") + fmt(target)
    cell = lambda v: "-" if v is None else ("%.3g" % v)
    rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
        figure, cell(value), cell(base), unit,
        "-" if ratio is None else fmt(ratio), tgt, verdict))


def direct(figure, value, unit, target, better):
    """A figure whose baseline is the target itself (instruction counts)."""
    if value is None:
        verdict = "not run"
    else:
        ok = value <= target if better == "le" else value >= target
        verdict = "met" if ok else "not met"
    rows.append("| %s | %s | - | %s | - | %s %g | %s |" % (
        figure, "-" if value is None else "%.1f" % value, unit,
        "<=" if better == "le" else ">=", target, verdict))


row("net_ring 64 B RC WRITE half RTT p50 / raw ethdev ping-pong p50",
    jres("write_lat_64.json", "p50_us"), jres("raw_lat_64.json", "p50_us"), "us", 2, "le")
row("net_ring 64 B RC WRITE half RTT p99.9 / its p50",
    jres("write_lat_64.json", "p999_us"), jres("write_lat_64.json", "p50_us"), "us", 3, "le")
row("net_ring 64 B WRITE message rate / raw burst",
    jres("write_bw_64.json", "msg_rate_mpps"), jres("raw_bw_64.json", "msg_rate_mpps"), "Mpps",
    0.40, "ge", percent=True)
row("64 KiB WRITE bandwidth (average) / one core's memcpy",
    jres("wbw_65536.json", "gbps"), jres("memcpy_65536.json", "gbps"), "Gb/s", 0.50, "ge",
    percent=True)
row("AF_XDP veth, defaults, no XDP program: RC WRITE half RTT / busy-poll kernel TCP",
    jres("afxdp_rdma.json", "p50_us"), jres("tcp.json", "p50_us"), "us", 0.5, "le")
row("AF_XDP veth, defaults, no XDP program: RC WRITE half RTT / raw AF_XDP",
    jres("afxdp_rdma.json", "p50_us"), jres("afxdp_raw.json", "p50_us"), "us", 1.3, "le")
for key, what in (("rdma", "defaults"), ("rdma_tuned", "ack_delay_us=20")):
    row("AF_XDP + XDP program + CM, %s: RC WRITE half RTT / busy-poll kernel TCP" % what,
        result("roce_afxdp_%s.txt" % key), result("roce_afxdp_tcp.txt"), "us", 0.5, "le")
    row("AF_XDP + XDP program + CM, %s: RC WRITE half RTT / raw AF_XDP" % what,
        result("roce_afxdp_%s.txt" % key), result("roce_afxdp_raw.txt"), "us", 1.3, "le")
row("garbage flood, one burst a step: healthy QP's rate kept",
    grep("flood.txt", r"^ratio: ([\d.]+) %"), 100.0, "%", 0.80, "ge", percent=True)
row("garbage flood, four bursts a step: healthy QP's rate kept",
    grep("flood.txt", r"^4 bursts.*ratio: ([\d.]+) %"), 100.0, "%", 0.80, "ge", percent=True)
row("message rate, 2 engines on 2 lcores / 1 engine on 1 lcore",
    grep("engines.txt", r"^two_engines_mpps ([\d.]+)"),
    grep("engines.txt", r"^one_engine_mpps ([\d.]+)"), "Mpps", 1.8, "ge")
direct("Hermon post + poll, 64 B inline WRITE, prdma_post_send",
       grep("hermon_ipc.txt", r"^hermon post \+ poll +([\d.]+)"), "instructions", 150, "le")
direct("Hermon post + poll, 64 B inline WRITE, work-request template",
       grep("hermon_ipc.txt", r"^template: post \+ poll.* ([\d.]+)$"), "instructions", 150, "le")
for a, b, what in (("lossless", "lossy", "defaults"), ("lossless_tuned", "lossy_tuned", "tlp=1")):
    row("64 B RC WRITE ping-pong p99, ~1 %% kernel drop each way / lossless, %s" % what,
        result("loss_tail_%s.txt" % b, "p99"), result("loss_tail_%s.txt" % a, "p99"), "us", 5, "le")

print("| figure | prdma | baseline | unit | ratio | target | this run |")
print("|---|---:|---:|---|---:|---:|---|")
print("\n".join(rows))
