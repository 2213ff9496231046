# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""The interop matrix: which cases each group runs, and how.

A case name is DIR.CONN.TEST.SIZE[.mtu4096][.R], DIR being p2k (prdma's
client against the kernel's server) or k2p (the kernel's client against
prdma's server). One meson test runs one group; a group boots one guest.
"""

import re


class Case:
    def __init__(self, name, **kw):
        self.name = name
        self.prdma_tool = "perf"
        self.prdma_serves = False     # k2p: prdma is the server
        self.kernel_tool = ""
        self.listen_kind = "tcp"      # how the guest's server is seen ready
        self.secs = 25                # the guest's side is killed after this
        self.mtu = 1500               # eth0 MTU on both ends (4200: path MTU 4096)
        self.unsupported = ""         # a reason: the case FAILs without running
        self.kernel_check = None      # f(guest output lines) -> error or ""
        self.prdma_check = None       # f(prdma output lines) -> error or ""
        self.ready_secs = 20
        self.prdma_ready_marker = True
        self.linger = 5
        self.expect_roce = True
        self._k = None
        self._p = None
        self._stdin = None
        self.__dict__.update(kw)

    def kernel_argv(self, port, prdma_ip):
        return self._k(port, prdma_ip)

    def prdma_argv(self, port, prdma_ip, guest_ip, json_path):
        return self._p(port, prdma_ip, guest_ip, json_path)

    def prdma_stdin(self, port, ip):
        return self._stdin(port, ip) if self._stdin else None


class Group:
    def __init__(self, name, transport, cases):
        self.name = name
        self.transport = transport
        self.cases = cases


PRDMA_DEV = "roce:port=0,ip=%s"


def perftest_case(direction, test, size, conn="RC", mtu=1500, iters=None,
                  atomic=None, cm=False):
    lat = test.endswith("_lat")
    if iters is None:
        iters = 1000 if (lat or size <= 4096) else 200
    name = "%s.%s.%s%s.%d%s%s" % (direction, conn.lower(), test,
                                  "." + atomic.lower() if atomic else "", size,
                                  ".mtu4096" if mtu != 1500 else "", ".R" if cm else "")
    popts = ["-s", str(size), "-n", str(iters)]
    if conn != "RC":
        popts += ["-c", conn]
    if atomic:
        popts += ["-A", atomic]
    if cm:
        popts += ["-R"]
    kopts = ["-d", "rxe0", "-x", "1"] + popts
    serves = direction == "k2p"

    def k(port, prdma_ip):
        a = ["ib_" + test] + kopts + ["-p", str(port)]
        return a + [prdma_ip] if serves else a

    def p(port, prdma_ip, guest_ip, json_path):
        a = [test] + popts + ["-p", str(port), "--devargs", PRDMA_DEV % prdma_ip,
                              "--json", json_path, "--timeout", "8"]
        return a if serves else a + [guest_ip]

    secs = 25 if size < 65536 else 40
    return Case(name, prdma_serves=serves, kernel_tool="ib_" + test,
                listen_kind="cm" if cm else "tcp", secs=secs, mtu=mtu, _k=k, _p=p)


def perftest_matrix(direction):
    out = []
    for test in ("send_lat", "read_lat", "write_lat"):
        for size in (64, 1024, 4096, 65536):
            out.append(perftest_case(direction, test, size))
    out.append(perftest_case(direction, "atomic_lat", 8, atomic="FETCH_AND_ADD"))
    out.append(perftest_case(direction, "atomic_lat", 8, atomic="CMP_AND_SWAP"))
    for test in ("write_bw", "read_bw", "send_bw"):
        for size in (64, 1024, 4096, 65536):
            out.append(perftest_case(direction, test, size))
    for test in ("write_lat", "write_bw", "send_lat", "send_bw"):
        out.append(perftest_case(direction, test, 1024, conn="UC"))
    for test in ("send_lat", "send_bw"):
        out.append(perftest_case(direction, test, 1024, conn="UD"))
    out.append(perftest_case(direction, "send_lat", 64, cm=True))
    out.append(perftest_case(direction, "write_bw", 65536, cm=True))
    out.append(perftest_case(direction, "send_lat", 64, conn="UD", cm=True))
    return out


def afpacket_subset(direction):
    return [perftest_case(direction, "send_lat", 64),
            perftest_case(direction, "read_lat", 4096),
            perftest_case(direction, "write_lat", 64),
            perftest_case(direction, "atomic_lat", 8, atomic="FETCH_AND_ADD"),
            perftest_case(direction, "write_bw", 65536),
            perftest_case(direction, "read_bw", 65536),
            perftest_case(direction, "send_lat", 1024, conn="UD")] + mtu4096(direction)


def mtu4096(direction):
    # Path MTU 4096 (eth0 MTU 4200) runs over net_af_packet only: XDP on a
    # veth refuses a peer MTU above a page's worth.
    return [perftest_case(direction, test, 4096, mtu=4200)
            for test in ("send_lat", "read_lat", "write_lat", "write_bw", "read_bw", "send_bw")]


def pingpong_case(direction, kind):
    # ibv_*_pingpong --chk against prdma's counterpart (not in prdma yet).
    return Case("%s.%s_pingpong.chk" % (direction, kind), kernel_tool="ibv_%s_pingpong" % kind,
                unsupported="prdma has no ibv_%s_pingpong counterpart" % kind)


def smoke(direction):
    return [perftest_case(direction, "send_lat", 64), perftest_case(direction, "read_lat", 64)]


GROUPS = {
    "afxdp-p2k": ("afxdp", lambda: perftest_matrix("p2k")),
    "afxdp-k2p": ("afxdp", lambda: perftest_matrix("k2p")),
    "afpacket-p2k": ("afpacket", lambda: afpacket_subset("p2k")),
    "afpacket-k2p": ("afpacket", lambda: afpacket_subset("k2p")),
    "cm-afxdp": ("afxdp", lambda: [pingpong_case(d, k) for d in ("p2k", "k2p")
                                   for k in ("rc", "uc", "ud", "srq")]),
    "smoke-afxdp": ("afxdp", lambda: smoke("p2k") + smoke("k2p")),
    "smoke-afpacket": ("afpacket", lambda: smoke("p2k") + mtu4096("k2p")[:1]),
}


def group(name):
    if name not in GROUPS:
        raise SystemExit("unknown group %s (known: %s)" % (name, ", ".join(sorted(GROUPS))))
    transport, make = GROUPS[name]
    cases = make()
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    for c in cases:
        assert re.match(r"^[\w.]+$", c.name)
    return Group(name, transport, cases)
