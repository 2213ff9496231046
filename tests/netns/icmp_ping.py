#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# ICMP echo over a raw socket (the machine has no ping binary):
# icmp_ping.py <ipv4> <count>; exit 0 when every echo was answered.
import os
import socket
import struct
import sys
import time


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


dst, count = sys.argv[1], int(sys.argv[2])
sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
sock.settimeout(1.0)
ident = os.getpid() & 0xFFFF
ok = 0
for seq in range(count):
    payload = b"prdma-ping-%04d" % seq
    hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    pkt = struct.pack("!BBHHH", 8, 0, csum(hdr + payload), ident, seq) + payload
    t0 = time.monotonic()
    sock.sendto(pkt, (dst, 0))
    while True:
        try:
            data = sock.recv(2048)
        except socket.timeout:
            break
        ihl = (data[0] & 0xF) * 4
        typ, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
        if typ == 0 and rid == ident and rseq == seq:
            ok += 1
            break
    time.sleep(0.05)
print("ping %s: %d/%d answered" % (dst, ok, count))
sys.exit(0 if ok == count else 1)
