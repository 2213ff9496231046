#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Write the seed programs of fuzz_roce_flow (tests/fuzz/corpus/roce_flow).

    tests/fuzz/gen_flow_corpus.py [outdir]

Each seed is one program in the harness's encoding (fuzz_roce_flow.c): a
control byte, then operations. The seeds walk the paths a single frame
cannot reach: every request posted and answered by the real peer, READ and
atomic responses and ACK/NAKs fed to a requester with outstanding work,
responder sequences (multi-packet WRITE/SEND, READ, atomics, duplicates),
windows bound, invalidated and freed, retransmission after a timeout, QPs
broken with work in flight, and a WRITE interrupted by a deregistration.
"""

import os
import struct
import sys

# operations (fuzz_roce_flow.c, enum OP_*)
POST_SEND, POST_RECV, FEED, FEED2, RAW, STEP, DROP, DEREG, MW, QP_STATE, POLL, \
    TIMEOUT, FAULT = range(13)
# control byte: the device pair
V4, V6, V1 = 0, 4, 8
RC, UC, UD = range(3)
# op_post_send's opcode index
SEND, SEND_IMM, SEND_INV, WRITE, WRITE_IMM, READ, CAS, FADD, LOCAL_INV = range(9)
SIGNALED = 0x02
MTU = 1024

# IB opcodes (operation bits)
OP = dict(SEND_FIRST=0x00, SEND_MIDDLE=0x01, SEND_LAST=0x02, SEND_LAST_IMM=0x03,
          SEND_ONLY=0x04, SEND_ONLY_IMM=0x05, WRITE_FIRST=0x06, WRITE_MIDDLE=0x07,
          WRITE_LAST=0x08, WRITE_LAST_IMM=0x09, WRITE_ONLY=0x0a, WRITE_ONLY_IMM=0x0b,
          READ_REQ=0x0c, READ_RESP_FIRST=0x0d, READ_RESP_MIDDLE=0x0e,
          READ_RESP_LAST=0x0f, READ_RESP_ONLY=0x10, ACK=0x11, ATOMIC_ACK=0x12,
          CMP_SWAP=0x13, FETCH_ADD=0x14, SEND_LAST_INV=0x16, SEND_ONLY_INV=0x17)
# psn_base() selectors
EPSN, UNA, WQE, MAXPSN = range(4)
# key_pick() selectors
K_X, K_Y, K_MW1, K_MW2, K_DEAD, K_STALE = range(6)


def post_send(side, t, op, length, loff=0, roff=0, ks=K_X, fl=SIGNALED, imm=0):
    a = side | t << 1 | 0x80
    return bytes([POST_SEND, a, op, ks, fl]) + struct.pack('>HHH', length, loff, roff) + \
        bytes([imm])


def post_recv(side, t, off=0, length=4096, where=0):
    return bytes([POST_RECV, side | t << 1, where]) + struct.pack('>HH', off, length)


def feed(to, t, op, ps=EPSN, dps=0, ks=K_X, plen=MTU, dsel=0, ksel=0, syn=0x1f,
         fill=0x5a, misc=0, voff=0, dlen=0, se=0, ackreq=0):
    """A frame to side @to's QP @t built on the other side's QP @t.

    plen: MTU, a length < 256, 0 or any length; dsel: DMA length = payload,
    MTU * (1 + ksel), dlen, or 2^31 | dlen.
    """
    if plen == MTU:
        ls, pl = 0, 0
    elif plen == 0:
        ls, pl = 2, 0
    elif plen < 256:
        ls, pl = 1, plen
    else:
        ls, pl = 3, plen
    ls |= dsel << 2 | ksel << 4
    a = to | t << 1 | ackreq << 6 | se << 7
    return bytes([FEED, a, op, ps, dps & 0xff, ks, ls, syn, fill, misc]) + \
        struct.pack('>HHH', voff, pl, dlen)


def step(which=2, n=8):
    # which: 0 side 0, 1 side 1, 2 both
    return bytes([STEP, which | (n - 1) << 2])


def drop(side):
    return bytes([DROP, side])


def dereg(side):
    return bytes([DEREG, side])


def mw(side, type2, action, off=0, length=4096, access=0x0e, new=1):
    # action: 0 bind, 1 local invalidate, 2 free (new: allocate another)
    a = side | (2 if type2 else 0) | action << 2 | (0x10 if new else 0)
    return bytes([MW, a, access]) + struct.pack('>HH', off, length)


def qp_state(side, t, what):
    # what: 0 ERR, 2 RESET, 3 destroy
    return bytes([QP_STATE, side | t << 1 | what << 3])


def poll(side):
    return bytes([POLL, side])


def timeout(side, t):
    return bytes([TIMEOUT, side | t << 1])


def raw(side, data):
    return bytes([RAW, side]) + struct.pack('>H', len(data)) + data


def fault(side, rx, kind, rate):
    # kind: 0 drop, 1 dup, 2 reorder, 3 corrupt, 4 delay, 5 CE; rate * 4000 ppm
    return bytes([FAULT, side | rx << 1 | kind << 2, rate])


def prog(*ops, ctl=0):
    return bytes([ctl]) + b''.join(ops)


def seeds():
    s = {}
    both = step(2, 8) + poll(0) + poll(1)
    # 1. every request, answered by the real peer
    for name, t, op, n in [('write_rc', RC, WRITE, 4096), ('write_imm_rc', RC, WRITE_IMM, 3000),
                           ('read_rc', RC, READ, 3000), ('cas_rc', RC, CAS, 8),
                           ('fadd_rc', RC, FADD, 8), ('send_rc', RC, SEND, 2000),
                           ('send_imm_rc', RC, SEND_IMM, 100), ('write_uc', UC, WRITE, 4096),
                           ('send_uc', UC, SEND, 3000), ('send_ud', UD, SEND, 512),
                           ('send_inv_rc', RC, SEND_INV, 64), ('read_big_rc', RC, READ, 8192)]:
        s['peer_' + name] = prog(post_send(1, t, op, n), both)
        s['peer_' + name + '_from0'] = prog(post_send(0, t, op, n), both)
    s['peer_write_wrap'] = prog(post_send(1, RC, WRITE, 8192), post_send(0, RC, READ, 4000),
                                both, ctl=1)
    s['peer_mixed'] = prog(post_send(1, RC, WRITE, 2048), post_send(1, RC, READ, 2048),
                           post_send(1, RC, CAS, 8), post_send(1, RC, SEND, 10), both)
    s['peer_fence'] = prog(post_send(1, RC, READ, 2048),
                           post_send(1, RC, WRITE, 64, fl=SIGNALED | 1), both)
    s['peer_inline'] = prog(post_send(1, RC, SEND, 40, fl=SIGNALED | 8), both)
    s['peer_local_inv_mw'] = prog(mw(1, 1, 0), step(1, 2),
                                  post_send(1, RC, LOCAL_INV, 0, ks=K_MW2), both)
    s['peer_bad_rkey'] = prog(post_send(1, RC, WRITE, 100, ks=K_STALE), both)
    s['peer_read_ro'] = prog(post_send(1, RC, READ, 4000, ks=K_Y), both)
    s['peer_write_ro'] = prog(post_send(1, RC, WRITE, 100, ks=K_Y), both)
    s['peer_rnr'] = prog(post_send(1, RC, SEND, 10), post_send(1, RC, SEND, 10),
                         post_send(1, RC, SEND, 10), both, timeout(1, RC), both)

    # 2. the requester with work outstanding, answered by the program
    def out(op, n):   # post on side 1, send, lose the peer's copy
        return post_send(1, RC, op, n) + step(1, 1) + drop(0)
    s['req_read_resp'] = prog(out(READ, 3000),
                              feed(1, RC, OP['READ_RESP_FIRST'], WQE),
                              feed(1, RC, OP['READ_RESP_MIDDLE'], WQE),
                              feed(1, RC, OP['READ_RESP_LAST'], WQE, plen=952), both)
    s['req_read_resp_only'] = prog(out(READ, 200),
                                   feed(1, RC, OP['READ_RESP_ONLY'], WQE, plen=200), both)
    s['req_read_resp_gap'] = prog(out(READ, 3000),
                                  feed(1, RC, OP['READ_RESP_FIRST'], WQE),
                                  feed(1, RC, OP['READ_RESP_LAST'], WQE, dps=1, plen=952),
                                  both)
    s['req_read_resp_short'] = prog(out(READ, 3000),
                                    feed(1, RC, OP['READ_RESP_FIRST'], WQE, plen=100), both)
    s['req_atomic_ack'] = prog(out(CAS, 8), feed(1, RC, OP['ATOMIC_ACK'], WQE), both)
    s['req_fadd_ack'] = prog(out(FADD, 8), feed(1, RC, OP['ATOMIC_ACK'], WQE), both)
    s['req_ack'] = prog(out(WRITE, 4096), feed(1, RC, OP['ACK'], MAXPSN, dps=-1, plen=0),
                        both)
    s['req_ack_part'] = prog(out(WRITE, 4096), feed(1, RC, OP['ACK'], UNA, dps=1, plen=0),
                             both)
    for nm, syn in [('seq', 0x60), ('inv', 0x61), ('acc', 0x62), ('op', 0x63),
                    ('rnr', 0x21)]:
        s['req_nak_' + nm] = prog(out(WRITE, 4096),
                                  feed(1, RC, OP['ACK'], UNA, dps=1, plen=0, syn=syn), both)
    s['req_nak_read'] = prog(out(READ, 2048),
                             feed(1, RC, OP['ACK'], UNA, plen=0, syn=0x62), both)
    s['req_timeout'] = prog(out(WRITE, 2048), timeout(1, RC), drop(0), timeout(1, RC),
                            drop(0), timeout(1, RC), drop(0), timeout(1, RC), both)
    s['req_timeout_read'] = prog(out(READ, 2048), timeout(1, RC), both)
    s['req_ack_future'] = prog(out(WRITE, 100), feed(1, RC, OP['ACK'], MAXPSN, dps=5,
                                                     plen=0), both)
    s['req_err_flush'] = prog(out(WRITE, 4096), post_send(1, RC, READ, 10),
                              qp_state(1, RC, 0), both)
    s['req_destroy'] = prog(out(READ, 4096), qp_state(1, RC, 3), both)

    # 3. the responder, fed a sequence
    s['resp_write_seq'] = prog(feed(1, RC, OP['WRITE_FIRST'], dsel=1, ksel=3),
                               feed(1, RC, OP['WRITE_MIDDLE']), feed(1, RC, OP['WRITE_MIDDLE']),
                               feed(1, RC, OP['WRITE_LAST']), both)
    s['resp_write_seq_uc'] = prog(feed(1, UC, OP['WRITE_FIRST'], dsel=1, ksel=1),
                                  feed(1, UC, OP['WRITE_LAST']), both)
    s['resp_write_imm'] = prog(feed(1, RC, OP['WRITE_ONLY_IMM'], plen=100), both)
    s['resp_write_ooo'] = prog(feed(1, RC, OP['WRITE_ONLY'], dps=2, plen=100),
                               feed(1, RC, OP['WRITE_ONLY'], plen=100),
                               feed(1, RC, OP['WRITE_ONLY'], dps=-1, plen=100), both)
    s['resp_send_seq'] = prog(feed(1, RC, OP['SEND_FIRST']), feed(1, RC, OP['SEND_MIDDLE']),
                              feed(1, RC, OP['SEND_LAST_IMM'], plen=100), both)
    s['resp_send_seq_uc'] = prog(feed(1, UC, OP['SEND_FIRST']),
                                 feed(1, UC, OP['SEND_LAST'], plen=10), both)
    s['resp_send_inv'] = prog(mw(1, 1, 0), step(1, 2),
                              feed(1, RC, OP["SEND_ONLY_INV"], plen=10,
                                   ks=K_MW2 << 3), both)
    s['resp_send_ud'] = prog(feed(1, UD, OP['SEND_ONLY'], plen=200),
                             feed(1, UD, OP['SEND_ONLY_IMM'], plen=200, misc=4), both)
    s['resp_read'] = prog(feed(1, RC, OP['READ_REQ'], plen=0, dsel=2, dlen=3000), step(1, 2),
                          feed(1, RC, OP['READ_REQ'], plen=0, dsel=2, dlen=3000, dps=-3),
                          both)
    s['resp_read_ro'] = prog(feed(1, RC, OP['READ_REQ'], ks=K_Y, plen=0, dsel=2, dlen=100),
                             both)
    s['resp_read_many'] = prog(*[feed(1, RC, OP['READ_REQ'], plen=0, dsel=2, dlen=64)
                                 for _ in range(4)], both)
    s['resp_cas'] = prog(feed(1, RC, OP['CMP_SWAP'], plen=0, voff=8, misc=2),
                         feed(1, RC, OP['CMP_SWAP'], plen=0, voff=8, dps=-1), both)
    s['resp_fadd'] = prog(feed(1, RC, OP['FETCH_ADD'], plen=0, voff=16), both)
    s['resp_atomic_unaligned'] = prog(feed(1, RC, OP['FETCH_ADD'], plen=0, voff=3,
                                           ks=K_X | 0x40), both)
    s['resp_bad_key'] = prog(feed(1, RC, OP['WRITE_ONLY'], ks=K_STALE, plen=100), both)
    s['resp_ce_cnp'] = prog(feed(1, RC, OP['WRITE_ONLY'], plen=100, misc=0x10), both)
    s['resp_cnp'] = prog(feed(1, RC, 0x20 | 0x81, plen=0), both)
    s['resp_corrupt'] = prog(feed(1, RC, OP['WRITE_ONLY'], plen=100, misc=8, voff=60), both)
    s['resp_rnr'] = prog(feed(1, RC, OP['SEND_ONLY'], plen=10), feed(1, RC, OP['SEND_ONLY'],
                         plen=10), feed(1, RC, OP['SEND_ONLY'], plen=10), both)

    # 4. windows
    s['mw1_write'] = prog(mw(1, 0, 0), step(1, 2), feed(1, RC, OP['WRITE_ONLY'], ks=K_MW1,
                                                          plen=100), both)
    s['mw2_write'] = prog(mw(1, 1, 0), step(1, 2), feed(1, RC, OP['WRITE_ONLY'], ks=K_MW2,
                                                          plen=100), both)
    s['mw1_free_write'] = prog(mw(1, 0, 0), step(1, 2), mw(1, 0, 2),
                               feed(1, RC, OP['WRITE_ONLY'], ks=K_DEAD, plen=100), both)
    s['mw2_inv_write'] = prog(mw(1, 1, 0), step(1, 2), mw(1, 1, 1), step(1, 2),
                              feed(1, RC, OP['WRITE_ONLY'], ks=K_MW2, plen=100), both)
    s['mw1_unbind'] = prog(mw(1, 0, 0), step(1, 2), mw(1, 0, 0, length=0), step(1, 2),
                           feed(1, RC, OP['WRITE_ONLY'], ks=K_MW1, plen=100), both)
    s['mw_dereg_busy'] = prog(mw(1, 0, 0), step(1, 2), dereg(1), both)
    # 5. deregistration under traffic
    s['dereg_then_write'] = prog(dereg(1), feed(1, RC, OP['WRITE_ONLY'], ks=K_DEAD, plen=100),
                                 post_send(1, RC, SEND, 100), both)
    s['dereg_read_resp'] = prog(out(READ, 3000), dereg(1),
                                feed(1, RC, OP['READ_RESP_FIRST'], WQE), both)
    s['raw_garbage'] = prog(raw(1, bytes(range(64))), both)
    # 6. the other framings (IPv6, RoCEv1 with ACK coalescing) and faults
    for nm, ctl in [('v6', V6), ('v1', V1)]:
        s[nm + '_write_read'] = prog(post_send(1, RC, WRITE, 4096), post_send(1, RC, READ, 3000),
                                     post_send(1, UD, SEND, 100), both, ctl=ctl)
        s[nm + '_feed'] = prog(feed(1, RC, OP['WRITE_ONLY'], plen=100),
                               feed(1, UD, OP['SEND_ONLY'], plen=100),
                               feed(1, RC, OP['WRITE_ONLY'], plen=100, misc=0x10), both, ctl=ctl)
    for kind in range(6):
        for rx in range(2):
            s[f'fault_{kind}_{rx}'] = prog(fault(0, rx, kind, 120), fault(1, rx, kind, 120),
                                           post_send(1, RC, WRITE, 8192),
                                           post_send(0, RC, READ, 4096), both,
                                           timeout(1, RC), timeout(0, RC), both)
    return s


def main():
    top = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, 'corpus', 'roce_flow')
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    print(f'{len(seeds())} programs in {out}')


if __name__ == '__main__':
    main()
