#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Write the seed corpora of the fuzzers into tests/fuzz/corpus/<name>/.

roce_rx: RoCEv2 frames from the Soft-RoCE captures in tests/data/pcaps (one file
per distinct opcode and length class, prefixed with the harness's steering
byte); cm_mad: the CM MADs of rping.pcap, one file per message and the
whole REQ, RTU, DREQ exchange as one input; devargs: valid and nearly valid
strings; hermon_cmd: commands of a bring-up and object creation;
testpmd_cmd: prdma-testpmd command batches; hermon_wqe: one send WQE of
each opcode.

Usage: gen_corpus.py <tests/data/pcaps dir> <corpus dir>
"""

import hashlib
import os
import struct
import sys


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    endian = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
        off += 16
        yield data[off:off + incl]
        off += incl


def is_roce(fr):
    return (len(fr) >= 14 + 20 + 8 + 12 and fr[12:14] == b'\x08\x00'
            and fr[23] == 17 and struct.unpack('>H', fr[36:38])[0] == 4791)


def put(d, data):
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def roce_rx(pcaps, out):
    seen = set()
    for fn in sorted(os.listdir(pcaps)):
        if not fn.endswith('-roce.pcap'):
            continue
        for fr in frames(os.path.join(pcaps, fn)):
            if not is_roce(fr):
                continue
            op = fr[42]
            key = (op, min(len(fr) // 256, 4))
            if key in seen:
                continue
            seen.add(key)
            # fix headers + ICRC, aim at the QP of the opcode's transport,
            # aim RETH/AtomicETH at the MR, give UD the Q_Key
            put(out, bytes([0x1f | (3 << 5)]) + fr)
            # as captured (foreign IPs, QPNs, keys: must be dropped)
            put(out, b'\x00' + fr)
            # headers fixed but the ICRC left as captured
            put(out, bytes([0x0d | (3 << 5)]) + fr)


def cm_mad(pcaps, out):
    mads = []
    for fr in frames(os.path.join(pcaps, 'rping.pcap')):
        if not is_roce(fr):
            continue
        bth = fr[42:54]
        if bth[0] != 0x64 or struct.unpack('>I', b'\0' + bth[5:8])[0] != 1:
            continue
        mad = fr[54 + 8:54 + 8 + 256]
        if len(mad) == 256:
            mads.append(mad)
    for m in mads:
        put(out, b'\x02' + m)
    by_attr = {struct.unpack('>H', m[16:18])[0]: m for m in mads}
    if len(mads) >= 3:
        # REQ, then the RTU and DREQ aimed at B's connection
        seq = b''
        for attr, ctl in ((0x10, 0x02), (0x14, 0x03), (0x15, 0x03)):
            if attr in by_attr:
                seq += bytes([ctl]) + by_attr[attr]
        put(out, seq)
    req = by_attr.get(0x10)
    rtu = by_attr.get(0x14)
    if req is None or rtu is None:
        return
    # Bit 0 on a REQ gives it the harness's addresses, so these reach the
    # listener and the application (the captured REQ names 10.99.0.2).
    mra = bytearray(rtu)
    mra[16:18] = struct.pack('>H', 0x11)     # MRA of our REP, timeout 31
    mra[24 + 8] = 1 << 6
    mra[24 + 9] = 31 << 3
    dreq = by_attr.get(0x15, rtu)
    seqs = [
        [(0x03, req)],                        # accepted
        [(0x01, req)],                        # rejected
        [(0x03, req), (0x03, req)],           # duplicate REQ: REP again
        [(0x01, req), (0x01, req)],           # duplicate of a rejected REQ
        [(0x03, req), (0x03, rtu), (0x03, dreq), (0x03, dreq)],
        [(0x03, req), (0x07, bytes(mra)), (0x07, rtu)],
        [(0x03, req), (0x01, dreq)],          # DREQ before the RTU
        # undecided (bit 4): the duplicate gets an MRA; then accepted
        [(0x11, req), (0x11, req), (0x03, rtu), (0x03, rtu)],
    ]
    for seq in seqs:
        put(out, b''.join(bytes([c]) + m for c, m in seq))
    # SIDR_REQ (the REQ's rdma_cm header) for B's PS_UDP listener:
    # accepted, rejected, and resent after the SIDR_REP
    sidr = bytearray(256)
    sidr[0:24] = req[0:24]
    sidr[16:18] = struct.pack('>H', 0x17)
    sidr[24:28] = b'\x00\x00\x12\x34'
    sidr[28:30] = b'\xff\xff'
    sidr[32:40] = struct.pack('>Q', 0x0000000001110000 | 7174)
    sidr[40:40 + 36] = req[24 + 140:24 + 140 + 36]
    put(out, b'\x03' + bytes(sidr))
    put(out, b'\x01' + bytes(sidr))
    put(out, b'\x03' + bytes(sidr) + b'\x03' + bytes(sidr))
    # and for a service nobody listens on
    sidr[32:40] = struct.pack('>Q', 0x0000000001110000 | 7175)
    put(out, b'\x01' + bytes(sidr))


DEVARGS = [
    'ring=a,side=0', 'ring=a,side=1,ip=192.0.2.9', 'ring=b,mtu=1024,burst=64',
    'ring=c,side=0,mac=02:00:00:00:00:01,name=x1', 'ring=d,progress=thread',
    'ring=e,ip=2001:db8::1', 'port=0', 'model', 'model,ports=2',
    'model,name=m1,cmd_timeout_ms=500', 'model,link=l1,side=1',
    'roce:ring=f,side=0', 'hermon:model', 'ring=,side=2', 'ring=g,mtu=999',
    'ring=h,ip=300.1.1.1', 'model,ports=3', 'nosuch:x=1', 'ring=i,burst',
]


def devargs(out):
    for s in DEVARGS:
        put(out, s.encode())


def hermon_cmd(out):
    def rec(op, opmod=0, flags=0, in_mod=0, inp=0, outp=0):
        return struct.pack('>HBBIQQ', op, opmod, flags, in_mod, inp, outp)

    # queries with an output mailbox
    for op in (0x003, 0x004, 0x006, 0x00b, 0x043, 0x04d, 0x031):
        put(out, b'\x00' + rec(op, flags=2, in_mod=1))
    # object commands with an input mailbox of zeros and of ones
    for op in (0x00d, 0x016, 0x013, 0x019, 0x01a, 0x035, 0x011, 0x00c):
        put(out, b'\x01' + rec(op, flags=3, in_mod=1) + rec(op + 1, flags=2, in_mod=1))
        put(out, b'\x00' + rec(op, flags=1, in_mod=2) + b'\xff' * 512)
    # teardown commands
    put(out, b'\x02' + rec(0x00a, in_mod=1) + rec(0x008) + rec(0xffe))


TESTPMD = [
    'probe roce:ring=t0,side=0\nprobe roce:ring=t0,side=1\npd create 0\npd create 1\n'
    'cq create 0 64\ncq create 1 64\nqp create 0 rc 0 0 16 16\n'
    'qp create 1 rc 1 1 16 16\nqp connect 0 to 1\nqp connect 1 to 0\n'
    'show qps 0\nshow objects\n',
    'probe roce:ring=t1,side=0\npd create 0\nmr create 0 4096 all\ncq create 0 8\n'
    'srq create 0 16\nqp create 0 ud 0 0 8 srq 0\nqp modify 0 init\nqp modify 0 rtr\n'
    'show cq 0\nqp destroy 0\nsrq destroy 0\n',
    'probe roce:ring=t2,side=0\nprobe roce:ring=t2,side=1\npd create 0\npd create 1\n'
    'cq create 0 64\ncq create 1 64\nqp create 0 rc 0 0 16 16\n'
    'qp create 1 rc 1 1 16 16\nqp connect 0 to 1\nqp connect 1 to 0\n'
    'set fwd size 128\nset fwd depth 4\nstart fwd pingpong 0\nshow fwd stats\nstop\n',
    'probe roce:ring=t3,side=0\nprobe roce:ring=t3,side=1\n'
    'cm listen 1 192.0.2.2 7174\ncm connect 0 192.0.2.2 7174\nshow cm\n',
    'probe roce:ring=t4,side=0\nset fault 0 tx drop 1000\nclear fault 0\n'
    'show device 0\nshow counters 0\nshow port 0 1\nshow qp 0 0x11\nremove 0\n',
    'help\nhelp all\nhelp objects\nshow devices\nquit\n',
    'probe hermon:model\npd create 0\ncq create 0 4\nqp create 0 rc 0 0 4 4\n'
    'qp modify 0 init\nqp modify 0 err\nqp modify 0 reset\n',
    'qp connect 7 0 0xffffff\nmr create 99 -1 bogus\ncq create 0 4294967295\n'
    'pd destroy 4000000000\n',
]


def testpmd_cmd(out):
    for s in TESTPMD:
        put(out, s.encode())


def hermon_wqe(out):
    def ctrl(op, ds, flags=3 << 2, imm=0):
        return struct.pack('>IIII', op, ds, flags, imm)

    def raddr(va=0x1000, rkey=0):
        return struct.pack('>QII', va, rkey, 0)

    def data(n=64, lkey=0, addr=0x200):
        return struct.pack('>IIQ', n, lkey, addr)

    # steering 0x07: size clamped, data segments and remote address aimed
    for op in (0x08, 0x09, 0x10):                 # WRITE, WRITE_IMM, READ
        put(out, b'\x07' + ctrl(op, 3) + raddr() + data())
        put(out, b'\x07' + ctrl(op, 5) + raddr() + data() + data(32) + data(8))
    for op in (0x11, 0x12):                       # CAS, FADD
        put(out, b'\x07' + ctrl(op, 4) + raddr(0x40) + struct.pack('>QQ', 1, 2) +
            data(8))
    for op in (0x0a, 0x0b, 0x01):                 # SEND, SEND_IMM, SEND_INV
        put(out, b'\x07' + ctrl(op, 2, imm=0x1234) + data(100))
    put(out, b'\x07' + ctrl(0x0a, 2) + struct.pack('>I', 0x80000000 | 16) + b'x' * 16)
    put(out, b'\x07' + ctrl(0x00, 1))            # NOP
    put(out, b'\x07' + ctrl(0x1b, 4) + bytes(32))   # LOCAL_INVAL
    put(out, b'\x07' + ctrl(0x18, 4) + bytes(32))   # BIND_MW
    put(out, b'\x00' + ctrl(0x08, 63) + raddr() + data(1 << 30, 0x1234, 1))


def main():
    pcaps, corpus = sys.argv[1], sys.argv[2]
    roce_rx(pcaps, os.path.join(corpus, 'roce_rx'))
    cm_mad(pcaps, os.path.join(corpus, 'cm_mad'))
    devargs(os.path.join(corpus, 'devargs'))
    hermon_cmd(os.path.join(corpus, 'hermon_cmd'))
    testpmd_cmd(os.path.join(corpus, 'testpmd_cmd'))
    hermon_wqe(os.path.join(corpus, 'hermon_wqe'))


if __name__ == '__main__':
    main()
