# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Helpers of the prdma-perf tests: EAL arguments, running, trace files."""

import os
import re
import struct
import subprocess
import sys
import time

EAL = ["--no-huge", "-m", "512", "--no-shconf", "--no-pci",
       "--log-level=lib.eal:error"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_trace(path):
    """[(dir, bytes)] from a --oob-trace file; dir is 'tx' or 'rx'."""
    out = []
    with open(path) as f:
        for line in f:
            d, n, h = line.split()
            b = bytes.fromhex(h)
            if len(b) != int(n):
                fail("%s: length %s does not match its bytes" % (path, n))
            out.append((d, b))
    return out


def memif_args(role, sock, prefix, lcore):
    return EAL + ["-l", str(lcore), "--file-prefix", prefix,
                  "--vdev=net_memif0,role=%s,socket=%s" % (role, sock)]


def devargs(side, ip=None):
    ip = ip or "192.0.2.%d" % (side + 1)
    return "roce:port=0,ip=%s,mac=02:00:00:00:00:0%d" % (ip, side + 1)


def dmac(side):
    return "02:00:00:00:00:0%d" % (side + 1)


def sock_ready(sock):
    if os.path.exists(sock):
        return True
    with open("/proc/net/unix") as f:
        return any(line.rstrip().endswith(" @" + sock) for line in f)


def run_pair(perf, test, extra, tmp, port, timeout=60, host="127.0.0.1", ips=(None, None),
             cextra=(), sextra=(), sdev_extra=""):
    """run_pair_once, run again once if a process died of a signal: DPDK
    22.11's memif PMD can crash on a peer's disconnect (its interrupt
    thread panics re-adding a control fd it closed after a failed
    sendmsg, or races the port's own stop). A second crash fails."""
    r = run_pair_once(perf, test, extra, tmp, port, timeout, host, ips, cextra, sextra, True,
                      sdev_extra)
    if r is None:
        print("WARNING: %s: a process died of a signal at teardown (DPDK memif); "
              "running the pair again" % test)
        r = run_pair_once(perf, test, extra, tmp, port, timeout, host, ips, cextra, sextra,
                          False, sdev_extra)
    return r


def run_pair_once(perf, test, extra, tmp, port, timeout, host, ips, cextra, sextra,
                  may_retry, sdev_extra=""):
    """Run a server and a client over a memif link and TCP on 127.0.0.1.
    ips: the RoCE addresses (server, client); cextra/sextra: one side's
    own options; sdev_extra: devargs added to the server's device (",pcap=...").
    Returns (server output, client output, server trace,
    client trace)."""
    sock = os.path.join(tmp, "memif-%s.sock" % test)
    if os.path.exists(sock):
        os.unlink(sock)
    st = os.path.join(tmp, "%s.server.trace" % test)
    ct = os.path.join(tmp, "%s.client.trace" % test)
    common = [test, "-p", str(port)] + extra
    srv = subprocess.Popen(
        [perf] + memif_args("server", sock, "s" + test, 0) + ["--"] + common +
        ["--devargs", devargs(0, ips[0]) + sdev_extra, "--dmac", dmac(1), "--oob-trace", st] +
        list(sextra),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # The memif client needs the server's socket to exist (DPDK 22.11's
    # memif makes it in the abstract namespace: no file, a '@' entry).
    for _ in range(200):
        if sock_ready(sock) or srv.poll() is not None:
            break
        time.sleep(0.05)
    try:
        cli = subprocess.run(
            [perf] + memif_args("client", sock, "c" + test, 1) + ["--"] + common +
            ["--devargs", devargs(1, ips[1]), "--dmac", dmac(0), "--oob-trace", ct] +
            list(cextra) + [host],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=timeout)
        sout, _ = srv.communicate(timeout=timeout)
    finally:
        if srv.poll() is None:
            srv.kill()
    if may_retry and (cli.returncode < 0 or srv.returncode < 0) and \
            cli.returncode in (0, -6, -11) and srv.returncode in (0, -6, -11):
        return None
    if cli.returncode != 0 or srv.returncode != 0:
        print(sout)
        print(cli.stdout)
        fail("%s: server rc %s, client rc %s" % (test, srv.returncode, cli.returncode))
    check_lossless(test, sout)
    check_lossless(test, cli.stdout)
    return sout, cli.stdout, read_trace(st), read_trace(ct)


def check_lossless(test, out):
    """A memif link loses nothing: each side's closing counters line must
    show no NAK, RNR or out-of-order packet. A retransmission (and the
    peer's duplicate) is spurious work unless a local ACK timeout explains
    it: a peer process held off the CPU longer than perftest's ACK timeout
    (14, 67 ms) on an oversubscribed machine, which is the scheduler's doing,
    not the link's; then it is reported, not failed."""
    lines = re.findall(r"^ (server|client) counters:(.*)$", out, re.M)
    if len(lines) != 1:
        print(out)
        fail("%s: no counters line" % test)
    vals = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", lines[0][1])}
    if sorted(vals) != sorted(LOSS_COUNTERS + ("timeouts",)):
        print(out)
        fail("%s: counters line %r" % (test, lines[0][1]))
    bad = {k: vals[k] for k in ("naks_sent", "naks_received", "rnr_events",
                                "out_of_sequence") if vals[k] != 0}
    if vals["retransmits"] > vals["timeouts"] * 129:
        bad["retransmits"] = vals["retransmits"]
    if bad:
        print(out)
        fail("%s: spurious work on a lossless link: %r" % (test, bad))
    if vals["retransmits"] or vals["duplicates"]:
        print("WARNING: %s %s: %d retransmits after %d ACK timeouts, %d duplicates "
              "(a process stalled > 67 ms)" % (test, lines[0][0], vals["retransmits"],
                                               vals["timeouts"], vals["duplicates"]))


LOSS_COUNTERS = ("retransmits", "naks_sent", "naks_received", "rnr_events", "duplicates",
                 "out_of_sequence")


def pcap_frames(path):
    """[(frame bytes)] of a libpcap file (Ethernet), without tshark."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def write_stamps(path):
    """RoCEv2 IPv4 WRITE messages of a capture: [(source IP, last payload byte)]
    for each WRITE Last/Only (the byte write_lat polls), in frame order."""
    out, seen = [], set()
    for fr in pcap_frames(path):
        if len(fr) < 14 + 20 + 8 + 12 + 4 or fr[12:14] != b"\x08\x00" or fr[23] != 17:
            continue
        if struct.unpack(">H", fr[36:38])[0] != 4791:
            continue
        # A resend after an ACK timeout is the same message again.
        key = (fr[26:30], fr[42], fr[51:54])
        if key in seen:
            continue
        seen.add(key)
        if fr[42] in (0x08, 0x0A):    # RC RDMA WRITE Last / Only
            pad = (fr[43] >> 4) & 3
            out.append((".".join(str(b) for b in fr[26:30]), fr[-5 - pad]))
    return out
