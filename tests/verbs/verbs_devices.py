#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""ibv_devices and ibv_devinfo (Debian's, unmodified) on prdma's
libibverbs, and the library's own contract with those binaries:

1. every symbol the listed Debian binaries import from libibverbs is
   exported by prdma's library under the same version node;
2. ibv_devices lists the configured devices by name with their GUID;
   ibv_devinfo -v shows the port active, Ethernet, the RoCE v2 GID of the
   configured address; a device given by the config file works the same;
3. EAL still loads DPDK's net_mlx4/net_mlx5 (which link libibverbs.so.1 and
   libmlx4/libmlx5) from its PMD directory with prdma's library in their
   place: init succeeds, nothing recurses, the devices are listed;
4. a bad devargs string is reported and leaves an empty device list;
   a failing EAL init makes ibv_devices fail, not crash.
5. prdma-run, with no LD_LIBRARY_PATH given, runs ibv_devices on prdma.
usage: verbs_devices.py <verbs libdir> <tmp dir> <prdma-run>
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verbs_common import EAL, fail, need, verbs_env  # noqa: E402

BINARIES = ["ib_write_lat", "ib_read_lat", "ib_send_lat", "ib_atomic_lat", "ib_write_bw",
            "ib_read_bw", "ib_send_bw", "ib_atomic_bw", "ibv_rc_pingpong", "ibv_uc_pingpong",
            "ibv_ud_pingpong", "ibv_srq_pingpong", "ibv_devinfo", "ibv_devices"]


def dynsyms(path):
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True,
                         check=True).stdout
    und, defined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 4 or not f[-2].lstrip("(").startswith(("IBVERBS", "PRDMA")):
            continue
        ver = f[-2].strip("()")
        (und if "*UND*" in line else defined).add((f[-1], ver))
    return und, defined


def run(libdir, eal, dev, argv, conf=None, timeout=60):
    env = verbs_env(libdir, eal, dev)
    if conf is not None:
        env.pop("PRDMA_VERBS_EAL")
        env.pop("PRDMA_VERBS_DEVARGS")
        env["PRDMA_VERBS_CONF"] = conf
    env["PRDMA_VERBS_LINK_WAIT"] = "5"
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def main():
    libdir, tmp, prdma_run = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(tmp, exist_ok=True)
    lib = os.path.join(libdir, "libibverbs.so.1")

    # 1. symbols and their versions
    _, mine = dynsyms(lib)
    for b in BINARIES:
        und, _ = dynsyms(need(b))
        missing = sorted(s for s in und if s not in mine)
        if missing:
            fail("%s imports %s, which prdma's libibverbs does not export" % (b, missing))
    if ("prdma_verbs_qp", "PRDMA_VERBS_PRIVATE") not in mine:
        fail("the bridge is not exported under PRDMA_VERBS_PRIVATE")
    print("ok: every import of %d binaries is exported with its version" % len(BINARIES))

    # 2. one device on net_null, then two, one of them from a config file
    eal = EAL + ["-l", "0", "--vdev=net_null0", "--vdev=net_null1"]
    d0 = "roce:port=0,ip=10.9.0.1,mac=02:00:00:00:09:01"
    d1 = "roce:port=1,ip=10.9.0.2,mac=02:00:00:00:09:02"
    rc, out, err = run(libdir, eal, d0 + ";" + d1, [need("ibv_devices")])
    rows = re.findall(r"^\s+(\S+)\s+([0-9a-f]{16})$", out, re.M)
    if rc != 0 or [r[0] for r in rows] != ["roce0", "roce1"]:
        print(out + err)
        fail("ibv_devices: exit %d, rows %r" % (rc, rows))
    if rows[0][1] == rows[1][1]:
        fail("ibv_devices: both devices have GUID %s" % rows[0][1])
    print("ok: ibv_devices lists roce0 and roce1")

    conf = os.path.join(tmp, "verbs.conf")
    with open(conf, "w") as f:
        f.write("# prdma verbs configuration\n")
        f.write("eal %s\n" % " ".join(eal))
        f.write("dev %s\n" % d0)
    for how, kw in (("environment", {}), ("config file", {"conf": conf})):
        rc, out, err = run(libdir, eal, d0, [need("ibv_devinfo"), "-v", "-d", "roce0"], **kw)
        want = [r"^hca_id:\s+roce0$", r"^\s+transport:\s+InfiniBand \(0\)$",
                r"^\s+phys_port_cnt:\s+1$", r"^\s+state:\s+PORT_ACTIVE \(4\)$",
                r"^\s+link_layer:\s+Ethernet$", r"^\s+atomic_cap:\s+ATOMIC_HCA \(1\)$",
                r"^\s+GID\[\s*0\]:\s+::ffff:10\.9\.0\.1, RoCE v2$",
                r"^\s+max_qp:\s+[1-9]\d*$", r"^\s+max_cqe:\s+[1-9]\d*$"]
        for w in want:
            if not re.search(w, out, re.M):
                print(out + err)
                fail("ibv_devinfo (%s): no line matching %s" % (how, w))
        if rc != 0:
            fail("ibv_devinfo (%s): exit %d" % (how, rc))
        print("ok: ibv_devinfo -v from the %s" % how)

    # 3. the PMD directory is loaded, net_mlx5 included
    rc, out, err = run(libdir, eal + ["--log-level=lib.eal:debug"], d0, [need("ibv_devices")])
    if rc != 0 or "roce0" not in out:
        print(out + err)
        fail("ibv_devices with EAL's debug log: exit %d" % rc)
    if not re.search(r"open shared lib \S*librte_net_mlx5\.so", err) or \
            not re.search(r"open shared lib \S*librte_net_mlx4\.so", err):
        print(err[-3000:])
        fail("EAL did not load net_mlx4/net_mlx5: the check proves nothing here")
    print("ok: EAL loads net_mlx4 and net_mlx5 next to prdma's libibverbs")

    # 4. errors
    rc, out, err = run(libdir, eal, "roce:port=0,bogus=1", [need("ibv_devices")])
    if rc != 0 or "cannot probe" not in err or re.search(r"^\s+roce\d", out, re.M):
        print(out + err)
        fail("bad devargs: exit %d" % rc)
    rc, out, err = run(libdir, ["--no-such-eal-option"], d0, [need("ibv_devices")])
    if rc == 0 or rc < 0 or "EAL init failed" not in err:
        print(out + err)
        fail("failing EAL init: exit %d" % rc)
    print("ok: bad devargs and a failing EAL init are reported")

    # 5. the wrapper
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PRDMA_VERBS") and k != "LD_LIBRARY_PATH"}
    p = subprocess.run(["sh", prdma_run, "--eal", " ".join(eal), "--dev", d0, "--dev", d1,
                        "--link-wait", "5", "ibv_devices"],
                       env=env, capture_output=True, text=True, timeout=60)
    rows = re.findall(r"^\s+(roce\d)\s+[0-9a-f]{16}$", p.stdout, re.M)
    if p.returncode != 0 or rows != ["roce0", "roce1"]:
        print(p.stdout + p.stderr)
        fail("prdma-run ibv_devices: exit %d, rows %r" % (p.returncode, rows))
    p = subprocess.run(["sh", prdma_run], env=env, capture_output=True, text=True)
    if p.returncode != 2 or "usage" not in p.stderr:
        fail("prdma-run without a program: exit %d" % p.returncode)
    print("ok: prdma-run runs ibv_devices on prdma")


if __name__ == "__main__":
    main()
