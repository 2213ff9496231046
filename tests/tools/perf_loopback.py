#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Every prdma-perf test, briefly, on the loopback; the JSON is checked.
usage: perf_loopback.py <prdma-perf> <tmp dir>"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_common import EAL, check_lossless, fail  # noqa: E402

LAT = ("t_min_us", "t_max_us", "t_typical_us", "t_avg_us", "t_stdev_us",
       "p50_us", "p99_us", "p999_us", "max_us", "samples")
BW = ("bw_peak", "bw_avg", "msg_rate_mpps", "gbps")
RUNS = [
    ("write_lat", ["-n", "300", "-s", "64"]),
    ("read_lat", ["-n", "300", "-s", "64"]),
    ("send_lat", ["-n", "300", "-s", "64", "-I", "64"]),
    ("atomic_lat", ["-n", "300"]),
    ("write_bw", ["-n", "300", "-s", "4096", "-q", "2"]),
    ("read_bw", ["-n", "300", "-s", "4096"]),
    ("atomic_bw", ["-n", "300", "-q", "2"]),
    ("atomic_bw", ["-n", "300", "-A", "CMP_AND_SWAP"]),
    ("send_bw", ["-n", "300", "-s", "4096", "--report_gbits"]),
    ("write_lat", ["-D", "0.3", "-s", "8"]),
    ("write_bw", ["-D", "0.3", "-s", "1024"]),
    ("raw_lat", ["-n", "300", "-s", "64"]),
    ("raw_bw", ["-n", "300", "-s", "64"]),
    # perftest's other transports: UC for WRITE and SEND, UD for SEND.
    ("write_lat", ["-c", "UC", "-n", "300", "-s", "64"]),
    ("write_bw", ["-c", "UC", "-n", "300", "-s", "4096", "-q", "2"]),
    ("send_lat", ["-c", "UC", "-n", "300", "-s", "64"]),
    ("send_bw", ["-c", "UC", "-n", "300", "-s", "4096"]),
    ("send_lat", ["-c", "UD", "-n", "300", "-s", "64", "-I", "64"]),
    ("send_bw", ["-c", "UD", "-n", "300", "-s", "1024"]),
    ("send_lat", ["-c", "UD", "-D", "0.3", "-s", "512"]),
    # -R with UD: the QPs resolve each other with SIDR (RDMA_PS_UDP).
    ("send_lat", ["-R", "-c", "UD", "-n", "300", "-s", "64"]),
    ("send_bw", ["-R", "-c", "UD", "-n", "300", "-s", "1024", "-q", "2"]),
    # Both sides on one lcore, taking turns: the server must drain its CQ
    # a batch a turn, or the client's window empties its receive queue
    # and it sees RNR NAKs (prdma-perf polled one completion a turn).
    ("send_bw", ["-n", "4000", "-s", "64"], "0"),
]
# Combinations perftest refuses, and the words of the one line expected.
BAD = (
    (["write_lat", "--loopback", "-q", "2"], "one QP"),
    (["atomic_lat", "--loopback", "-s", "64"], "8 bytes"),
    (["atomic_bw", "--loopback", "-s", "64"], "8 bytes"),
    (["atomic_bw", "--loopback", "-a"], "one size"),
    (["atomic_bw", "--loopback", "-c", "UC"], "UC connection not possible in READ/ATOMIC"),
    (["nosuch_test", "--loopback"], "name a test"),
    (["write_lat", "--loopback", "-c", "UD"], "UD connection only possible in SEND verb"),
    (["write_bw", "--loopback", "-c", "UD"], "UD connection only possible in SEND verb"),
    (["read_lat", "--loopback", "-c", "UC"], "UC connection not possible in READ/ATOMIC"),
    (["read_bw", "--loopback", "-c", "UD"], "UD connection only possible in SEND verb"),
    (["atomic_lat", "--loopback", "-c", "UC"], "UC connection not possible in READ/ATOMIC"),
    (["send_lat", "--loopback", "-c", "XRC"], "RC, UC or UD"),
    (["write_bw", "-R", "-c", "UC", "--devargs", "roce:port=0", "10.0.0.1"],
     "UC is not supported in librdmacm"),
)


def check(test, args, doc):
    for k in ("tool", "test", "mode", "qps", "results", "mem_per_qp_bytes"):
        if k not in doc:
            fail("%s: key %s missing" % (test, k))
    if doc["test"] != test or doc["mode"] != "loopback" or len(doc["results"]) != 1:
        fail("%s: header %r" % (test, doc))
    r = doc["results"][0]
    size = int(args[args.index("-s") + 1]) if "-s" in args else 8
    if r["bytes"] != size:
        fail("%s: bytes %s, expected %d" % (test, r["bytes"], size))
    timed = "-D" in args
    iters = int(args[args.index("-n") + 1]) if "-n" in args else 0
    if test.endswith("_lat"):
        for k in LAT:
            if k not in r:
                fail("%s: key %s missing" % (test, k))
        if not timed and r["samples"] != iters:
            fail("%s: %s samples, expected 300" % (test, r["samples"]))
        if timed and r["samples"] < 10:
            fail("%s: only %d samples in 0.3 s" % (test, r["samples"]))
        if not (0 < r["t_min_us"] <= r["p50_us"] <= r["p99_us"] <= r["p999_us"]
                <= r["t_max_us"] and r["t_max_us"] == r["max_us"]):
            fail("%s: latency figures out of order: %r" % (test, r))
        if r["t_typical_us"] != r["p50_us"] or r["p50_us"] > 100000:
            fail("%s: typical is not the median, or absurd: %r" % (test, r))
    else:
        for k in BW:
            if k not in r:
                fail("%s: key %s missing" % (test, k))
        if not (r["bw_avg"] > 0 and r["bw_peak"] >= r["bw_avg"] and r["msg_rate_mpps"] > 0):
            fail("%s: bandwidth figures not sane: %r" % (test, r))
        unit = 1e9 / 8 if "--report_gbits" in args else 1048576.0
        mr = r["bw_avg"] * unit / size / 1e6
        if abs(mr - r["msg_rate_mpps"]) > 0.02 * r["msg_rate_mpps"] + 1e-6:
            fail("%s: BW %f and message rate %f disagree" % (test, r["bw_avg"],
                                                              r["msg_rate_mpps"]))
        if doc["bw_unit"] != ("Gb/sec" if "--report_gbits" in args else "MB/sec"):
            fail("%s: unit %s" % (test, doc["bw_unit"]))
        if not timed and r["iterations"] != iters:
            fail("%s: %s iterations" % (test, r["iterations"]))
    if "-q" in args and doc["qps"] != 2:
        fail("%s: %s QPs" % (test, doc["qps"]))
    conn = args[args.index("-c") + 1] if "-c" in args else "RC"
    if not test.startswith("raw") and doc.get("connection_type") != conn:
        fail("%s: connection_type %r, expected %s" % (test, doc.get("connection_type"), conn))
    # Zero errors: nothing was lost or refused on the loopback link (a
    # retransmission only after a local ACK timeout, below).
    if r["naks_received"] != 0 or (r["retransmits"] != 0 and
                                   not doc.get("counters", {}).get("timeouts")):
        fail("%s %s: %d retransmits, %d NAKs" % (test, conn, r["retransmits"],
                                                 r["naks_received"]))
    # No spurious work over the whole run either (the device's counters;
    # a retransmission only after a local ACK timeout: a thread held off
    # the CPU > 67 ms, see perf_common.check_lossless).
    if not test.startswith("raw") and test != "memcpy_bw":
        c = doc.get("counters")
        if c is None or "timeouts" not in c:
            fail("%s %s: no counters in the JSON" % (test, conn))
        line = " client counters: " + " ".join("%s %d" % (k, v) for k, v in c.items())
        check_lossless("%s %s" % (test, conn), line)


def main():
    perf, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    for i, run in enumerate(RUNS):
        test, args = run[0], run[1]
        lcores = run[2] if len(run) > 2 else "0-1"
        path = os.path.join(tmp, "%s-%d.json" % (test, i))
        cmd = [perf] + EAL + ["-l", lcores, "--", test, "--loopback", "--json", path] + args
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        if p.returncode != 0:
            print(p.stdout)
            fail("%s %s: exit %d" % (test, " ".join(args), p.returncode))
        header = "t_typical[usec]" if test.endswith("_lat") else "MsgRate[Mpps]"
        if header not in p.stdout:
            fail("%s: perftest's report header missing" % test)
        if "-R" in args and "rdma_cm QPs\t : ON" not in p.stdout:
            fail("%s %s: rdma_cm not reported" % (test, " ".join(args)))
        with open(path) as f:
            check(test, args, json.load(f))
        print("%s %s: ok" % (test, " ".join(args)))
    # In one process an RC -R has no CM to go through: the banner says OFF.
    p = subprocess.run([perf] + EAL + ["-l", "0-1", "--", "write_lat", "--loopback", "-R",
                       "-n", "100", "-s", "64"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    if p.returncode != 0 or "rdma_cm QPs\t : OFF" not in p.stdout:
        print(p.stdout)
        fail("write_lat --loopback -R: exit %d, or the banner claims rdma_cm" % p.returncode)
    print("write_lat --loopback -R: rdma_cm reported OFF")
    # Bad options get one clear line and exit 2.
    for bad, msg in BAD:
        p = subprocess.run([perf] + EAL + ["-l", "0", "--"] + bad, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        ours = [l for l in p.stderr.splitlines() if l.startswith("prdma-perf:")]
        if p.returncode != 2 or len(ours) != 1 or msg not in ours[0]:
            print(p.stdout + p.stderr)
            fail("bad options %s: exit %d, lines %r" % (bad, p.returncode, ours))
        print("refused %s: %s" % (" ".join(bad), ours[0]))
    print("PASS")


if __name__ == "__main__":
    main()
