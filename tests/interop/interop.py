#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""prdma against Linux Soft-RoCE (rdma_rxe) in a qemu guest.

One run is one group of cases (a direction and a transport, see cases.py):
a network namespace made here holds a bridge, the guest's tap and a veth
pair whose far end prdma uses (net_af_xdp with the project's XDP program,
or net_af_packet). The guest boots once per group and runs each case's
kernel side on command over its serial console (guest_init.sh); prdma's
side runs on the host. Every case is captured on the bridge and checked:
both sides' exit status, tshark (every udp/4791 frame decodes as
InfiniBand, nothing malformed), prdma-capaudit (every ICRC right), and
"no spurious work on a lossless link" from prdma: no retransmission and no
NAK the peer did not cause. rxe's counters and its own retransmissions and
NAKs are reported. Exit status: 0 every case passed, 1 otherwise, 77 not
root.
"""

import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as casedefs  # noqa: E402
import known_gaps  # noqa: E402

GUEST_IP = "10.99.0.2"
PRDMA_IP = "10.99.0.10"
PRDMA_CIDR = PRDMA_IP + "/24"
GUEST_MAC = "52:54:00:99:00:02"


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kw)


def log(msg):
    print(msg, flush=True)


class Rig:
    """The namespace, its bridge, the guest's tap and prdma's veth."""

    def __init__(self, tag):
        self.ns = "pint-" + tag
        self.br = "pib" + tag
        self.tap = "pit" + tag
        self.vs = "piv" + tag   # prdma's end
        self.vh = "pih" + tag   # the bridge's end

    def nsx(self, *cmd):
        return ["ip", "netns", "exec", self.ns] + list(cmd)

    def up(self, bridge_veth_mtu):
        n = self.ns
        sh(["ip", "netns", "add", n])
        ip = ["ip", "-n", n]
        sh(ip + ["link", "set", "lo", "up"])
        for k, v in (("net.ipv6.conf.all.disable_ipv6", "1"),
                     ("net.ipv6.conf.default.disable_ipv6", "1"),
                     ("net.ipv4.conf.all.arp_ignore", "1"),
                     ("net.ipv4.conf.all.arp_announce", "2"),
                     ("net.ipv4.conf.default.arp_ignore", "1"),
                     ("net.ipv4.conf.default.arp_announce", "2")):
            sh(self.nsx("sysctl", "-qw", "%s=%s" % (k, v)))
        sh(ip + ["link", "add", self.br, "type", "bridge", "stp_state", "0",
                 "forward_delay", "0"])
        sh(ip + ["tuntap", "add", "dev", self.tap, "mode", "tap"])
        # One queue each way: net_af_xdp binds queue 0 only.
        sh(ip + ["link", "add", self.vs, "numtxqueues", "1", "numrxqueues", "1",
                 "type", "veth", "peer", "name", self.vh, "numtxqueues", "1",
                 "numrxqueues", "1"])
        # XDP on a veth needs the peer's MTU to fit a page (veth refuses
        # larger: "Peer MTU is too large to set XDP"), so over net_af_xdp
        # the bridge's veth end stays at 1500.
        sh(ip + ["link", "set", self.tap, "mtu", "4200", "master", self.br, "up"])
        sh(ip + ["link", "set", self.vh, "mtu", str(bridge_veth_mtu), "master", self.br,
                 "up"])
        sh(ip + ["link", "set", self.br, "mtu", "4200", "up"])
        sh(ip + ["addr", "add", PRDMA_CIDR, "dev", self.vs])
        sh(ip + ["link", "set", self.vs, "mtu", "1500", "up"])

    def tcp_listening(self, port):
        r = sh(self.nsx("ss", "-Hltn", "sport", "=", ":%d" % port), check=False)
        return bool(r.stdout.strip())

    def set_prdma_mtu(self, mtu):
        sh(["ip", "-n", self.ns, "link", "set", self.vs, "mtu", str(mtu)])

    def tap_drops(self):
        r = sh(self.nsx("cat", "/sys/class/net/%s/statistics/tx_dropped" % self.tap),
               check=False)
        try:
            return int(r.stdout.strip())
        except ValueError:
            return 0

    def xdp_off(self):
        # A prdma killed in a case cannot detach the program net_af_xdp
        # attached, and the next probe would fail ("XDP program already
        # attached"): detach whatever is left.
        subprocess.run(["ip", "-n", self.ns, "link", "set", "dev", self.vs, "xdp", "off"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def down(self):
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)


class Guest:
    """The qemu guest: a line protocol over its serial console."""

    def __init__(self, rig, guest_dir, logpath, cpu):
        self.rig = rig
        self.lines = queue.Queue()
        self.out = {}
        self.logf = open(logpath, "w")
        # A TCG guest starved of its CPU for a second stops answering, and
        # the other side's retries run out: it runs at a higher priority.
        cmd = rig.nsx(
            "nice", "-n", "-10", "taskset", "-c", str(cpu),
            "qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-smp", "1",
            "-m", "512", "-nodefaults", "-display", "none", "-no-reboot",
            "-serial", "stdio",
            "-kernel", os.path.join(guest_dir, "vmlinuz"),
            "-initrd", os.path.join(guest_dir, "initrd.gz"),
            "-append", "console=ttyS0 quiet loglevel=3 panic=-1 prdma.ip=%s" % GUEST_IP,
            "-netdev", "tap,id=n0,ifname=%s,script=no,downscript=no" % rig.tap,
            "-device", "virtio-net-pci,netdev=n0,mac=%s" % GUEST_MAC)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        buf = b""
        while True:
            d = self.proc.stdout.read1(4096) if hasattr(self.proc.stdout, "read1") \
                else os.read(self.proc.stdout.fileno(), 4096)
            if not d:
                self.lines.put(None)
                return
            buf += d
            while b"\n" in buf:
                ln, buf = buf.split(b"\n", 1)
                s = ln.decode("utf-8", "replace").rstrip("\r")
                self.logf.write(s + "\n")
                self.logf.flush()
                self.lines.put(s)

    def send(self, line):
        self.logf.write(">> " + line + "\n")
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def expect(self, pattern, timeout, on_line=None):
        """Wait for a line matching pattern; keeps @@O/@@RC lines it passes."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                s = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if s is None:
                return None
            m = re.match(r"@@O (\S+) (.*)$", s)
            if m:
                self.out.setdefault(m.group(1), []).append(m.group(2))
            m2 = re.match(r"@@RC (\S+) (\d+)", s)
            if m2:
                self.out.setdefault("rc:" + m2.group(1), int(m2.group(2)))
            if on_line is not None:
                on_line(s)
            mm = rx.search(s)
            if mm:
                return mm

    def rc_of(self, cid):
        return self.out.get("rc:" + cid)

    def stats(self, cid):
        self.send("T " + cid)
        m = self.expect(r"^@@STATS %s (.*)$" % re.escape(cid), 20)
        if m is None:
            return {}
        toks = m.group(1).split()
        st = {}
        # "link rxe0/1 sent_pkts 10 rcvd_pkts 9 ..."
        for i in range(2, len(toks) - 1, 2):
            try:
                st[toks[i]] = int(toks[i + 1])
            except ValueError:
                pass
        return st

    def quit(self):
        try:
            self.send("Q")
            self.proc.wait(timeout=10)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            self.proc.kill()
            self.proc.wait()
        self.logf.close()


class Prdma:
    """prdma's side of a case: a host process in the namespace."""

    def __init__(self, rig, argv, logpath, stdin_data=None):
        self.logf = open(logpath, "w")
        self.text = []
        self.ready = threading.Event()
        self.on_line = None
        self.proc = subprocess.Popen(
            rig.nsx("sh", "-c",
                    'mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf; exec "$@"',
                    "sh") + argv,
            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            start_new_session=True)
        if stdin_data is not None:
            # A prdma-testpmd batch: kept open, the case feeds it as events come.
            self.send(stdin_data)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for ln in self.proc.stdout:
            self.logf.write(ln)
            self.logf.flush()
            self.text.append(ln.rstrip("\n"))
            if "Waiting for client to connect" in ln or \
                    re.search(r"cm: device \d+ listening", ln):
                self.ready.set()
            if self.on_line is not None:
                self.on_line(self, ln)

    def send(self, text):
        try:
            self.proc.stdin.write(text)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.proc.stdin is not None and self.proc.poll() is None:
            # End of the batch: testpmd quits and destroys what it made.
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            self.wait(5)
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            if self.wait(3) is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
        self.reader.join(timeout=2)
        self.logf.close()


class Capture:
    def __init__(self, rig, path):
        self.path = path
        self.proc = subprocess.Popen(
            rig.nsx("dumpcap", "-q", "-i", rig.br, "-w", path),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 10
        # dumpcap writes the file header once it captures.
        while time.monotonic() < end:
            if os.path.exists(path) and os.path.getsize(path) > 0:
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        time.sleep(0.1)

    def stop(self):
        time.sleep(0.2)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def audit_capture(pcap, capaudit):
    """Returns (facts, problems) from tshark and prdma-capaudit."""
    facts = {"frames": 0, "roce": 0, "prdma_naks": [], "peer_naks": [], "info": {},
             "prdma_dups": [], "peer_dups": [], "peer_gaps": [], "prdma_gaps": []}
    problems = []
    # RPC-over-RDMA's heuristic takes perftest's exchange SENDs over an
    # rdma_cm connection (-R) for its own and calls both sides' malformed.
    r = sh(["tshark", "-n", "--disable-protocol", "rpcordma", "-r", pcap,
            "-T", "fields", "-E", "separator=/t",
            "-e", "frame.number", "-e", "ip.src", "-e", "udp.dstport",
            "-e", "infiniband.bth.opcode", "-e", "infiniband.aeth.syndrome",
            "-e", "_ws.malformed", "-e", "frame.time_relative",
            "-e", "infiniband.bth.psn", "-e", "infiniband.bth.destqp",
            "-e", "_ws.col.Info"], check=False)
    reqs = []
    for ln in r.stdout.splitlines():
        p = ln.split("\t")
        if len(p) < 10 or not p[0].isdigit():
            continue
        facts["frames"] += 1
        num, src, dport, opc, synd, malformed, t, psn, dqp, info = p[:10]
        facts["info"][int(num)] = "%s %s" % (src, info)
        if malformed:
            problems.append(("tshark", num, "malformed frame: %s -> %s" % (src, info)))
        if dport.split(",")[0] != "4791":
            continue
        facts["roce"] += 1
        if not opc:
            problems.append(("tshark", num, "udp/4791 frame not decoded as InfiniBand: " + info))
            continue
        try:
            o = int(opc, 0)
            if (o < 13 or 19 <= o <= 23) and psn and dqp and "," not in src:
                reqs.append((int(num), src, int(dqp, 0), int(psn, 0), float(t)))
        except ValueError:
            pass
        if synd:
            try:
                s = int(synd, 0)
            except ValueError:
                s = 0
            kind = s & 0x60
            if kind in (0x20, 0x60):
                what = "RNR NAK" if kind == 0x20 else "NAK 0x%02x" % s
                rec = (int(num), "%s: %s" % (what, info), float(t))
                if src == PRDMA_IP:
                    facts["prdma_naks"].append(rec)
                else:
                    facts["peer_naks"].append(rec)
    if r.returncode != 0:
        problems.append(("tshark", "-", "tshark failed: " + r.stdout[-300:]))
    facts["rtx"] = classify_resends(reqs, facts)
    a = sh([capaudit, "--quiet", "--json", "-", pcap], check=False)
    try:
        rep = json.loads(a.stdout)[0]
    except (ValueError, IndexError):
        problems.append(("capaudit", "-", "prdma-capaudit gave no report: " + a.stdout[-300:]))
        return facts, problems
    if rep.get("icrc_bad", 0) or rep.get("malformed", 0):
        for an in rep.get("anomalies", []):
            if an["kind"] in ("bad_icrc", "malformed"):
                problems.append(("capaudit", str(an["frame"]),
                                 "%s: %s" % (an["kind"], an.get("detail", ""))))
    facts["icrc_ok"] = rep.get("icrc_ok", 0)
    facts["icrc_bad"] = rep.get("icrc_bad", 0)
    for an in rep.get("anomalies", []):
        # A QP is named by the address it receives on: a duplicate to the
        # guest's QP was sent by prdma.
        rec = (an["frame"], "%s: %s" % (an["kind"], an.get("detail", "")))
        if an["kind"] == "psn_duplicate":
            (facts["prdma_dups"] if an.get("addr") == GUEST_IP else facts["peer_dups"]).append(rec)
        elif an["kind"] == "psn_gap":
            (facts["prdma_gaps"] if an.get("addr") == GUEST_IP else facts["peer_gaps"]).append(rec)
    return facts, problems


# Both sides' RC QPs use timeout 14: 4.096 us << 14 = 67.1 ms.
ACK_TIMEOUT = 0.0671


def classify_resends(reqs, facts):
    """Finds each run of resent RC requests (a PSN at or behind the highest
    one its sender already sent to that QP) and says why it was resent:
    after a NAK from the other side, after the ACK timeout (no answer for
    67 ms since the first send of the run's first PSN), or for no reason
    the wire shows ("spurious"). Returns {sender: [(frame, why, spurious)]}."""
    out = {PRDMA_IP: [], "peer": []}
    first = {}
    top = {}
    prev_dup = {}
    for num, src, qp, psn, t in reqs:
        key = (src, qp)
        hi = top.get(key)
        dup = hi is not None and ((hi - psn) & 0xFFFFFF) < 0x800000
        if not dup:
            top[key] = psn
            first.setdefault((src, qp, psn), t)
            prev_dup[key] = False
            continue
        if prev_dup.get(key):
            continue
        prev_dup[key] = True
        t0 = first.get((src, qp, psn), t)
        gap = t - t0
        naks = facts["peer_naks"] if src == PRDMA_IP else facts["prdma_naks"]
        nak = [n for n in naks if t0 <= n[2] <= t]
        who = PRDMA_IP if src == PRDMA_IP else "peer"
        if nak:
            out[who].append((num, "after the NAK in frame %d" % nak[0][0], False))
        elif gap >= 0.9 * ACK_TIMEOUT:
            out[who].append((num, "after the ACK timeout (%.0f ms without an answer)"
                             % (gap * 1e3), False))
        else:
            out[who].append((num, "%.1f ms after the first send of PSN %d, with no NAK and "
                             "before the 67 ms ACK timeout" % (gap * 1e3, psn), True))
    return out


RXE_BAD = ("duplicate_request", "seq_naks", "rcvd_seq_err", "rcvd_rnr_err",
           "send_rnr_err", "retry_exceeded_err", "retry_rnr_exceeded_err",
           "completer_retry_err", "send_err", "out_of_seq_request",
           "link_downed", "rdma_recv_err", "rnr_nak_retry_err")


def prdma_json_counts(path):
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError):
        return None
    rt = sum(int(r.get("retransmits", 0)) for r in j.get("results", []))
    nk = sum(int(r.get("naks_received", 0)) for r in j.get("results", []))
    return {"retransmits": rt, "naks_received": nk}


class Runner:
    def __init__(self, args):
        self.a = args
        self.tag = "%d" % os.getpid()
        self.rig = Rig(self.tag)
        self.out = args.outdir
        self.results = []
        self.seq = 0

    def eal(self, n, lcores=1):
        a = self.a
        if a.transport == "afxdp":
            vdev = ("net_af_xdp0,iface=%s,start_queue=0,queue_count=1,busy_budget=0,"
                    "xdp_prog=%s" % (self.rig.vs, a.xdp))
        else:
            # 8 KiB ring frames: the default 2 KiB slot truncates a frame of
            # path MTU 4096 (eth0 MTU 4200); the provider sizes its mbufs to
            # the slot and takes the port's MTU from the interface's.
            vdev = ("net_af_packet0,iface=%s,qpairs=1,framesz=8192,blocksz=8192"
                    % self.rig.vs)
        return ["--no-huge", "-m", "512", "--no-shconf", "--no-pci",
                "--file-prefix", "pint%s_%d" % (self.tag, n),
                "-l", str(a.prdma_cpu) if lcores == 1 else "0-1",
                "--vdev", vdev, "--log-level=pmd.net.af_xdp:warning"]

    def dropin_env(self, n, lcores=1):
        """A Debian binary on prdma's drop-in libibverbs and librdmacm: the
        same port, EAL and devargs prdma's own tools get, through the
        environment (doc/guides/verbs.md); stdout line buffered so the
        harness sees each line as it comes."""
        return ["env", "LD_LIBRARY_PATH=%s:%s" % (self.a.verbs_dir, self.a.rdmacm_dir),
                "PRDMA_VERBS_EAL=" + " ".join(self.eal(n, lcores)),
                "PRDMA_VERBS_DEVARGS=" + casedefs.PRDMA_DEV % PRDMA_IP +
                ",engine_cpus=%d" % self.a.prdma_cpu,
                "stdbuf", "-oL"]

    def start_holder(self):
        """net_af_packet: the kernel sees every RoCE frame too; a socket on
        prdma's address and port 4791 keeps it from answering each with an
        ICMP port unreachable."""
        self.holder = None
        if self.a.transport != "afpacket":
            return
        self.holder = subprocess.Popen(self.rig.nsx(
            "python3", "-c",
            "import socket,signal;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);"
            "s.bind(('%s',4791));signal.pause()" % PRDMA_IP))

    def stop_holder(self):
        if getattr(self, "holder", None) is not None:
            self.holder.kill()
            self.holder.wait()

    def boot(self):
        self.guest = Guest(self.rig, self.a.guest, os.path.join(self.out, "guest.log"),
                           self.a.guest_cpu)
        t0 = time.monotonic()
        m = self.guest.expect(r"^@@BOOTED (.*)$", 240)
        if m is None:
            raise RuntimeError("the guest did not boot (see %s/guest.log)" % self.out)
        log("guest booted in %.1f s: %s" % (time.monotonic() - t0, m.group(1)))
        self.mtu = 1500

    def set_mtu(self, mtu):
        if mtu == self.mtu:
            return
        self.guest.send("M %d" % mtu)
        m = self.guest.expect(r"^@@MTU (\S*)", 20)
        self.rig.set_prdma_mtu(mtu)
        self.mtu = mtu
        log("eth0 MTU %d: rxe active_mtu %s" % (mtu, m.group(1) if m else "?"))

    def run_case(self, c):
        """c: a cases.Case. Returns (ok, lines)."""
        self.seq += 1
        cid = "c%d" % self.seq
        name = c.name
        port = c.fixed_port or 18600 + self.seq
        t0 = time.monotonic()
        if c.prdma_tool == "pingpong" and not self.a.tools["pingpong"]:
            return False, ["no prdma counterpart: this build has no prdma-pingpong "
                           "(ibv_%s_pingpong's counterpart)" % c.kind], 0.0
        if c.prdma_tool in ("rping", "udaddy") and not self.a.tools[c.prdma_tool]:
            return False, ["no prdma counterpart: this build has no prdma-%s" %
                           c.prdma_tool], 0.0
        if c.unsupported:
            return False, ["no prdma counterpart: " + c.unsupported], 0.0
        if c.prdma_tool == "dropin" and not (self.a.verbs_dir and self.a.rdmacm_dir):
            return False, ["this build has no drop-in libibverbs/librdmacm "
                           "(--verbs-dir, --rdmacm-dir)"], 0.0
        self.set_mtu(c.mtu)
        pcap = os.path.join(self.out, name + ".pcapng")
        plog = os.path.join(self.out, name + ".prdma.log")
        pjson = os.path.join(self.out, name + ".json")
        before = self.guest.stats(cid + "b")
        drops0 = self.rig.tap_drops()
        cap = Capture(self.rig, pcap)
        kargs = c.kernel_argv(port, PRDMA_IP)
        if c.prdma_tool == "dropin":
            pargs = self.dropin_env(self.seq, c.lcores) + \
                c.prdma_argv(port, PRDMA_IP, GUEST_IP, pjson)
        else:
            pargs = [self.a.tools[c.prdma_tool]] + self.eal(self.seq, c.lcores) + ["--"] + \
                c.prdma_argv(port, PRDMA_IP, GUEST_IP, pjson)
        notes = []
        prc = None
        grc = None
        p = None
        try:
            if c.prdma_serves:
                p = Prdma(self.rig, pargs, plog, c.prdma_stdin(port, PRDMA_IP))
                p.on_line = c.prdma_on_line
                end = time.monotonic() + c.ready_secs
                # perftest prints its banner before it listens: a case that
                # says so waits for the TCP listener itself.
                while c.wait_tcp_listen or not p.ready.wait(0.1):
                    if c.listen_kind == "tcp" and self.rig.tcp_listening(port):
                        break
                    if c.wait_tcp_listen:
                        time.sleep(0.1)
                    if p.proc.poll() is not None or time.monotonic() > end:
                        if c.prdma_ready_marker:
                            notes.append("prdma did not say it was listening")
                        break
                self.guest.send("C %s %d %s" % (cid, c.secs, " ".join(kargs)))
                self.guest.expect(r"^@@STARTED %s$" % cid, 10)
            else:
                self.guest.send("S %s %d %s %d %s" % (cid, c.secs, c.listen_kind, port,
                                                       " ".join(kargs)))
                m = self.guest.expect(r"^@@READY %s$" % cid, c.secs + 10)
                if m is None or self.guest.rc_of(cid) is not None:
                    notes.append("the guest's server did not start listening")
                p = Prdma(self.rig, pargs, plog, c.prdma_stdin(port, GUEST_IP))
                p.on_line = c.prdma_on_line
            end = time.monotonic() + c.secs + 10
            while time.monotonic() < end:
                if prc is None:
                    prc = p.proc.poll()
                    if prc is not None and prc != 0 and self.guest.rc_of(cid) is None:
                        # prdma gave up: end the guest's side now.
                        self.guest.send("K " + cid)
                if self.guest.rc_of(cid) is not None and prc is not None:
                    break
                if self.guest.rc_of(cid) is not None and prc is None:
                    # the guest is done; give prdma a moment to finish.
                    if c.prdma_finish is not None:
                        c.prdma_finish(p)
                    prc = p.wait(c.linger)
                    if prc is None:
                        notes.append("prdma still running %d s after the guest's side "
                                     "ended: killed" % c.linger)
                    break
                self.guest.expect(r"^@@RC %s " % cid, 0.2)
            grc = self.guest.rc_of(cid)
            if grc is None:
                self.guest.send("K " + cid)
                self.guest.expect(r"^@@RC %s " % cid, 10)
                grc = self.guest.rc_of(cid)
                notes.append("the guest's side did not end in time: killed")
        finally:
            if p is not None:
                if prc is None:
                    prc = p.proc.poll()
                p.kill()
                if self.a.transport == "afxdp":
                    self.rig.xdp_off()
            cap.stop()
        after = self.guest.stats(cid + "a")
        drops = self.rig.tap_drops() - drops0
        secs = time.monotonic() - t0
        return self.check(c, cid, pcap, pjson, p, prc, grc, before, after, drops,
                          notes) + (secs,)

    def check(self, c, cid, pcap, pjson, p, prc, grc, before, after, drops, notes):
        lines = list(notes)
        ok = not notes
        gout = self.guest.out.get(cid, [])
        if prc != 0:
            ok = False
            text = p.text if p else []
            tail = [s for s in text if re.search(r"failed|[Ee]rror|refused|malformed|"
                                                 r"closed|[Tt]imed out", s)][:3] or \
                [s for s in text if s.strip()][-3:]
            lines.append("prdma side: exit %s; last lines: %s" % (prc, " | ".join(tail)))
        if grc != 0:
            ok = False
            tail = [s for s in gout if re.search(r"[Ff]ail|[Ee]rr|[Cc]ouldn|[Uu]nable", s)][:3] or \
                [s for s in gout if s.strip()][-3:]
            lines.append("kernel side (%s): exit %s; last lines: %s" %
                         (c.kernel_tool, grc, " | ".join(tail)))
        if c.kernel_check is not None:
            msg = c.kernel_check(gout)
            if msg:
                ok = False
                lines.append("kernel side: " + msg)
        if c.prdma_check is not None and p is not None:
            msg = c.prdma_check(p.text)
            if msg:
                ok = False
                lines.append("prdma side: " + msg)
        facts, problems = audit_capture(pcap, self.a.capaudit)
        if c.wire_check is not None:
            msg = c.wire_check(pcap)
            if msg:
                ok = False
                lines.append(msg)
        if problems:
            ok = False
        nums = set()
        for who, num, what in problems:
            if num.isdigit():
                nums.add(int(num))
        for k in ("prdma_naks", "peer_naks", "prdma_dups", "peer_dups"):
            for rec in facts[k][:3]:
                nums.add(rec[0])
        info = facts["info"]

        def fr(num):
            return "frame %s (%s)" % (num, info.get(int(num), "?")) if str(num).isdigit() \
                else "-"
        for who, num, what in problems[:5]:
            lines.append("wire (%s): %s: %s" % (who, fr(num), what))
        delta = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        rxe_bad = {k: v for k, v in delta.items() if k in RXE_BAD and v}
        pj = prdma_json_counts(pjson) if c.prdma_tool == "perf" else None
        prdma_rtx = pj["retransmits"] if pj else len(facts["prdma_dups"])
        runs = facts["rtx"][PRDMA_IP]
        bad = [r for r in runs if r[2]]
        if bad:
            ok = False
            lines.append("prdma side: %d spurious resend run(s) on a lossless link; first "
                         "%s, %s" % (len(bad), fr(bad[0][0]), bad[0][1]))
        if runs and len(bad) < len(runs):
            good = [r for r in runs if not r[2]]
            lines.append("note: prdma resent %d time(s) with a cause the wire shows (first "
                         "frame %d, %s)" % (len(good), good[0][0], good[0][1]))
        if prdma_rtx and not runs:
            lines.append("note: prdma-perf counts %d retransmission(s) the capture does not "
                         "show" % prdma_rtx)
        pruns = facts["rtx"]["peer"]
        if pruns:
            pbad = [r for r in pruns if r[2]]
            lines.append("peer (rxe): %d resend run(s), %d with no cause on the wire%s" %
                         (len(pruns), len(pbad),
                          ("; first frame %d, %s" % (pbad[0][0], pbad[0][1])) if pbad else ""))
        if facts["prdma_naks"]:
            if facts["peer_gaps"] or facts["peer_dups"]:
                lines.append("note: prdma sent %d NAK(s) after rxe's PSN gap/duplicate" %
                             len(facts["prdma_naks"]))
            else:
                ok = False
                num = facts["prdma_naks"][0][0]
                lines.append("prdma side: %d NAK(s) the peer did not cause; first %s" %
                             (len(facts["prdma_naks"]), fr(num)))
        if facts["peer_naks"]:
            num = facts["peer_naks"][0][0]
            lines.append("peer (rxe): %d NAK(s); first %s" % (len(facts["peer_naks"]), fr(num)))

        if rxe_bad:
            lines.append("rxe counters: " + " ".join("%s=%d" % kv for kv in sorted(rxe_bad.items())))
        if drops:
            lines.append("tap toward the guest dropped %d frame(s)" % drops)
        if facts["roce"] == 0 and c.expect_roce:
            ok = False
            lines.append("no RoCE frame on the wire")
        lines.append("wire: %d frames, %d RoCE, ICRC %d ok %d bad" %
                     (facts["frames"], facts["roce"], facts.get("icrc_ok", 0),
                      facts.get("icrc_bad", 0)))
        return ok, lines


def on_term(signum, frame):
    # meson's timeout sends SIGTERM: leave through the finally blocks, which
    # power the guest off and delete the namespace.
    raise SystemExit("interop: signal %d, stopping" % signum)


def main():
    signal.signal(signal.SIGTERM, on_term)
    ap = argparse.ArgumentParser()
    ap.add_argument("--group", required=True)
    ap.add_argument("--perf", required=True)
    ap.add_argument("--testpmd", required=True)
    ap.add_argument("--capaudit", required=True)
    ap.add_argument("--pingpong", default="",
                    help="prdma-pingpong (ibv_*_pingpong's counterpart), when built")
    ap.add_argument("--rping", default="", help="prdma-rping (rping's counterpart)")
    ap.add_argument("--udaddy", default="", help="prdma-udaddy (udaddy's counterpart)")
    ap.add_argument("--verbs-dir", default="",
                    help="the directory of prdma's drop-in libibverbs.so.1")
    ap.add_argument("--rdmacm-dir", default="",
                    help="the directory of prdma's drop-in librdmacm.so.1")
    ap.add_argument("--xdp", required=True)
    ap.add_argument("--build-guest", required=True)
    ap.add_argument("--cache", default=os.environ.get("PRDMA_INTEROP_CACHE",
                                                      "/var/cache/prdma-interop"))
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--only", default=os.environ.get("PRDMA_INTEROP_ONLY", ""),
                    help="regular expression: run only the matching cases")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    group = casedefs.group(a.group)
    if a.list:
        for c in group.cases:
            print(c.name)
        return 0
    if os.geteuid() != 0:
        print("SKIP: the interop suite needs root (network namespaces, taps, XDP, "
              "installing the peer's packages)")
        return 77
    a.transport = group.transport
    if a.transport == "afxdp" and not os.path.isfile(a.xdp):
        print("FAIL: the XDP program was not built (clang missing): %s" % a.xdp)
        return 1
    a.tools = {"perf": a.perf, "testpmd": a.testpmd, "pingpong": a.pingpong,
               "rping": a.rping, "udaddy": a.udaddy}
    ncpu = os.cpu_count() or 1
    a.guest_cpu = 0
    a.prdma_cpu = 1 if ncpu > 1 else 0
    shutil.rmtree(a.outdir, ignore_errors=True)
    os.makedirs(a.outdir)
    t0 = time.monotonic()
    r = sh([a.build_guest, a.cache], check=False)
    if r.stdout.strip():
        log(r.stdout.strip())
    if r.returncode != 0:
        print("FAIL: the guest could not be built")
        return 1
    a.guest = os.path.join(a.cache, "guest")
    with open(os.path.join(a.guest, "versions")) as f:
        log("peer: " + "; ".join(f.read().strip().splitlines()))
    run = Runner(a)
    cases = [c for c in group.cases if not a.only or re.search(a.only, c.name)]
    results = []
    try:
        run.rig.up(4200 if a.transport == "afpacket" else 1500)
        run.start_holder()
        run.boot()
        for c in cases:
            ok, lines, secs = run.run_case(c)
            if not ok and not c.unsupported:
                # A TCG guest on two shared cores can stall for seconds: a
                # failed case runs once more, and both results are printed.
                log("RETRY %s (first run failed: %s)" % (c.name, "; ".join(lines)[:400]))
                ok, again, secs2 = run.run_case(c)
                lines = ["first run failed; second run %s" % ("passed" if ok else "failed")] + \
                    lines + ["second run:"] + again
                secs += secs2
            pcap = os.path.join(a.outdir, c.name + ".pcapng")
            if ok and not os.environ.get("PRDMA_INTEROP_KEEP") and os.path.exists(pcap):
                # A passing case's capture is not kept (a group's run holds
                # ~1 GB of them); PRDMA_INTEROP_KEEP=1 keeps every one.
                os.unlink(pcap)
            gap = known_gaps.reason(c.name)
            results.append((c.name, ok, lines, secs, gap))
            if gap is None:
                verdict = "PASS" if ok else "FAIL"
            else:
                verdict = "KNOWN-GAP PASS (remove it from known_gaps.py)" if ok else \
                    "KNOWN-GAP FAIL"
            log("%s %s (%.1f s)" % (verdict, c.name, secs))
            if gap is not None:
                log("    known gap: " + gap)
            for ln in lines:
                log("    " + ln)
    finally:
        if hasattr(run, "guest"):
            run.guest.quit()
        run.stop_holder()
        run.rig.down()
    npass = sum(1 for r in results if r[1])
    ngap = sum(1 for r in results if r[4] is not None and not r[1])
    nfail = sum(1 for r in results if r[4] is None and not r[1])
    log("group %s: %d of %d cases passed, %d failed, %d known gaps failed, in %.0f s" %
        (a.group, npass, len(results), nfail, ngap, time.monotonic() - t0))
    with open(os.path.join(a.outdir, "results.json"), "w") as f:
        json.dump([{"case": n, "pass": ok, "known_gap": g, "notes": ln, "secs": round(s, 1)}
                   for n, ok, ln, s, g in results], f, indent=1)
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
