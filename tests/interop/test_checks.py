#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""The interop suite's own checks on made-up frames, so that each is seen
to fail on what it must catch: exactly-once atomics, the echo compare, the
path-MTU check, the resend classifier and the pingpong data check (no root, no guest; suite
'interop-checks')."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import interop  # noqa: E402

P, G = interop.PRDMA_IP, interop.GUEST_IP
failures = 0


def expect(what, got, want_error):
    global failures
    bad = bool(got) != want_error
    print("%s %s: %s" % ("FAIL" if bad else "ok", what, got or "(clean)"))
    failures += bad


def bth(op, psn, pad=0):
    return bytes([op, pad << 4, 0xff, 0xff, 0, 0, 0, 0x11, 0x80]) + psn.to_bytes(3, "big")


def atomic_req(op, psn, va, swap_add, cmp_=0):
    return bth(op, psn) + va.to_bytes(8, "big") + (0x1234).to_bytes(4, "big") + \
        swap_add.to_bytes(8, "big") + cmp_.to_bytes(8, "big") + b"\0" * 4


def atomic_ack(psn, orig):
    return bth(0x12, psn) + bytes([0x1f, 0, 0, 1]) + orig.to_bytes(8, "big") + b"\0" * 4


def faa_frames(origs):
    fr = []
    n = 1
    for i, o in enumerate(origs):
        fr.append((n, G, atomic_req(0x14, 100 + i, 0x1000, 1)))
        fr.append((n + 1, P, atomic_ack(100 + i, o)))
        n += 2
    return fr


expect("FETCH_ADD originals 5,6,7", cases.atomic_check_frames(faa_frames([5, 6, 7])), False)
expect("FETCH_ADD executed twice (5,7)", cases.atomic_check_frames(faa_frames([5, 7])), True)
expect("FETCH_ADD not executed (5,5)", cases.atomic_check_frames(faa_frames([5, 5])), True)
cas = [(1, G, atomic_req(0x13, 1, 0x2000, 9, 3)), (2, P, atomic_ack(1, 3)),
       (3, G, atomic_req(0x13, 2, 0x2000, 4, 3)), (4, P, atomic_ack(2, 9))]
expect("CMP_SWAP swapped 3 -> 9", cases.atomic_check_frames(cas), False)
cas[3] = (4, P, atomic_ack(2, 3))
expect("CMP_SWAP swap lost", cases.atomic_check_frames(cas), True)
expect("atomic without its ACK", cases.atomic_check_frames(faa_frames([1])[:1]), True)


def send(src, psn, data):
    pad = (4 - len(data) % 4) % 4
    return (psn, src, bth(0x04, psn, pad) + data + b"\0" * pad + b"\0" * 4)


echo = [send(G, 1, b"hello rping 0"), send(P, 7, b"hello rping 0"),
        send(G, 2, b"hello rping 1"), send(P, 8, b"hello rping 1")]
expect("echo intact", cases.echo_check_frames(P, echo), False)
echo[3] = send(P, 8, b"hellO rping 1")
expect("echo with a changed byte", cases.echo_check_frames(P, echo), True)
expect("echo missing", cases.echo_check_frames(P, echo[:3]), True)

big = [(1, G, bth(0x00, 1) + b"\0" * 4096 + b"\0" * 4)]
small = [(1, G, bth(0x00, 1) + b"\0" * 1024 + b"\0" * 4)]
expect("path MTU 4096 used", cases.pmtu4096_check_frames(big), False)
expect("path MTU fell back to 1024", cases.pmtu4096_check_frames(small), True)


def classify(reqs, peer_naks=(), prdma_naks=()):
    facts = {"peer_naks": list(peer_naks), "prdma_naks": list(prdma_naks)}
    return interop.classify_resends(reqs, facts)


# (frame, src, dest QP, PSN, time)
sent = [(1, P, 0x11, 10, 0.000), (2, P, 0x11, 11, 0.001)]
r = classify(sent + [(3, P, 0x11, 10, 0.027), (4, P, 0x11, 11, 0.027)])
expect("prdma resend 27 ms after the send", "x" if any(x[2] for x in r[P]) else "", True)
r = classify(sent + [(3, P, 0x11, 10, 0.080)])
expect("prdma resend after the 67 ms timeout", "x" if any(x[2] for x in r[P]) else "", False)
r = classify(sent + [(4, P, 0x11, 10, 0.010)], peer_naks=[(3, "NAK", 0.005)])
expect("prdma resend after rxe's NAK", "x" if any(x[2] for x in r[P]) else "", False)
r = classify([(1, G, 0x20, 5, 0.0), (2, G, 0x20, 5, 0.002)])
expect("rxe resend 2 ms after the send is flagged as rxe's",
       "x" if (any(x[2] for x in r["peer"]) and not r[P]) else "", True)
wrap = [(1, P, 0x11, 0xFFFFFF, 0.0), (2, P, 0x11, 0, 0.001), (3, P, 0x11, 1, 0.002)]
expect("PSN wrap is not a resend", "x" if classify(wrap)[P] else "", False)

# ibv_*_pingpong --chk exits 0 even when it printed bad pages.
good_pp = ["  local address:  LID 0x0000, QPN 0x000011, PSN 0x0001, GID ::",
           "819200 bytes in 0.10 seconds = 65.54 Mbit/sec",
           "200 iters in 0.10 seconds = 500.00 usec/iter"]
expect("pingpong with its summary", cases.pingpong_check(good_pp), False)
expect("pingpong with a bad page", cases.pingpong_check(good_pp + ["invalid data in page 3"]),
       True)
expect("pingpong without its summary", cases.pingpong_check(good_pp[:1]), True)

print("%d check(s) wrong" % failures)
sys.exit(1 if failures else 0)
