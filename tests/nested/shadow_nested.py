"""What the guest-shadow tests on the nested bench share (test_shadow_*.py,
and bench_shadow.py): an L2 with Debian's unmodified igbvf under
guest-shadow, live-migrated by unmodified QEMU with hot-unplug/plug under a
TCP and a ping stream, and the checks that MTU 9000, a VLAN, 30 multicast
groups and promiscuous mode hold on each new NIC, made with peer traffic."""
import json
import os
import re
import subprocess
import threading
import time

import vcpu_where
from compsc_harness.pf import vlan_arp
from compsc_harness.vm import paced, vf_mac
from nested import (DST_PORT, L2_IP, L2_KOS, L2_VMLINUZ, MIG_PORT, MOUNT_DEBUGFS, SRC_PORT,
                    UPLINK_MAC, VFIO_DEBUGFS, away_mac, hotplug_migrate, migration_summary,
                    vf_nic)

VM_MAC = vf_mac(0)          # the MAC VF0 has at boot: the VM's from then on
NAMES = {SRC_PORT: "src", DST_PORT: "dst"}
MTU = 9000
VID = 100
VLAN_ADDR = f"10.77.{VID}.10"
# 29 groups and the all-hosts group every IPv4 interface joins: the 30
# multicast addresses the 82576 VF mailbox carries. A 30th group was tried
# first: stock igbvf sends only the first 30 of the list's 31 and that
# group did not answer through a VF (29 of 30 answered).
GROUPS = [f"239.1.2.{n}" for n in range(1, 30)]
# a unicast address that is nobody's: frames to it reach the guest only
# through a receive filter that is open (promiscuous)
FOREIGN_IP, FOREIGN_MAC = "10.77.0.99", "52:54:00:77:00:ee"
TAP = "tap-shadow"          # the virtio-net destination's port in L1's br1
# conftest.py: the L1 of a module that says so has an uplink besides the
# PF, the virtio-net destination's way to the wire (l1lib.sh l1_uplink_tap
# says why not the PF); bridge() needs it
L1_UPLINK = True
# ACPI PCI hotplug, QEMU's default for q35's cold-plugged root ports since
# 6.1, named so the choice is explicit: native PCIe hotplug (pciehp) would
# wait 5 s after the attention button before it let the device go.
ACPI_HP = "-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=on"
# The ping stream's interval. Each echo costs the guest's one vCPU, and
# under NESTED_ACCEL=tcg every 50 ms took a quarter of it in softirq;
# every 200 ms still times a gap of a few seconds to within 10 %.
PING_S = 0.2
# The TCP stream's rate in the tests: 2 Mbit/s with that ping stream kept
# a TCG vCPU 89 % busy, a third of it in softirq; bench-shadow
# keeps the 2 Mbit/s its table was measured with (Streams' @rate).
TCP_RATE = "500K"
CONFIGURE_S = 600           # the guest's 29 group joins (configure)


# guest-shadow's standby (Guest(standby=True)): a virtio-net with the VM's
# MAC on QEMU's second root port, on a tap of L1's br0 for each QEMU (a tap
# opens in one QEMU at a time); the L2 finds it at this address. Without
# the guest-announce feature: the destination QEMU sends RARPs for every
# NIC at the switch-over either way (they move the MAC to its tap in L1's
# bridge); the guest's own announcement, which QEMU asks for besides,
# came seconds later under TCG inside TCG. Tried against a gap after the
# switch-over, it made no measurable difference (7.22 s, 6.63 s).
STANDBY_BDF = "0000:02:00.0"


class Guest:
    """One L2 and where it runs now: the QEMU (QMP port) and the NIC;
    @standby: guest-shadow has a virtio-net standby besides the VF."""

    def __init__(self, l1, nic: str, standby: bool = False):
        self.l1, self.nic_mode, self.standby = l1, nic, standby
        self.here, self.nic = SRC_PORT, vf_nic(l1.vf0, 0)

    @property
    def name(self) -> str:
        return NAMES[self.here]

    def _standby_args(self, port: int) -> str:
        tap = f"tap-sb-{NAMES[port]}"
        self.l1.sh(f"l1_tap {tap} {MTU}")
        return (f" -device pcie-root-port,id=rp2,slot=2,chassis=2"
                f" -netdev tap,id=sb0,ifname={tap},script=no,downscript=no"
                f" -device virtio-net-pci,netdev=sb0,id=sb0nic,mac={VM_MAC},bus=rp2,romfile=,"
                f"guest_announce=off")

    def _start(self, port: int, dev: str, incoming: bool) -> None:
        sb = f" l2sb={STANDBY_BDF}" if self.standby else ""
        env = f"L2APPEND='l2nic={self.nic_mode} l2mac={VM_MAC}{sb}' L2MIG=off L2NOMMAP=off"
        inc = f" -incoming tcp:127.0.0.1:{MIG_PORT}" if incoming else ""
        self.l1.l2_stop(NAMES[port])
        args = self._standby_args(port) if self.standby else ""
        self.l1.l2_start(NAMES[port], dev, port, f"{ACPI_HP}{args}{inc}", env=env)

    def boot(self) -> None:
        # with a standby, guest-shadow gives each new VF the VM's MAC itself
        # (hotplug_migrate() trusts the VF the guest moves to)
        trust = "; l1_vf_trust 0 on; l1_vf_trust 1 off" if self.standby else ""
        self.l1.sh(f"l1_vf_mac 0 {VM_MAC}; l1_vf_mac 1 {away_mac(1)}{trust}")
        self._start(SRC_PORT, self.l1.vf0, incoming=False)
        self._start(DST_PORT, "none", incoming=True)
        self.l1.src.wait_up()

    def untrust(self) -> None:
        """Both VFs untrusted again (boot() trusts VF0 for a standby)."""
        self.l1.sh("l1_vf_trust 0 off; l1_vf_trust 1 off", check=False)

    def hop(self, new: dict) -> dict:
        """Migrate to the other QEMU with @new as the NIC; the QEMU left
        behind is started again, waiting for the next hop."""
        there = DST_PORT if self.here == SRC_PORT else SRC_PORT
        self.l1.wait_incoming(there)
        t = hotplug_migrate(self.l1, VM_MAC, self.nic, new, src=self.here, dst=there,
                            standby=self.standby)
        left, self.here, self.nic = self.here, there, new
        self._start(left, "none", incoming=True)
        return t

    def run(self, cmd: str, timeout: float = 120) -> str:
        return self.l1.l2(self.name).run(cmd, timeout)


def _ip_stats(guest, dev: str) -> dict:
    """`ip -s -s link` receive counters of @dev in the L2 by column name
    (packets, otherhost, ...)."""
    out = guest.run(f"ip -s -s link show dev {dev}")
    lines = out.splitlines()
    got = {}
    for i, line in enumerate(lines[:-1]):
        if line.strip().startswith(("RX:", "RX errors:")):
            names = line.split(":", 1)[1].split()
            # the values: the next line of numbers (a kernel message may
            # come between)
            vals = next((v.split() for v in lines[i + 1:]
                         if v.split() and all(x.isdigit() for x in v.split())), [])
            got.update(zip(names, (int(v) for v in vals)))
    return got


def configure(guest, l1, peer) -> None:
    """Everything through the upper, as an application sets it."""
    for dev in (*peer._taps, peer.bridge):
        peer.run(["ip", "link", "set", "dev", dev, "mtu", str(MTU)])
    guest.run("echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts; "
              "echo 64 > /proc/sys/net/ipv4/igmp_max_memberships")
    guest.run(f"ip link set gsh0 mtu {MTU} && ip link set gsh0 promisc on && "
              f"ip link add link gsh0 name gsh0.{VID} type vlan id {VID} && "
              f"ip addr add {VLAN_ADDR}/24 dev gsh0.{VID} && ip link set gsh0.{VID} up")
    # each join sends the PF the whole list over igbvf's mailbox: 29 round
    # trips through L1's PF; with the other nested worker busy this took
    # over 120 s once (2026-11-28), and it is setup, not what is measured
    guest.run("for g in " + " ".join(GROUPS) + "; do ip addr add $g/32 dev gsh0 autojoin "
              "|| exit 1; done", timeout=CONFIGURE_S)
    peer.run(f"ip neigh replace {FOREIGN_IP} lladdr {FOREIGN_MAC} dev {peer.bridge} "
             "nud permanent")


def _groups_answering(peer) -> list:
    """The groups whose ping the L2 answers, all pinged at once."""
    cmd = " ".join(f"(ping -n -c 2 -i 0.5 -w 15 -I {peer.bridge} {g} | grep -q 'bytes from' "
                   f"&& echo {g}) &" for g in GROUPS)
    return peer.run(cmd + " wait", timeout=60, check=False).out.split()


def _lower(guest) -> str:
    """gshadow's lower now, read through a tag: a kernel message can land
    among a command's output on the L2's console ("[    0.000000] ..."
    was seen there and broke bench-shadow's shadow mode)."""
    out = guest.run('echo "gshadow-lower=$(cat /sys/class/net/gsh0/gshadow/lower)"')
    m = re.search(r"^gshadow-lower=([\w.-]+)\r?$", out, re.M)
    assert m, f"no lower in {out!r}"
    return m[1]


def _jumbo_path(guest, l1, lower: str) -> str:
    """Where a jumbo frame may have been dropped: the counters of the
    guest's lower and of L1's PF and its VFs, L1's MTUs, and the receive
    size limit each VF last set at the PF (compsc_vfio's debugfs pf:
    max_frame 0 means the VF's request never reached the PF)."""
    l2 = guest.run(f"ip -s -s link show dev {lower}; ethtool -S {lower}; dmesg | tail -n 25")
    at_l1 = l1.sh("pf=$(l1_pf); ip -s -s link show dev $pf; ethtool -S $pf | grep -v ': 0$'; "
                  "for i in /sys/class/net/*; do echo ${i##*/} mtu $(cat $i/mtu); done; "
                  f"{MOUNT_DEBUGFS}; for v in {VFIO_DEBUGFS}/*/pf; do echo \"$v: $(cat $v)\"; done; "
                  "dmesg | tail -n 25", check=False).out
    return f"L2 {lower}:\n{l2}\nL1:\n{at_l1}"


def check(guest, l1, peer, where: str, promisc_traffic: bool) -> dict:
    """Peer traffic proves each setting on the NIC the guest has now; every
    check runs, and the AssertionError names all that failed (one run of
    this bench takes minutes)."""
    bad = []
    lower = _lower(guest)
    link = guest.run(f"ip -d link show dev {lower}")
    if f"mtu {MTU}" not in link:
        bad.append(f"{lower} has not MTU {MTU}: {link}")
    if not re.search(r"promiscuity [1-9]", link):
        bad.append(f"{lower} not promiscuous: {link}")
    if peer.ping(L2_IP, count=3, interval=0.3).received < 2:
        bad.append("unicast ping")
    r = peer.run(["ping", "-n", "-c", "3", "-i", "0.3", "-s", str(MTU - 28), "-M", "do",
                  "-w", "20", L2_IP], timeout=30, check=False)
    if r.out.count("bytes from") < 2:
        bad.append(f"MTU {MTU} ping: {r.out}\n{_jumbo_path(guest, l1, lower)}")
    tagged = vlan_arp(peer, VID, VLAN_ADDR)
    if tagged < 2:
        bad.append(f"VLAN {VID}: {tagged} of 3 tagged ARPs answered")
    answering = _groups_answering(peer)
    if len(answering) != len(GROUPS):
        bad.append(f"groups answering {len(answering)} of {len(GROUPS)}: {answering}")
    # unicast frames to a MAC that is nobody's: counted by the guest's IP
    # layer ("otherhost") only if the NIC let them in
    before = _ip_stats(guest, "gsh0").get("otherhost", 0)
    peer.run(f"ping -n -c 20 -i 0.05 -w 5 {FOREIGN_IP}", check=False)
    foreign = _ip_stats(guest, "gsh0").get("otherhost", 0) - before
    if promisc_traffic and foreign < 15:
        bad.append(f"{foreign} of 20 foreign frames reached the guest")
    assert not bad, f"{where}: " + "; ".join(bad)
    return {"lower": lower, "foreign_frames_in": foreign}


# In the L2: wait up to 120 s for a socket listening on iperf3's port
# 5201 (0x1451), IPv4 or IPv6, in /proc/net/tcp{,6}.
IPERF3_LISTENING = ("i=0; until cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | "
                    "grep -Eq ':1451 [0:]+ 0A'; do [ $i -lt 600 ] || exit 1; "
                    "sleep 0.2; i=$((i + 1)); done")


class Streams:
    """A ping stream and an iperf3 TCP stream from the peer to the L2
    (@ping False: the TCP stream only; bench_shadow.py pings per migration),
    the TCP stream at @rate bits/s."""

    def __init__(self, l1, peer, guest, ping: bool = True, rate: str = TCP_RATE):
        self.l1, self.peer, self.guest, self.ping, self.rate = l1, peer, guest, ping, rate

    def __enter__(self):
        # quiet: the console carries what l2_run reads
        self.l1.l2(self.guest.name).cmd("iperf3", f"iperf3 -s -1 -B {L2_IP} >/dev/null 2>&1")
        # the client only once the server listens: a fixed 3 s was not
        # always enough in a loaded nested run ("Connection refused")
        self.l1.l2(self.guest.name).run(IPERF3_LISTENING, timeout=120)
        # and once the peer reaches the guest: iperf3's data stream failed
        # once with "No route to host" after its control connection (the
        # peer's ARP for the L2 unanswered just then, 2026-11-28)
        deadline = time.time() + 60
        while self.peer.ping(L2_IP, count=1, deadline=2).received == 0:
            assert time.time() < deadline, "the peer reached no L2 before the streams"
        self.tcp = self.peer.popen(["iperf3", "-c", L2_IP, "-t", "1800", *paced(self.rate),
                                    "-i", "1", "--forceflush"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.ps = self.peer.ping_stream(L2_IP, interval=PING_S).__enter__() if self.ping \
            else None
        return self

    def _read(self):
        for line in self.tcp.stdout:
            self.lines.append((time.time(), line))

    def tcp_first_data(self, t: float):
        """When iperf3's client first reported bytes sent in an interval
        after @t, or None."""
        units = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
        for when, line in list(self.lines):
            m = re.search(r"sec\s+([\d.]+) ([KMG]?)Bytes", line)
            if when > t and m and "sender" not in line and "receiver" not in line \
                    and float(m[1]) * units[m[2]] > 0:
                return when
        return None

    def close(self) -> bool:
        """Stop both; whether the TCP stream was still running."""
        if self.ps is not None and self.ps.trace is None:
            self.ps.__exit__(None, None, None)
        alive = self.tcp.poll() is None
        self.tcp.terminate()
        self.tcp.wait(10)
        return alive

    def __exit__(self, *exc):
        self.close()


def hop(guest, l1, peer, st, new: dict, label: str, results: list) -> None:
    """One move under the streams, then peer traffic until the guest answers."""
    t0 = time.time()
    t = guest.hop(new)
    deadline = time.time() + 120
    while peer.ping(L2_IP, count=1, deadline=2).received == 0:
        if time.time() > deadline:
            no_ping(guest, l1, label)
    time.sleep(2)
    results.append({"hop": label, "t0": t0, "end": time.time(), "unplug_s": t["unplug_s"],
                    "mac_s": t["mac_s"], "migrate_s": t["migrate_s"],
                    "plug_s": t["plug_s"],
                    "at_s": {k: round(v - t0, 2) for k, v in t["at"].items()},
                    "qemu": migration_summary(t["migration"])})
    print(f"shadow nested: {label}: unplug {t['unplug_s']:.2f} s, migrate "
          f"{t['migrate_s']:.1f} s ({migration_summary(t['migration'])}), plug {t['plug_s']:.2f} s",
          flush=True)


def no_ping(guest, l1, label: str) -> None:
    """The guest answered no ping for 120 s after a move. A guest whose
    console still runs a command has lost its network: a failure. One
    whose console is silent too raises L2Silent from l2_run (the guests
    that fell silent: tests/nested/README.md)."""
    l1.l2(guest.name).run("true", timeout=120)
    raise AssertionError(f"{label}: the guest answered no ping in 120 s, "
                         "though its console runs commands")


def tcp_resumes(st, since: float, timeout: float = 120):
    """Seconds after @since until the TCP stream carried data again (its
    retransmission backoff after a long gap can add tens of seconds), or
    None if it did not within @timeout or failed."""
    while time.time() < since + timeout and st.tcp.poll() is None:
        when = st.tcp_first_data(since)
        if when is not None:
            return round(when - since, 1)
        time.sleep(1)
    return None


def _kept(filename: str) -> str:
    """Where a file these tests keep goes: $COMPSC_BUILD/shadow-nested/."""
    out = os.path.join(os.environ.get("COMPSC_BUILD", "/tmp"), "shadow-nested")
    os.makedirs(out, exist_ok=True)
    return os.path.join(out, filename)


def report(name: str, doc: dict) -> None:
    """The measured numbers, printed and kept as @name.json (READMEs
    quote them)."""
    print(f"shadow nested: {name}: {json.dumps(doc)}", flush=True)
    with open(_kept(f"{name}.json"), "w") as f:
        json.dump(doc, f, indent=1)


def _keep_console(guest, name: str) -> None:
    """What the harness can still see of the guest, kept as
    @name.console.log beside the reports when a move fails (the L2s and
    their logs in L1's /run go with the module's L1): every L2 console of
    this L1, oldest first (l1lib.sh l2_exec keeps a restarted QEMU's in
    /run/l2logs: the source of the last move is there), each QEMU's own
    output, and where the guest's vCPU is (QEMU's status; vCPU samples,
    printed too: CI keeps only the output)."""
    l1 = guest.l1
    path = _kept(f"{name}.console.log")
    logs = l1.sh("for f in $(ls -tr /run/l2logs/*.log 2>/dev/null) /run/src.log /run/dst.log "
                 "/run/src.qemu /run/dst.qemu; do echo \"=== $f\"; tail -c 30000 $f; done",
                 check=False).out
    port = guest.here
    vcpu = []
    for what, ask in (("query-status", lambda: l1.qmp(port, "query-status", timeout=20)),
                      ("where the vCPU is", lambda: vcpu_where.samples(
                          l1, port, vcpu_where.Symbols(L2_VMLINUZ, L2_KOS, logs)))):
        try:
            vcpu.append(f"=== {what}, QEMU on port {port}:\n{ask()}")
        except Exception as e:  # noqa: BLE001 (a record of what failed is the point)
            vcpu.append(f"=== {what}, QEMU on port {port}: failed: {e!r}")
    vcpu.append(_kick_console(guest))
    vcpu.append(_l1_rates(l1))
    print("\n".join(vcpu), flush=True)
    with open(path, "w") as f:
        f.write(logs + "\n" + "\n".join(vcpu) + "\n")
    print(f"shadow nested: {name}: the L2s' consoles are in {path}", flush=True)


def _kick_console(guest) -> str:
    """What the guest's console says once the kernel prints a line
    (printk writes the UART by polling and then rewrites its IER: a
    transmit waiting for a lost THRE interrupt starts again), and the
    guest's interrupt controllers before that."""
    l1, port = guest.l1, guest.here
    out = []
    try:
        for cmd in ("info pic", "info lapic"):
            out.append(f"=== {cmd}:\n{vcpu_where.hmp(l1, port, cmd)}")
        n = len(l1.l2(guest.name).log())
        # and where each of its tasks sleeps (a command stuck in the
        # kernel while others ran, 2026-11-28 23:08)
        l1.l2(guest.name).cmd("kick", 'echo "<3>l2: console kick" > /dev/kmsg; '
                              'for p in /proc/[0-9]*; do read -r st < $p/stat; read -r w < $p/wchan; '
                              'echo "l2task: $st wchan=$w"; done')
        time.sleep(20)
        out.append(f"=== the console after a printk:\n{l1.l2(guest.name).log()[n:][-3000:]}")
    except Exception as e:  # noqa: BLE001 (a record of what failed is the point)
        out.append(f"=== the console kick failed: {e!r}")
    return "\n".join(out)


def _median(xs: list):
    return sorted(xs)[len(xs) // 2] if xs else None


def pace(l1, name: str) -> dict:
    """How the L2 @name kept up, from its console's l2stat lines:
    "stat_every_s", their median interval (2 when its vCPU has room, more
    when l2-init's loop waits for it), and "vcpu", the median share of the
    vCPU's time busy and of it in softirq (l2-init's "cpu:" ticks; None
    before two lines with them). A vCPU near 1.0 leaves l2-init's commands
    waiting."""
    stats = l1.l2(name).stats()
    ups = [float(st["up"]) for st in stats]
    every = _median([b - a for a, b in zip(ups, ups[1:])])
    ticks = [[int(x) for x in st["cpu"].split(",")] for st in stats if "cpu" in st]
    busy, softirq = [], []
    for a, b in zip(ticks, ticks[1:]):
        d = [y - x for x, y in zip(a, b)]
        if sum(d) > 0:
            busy.append(1 - d[3] / sum(d))
            softirq.append(d[6] / sum(d))
    return {"stat_every_s": None if every is None else round(every, 2),
            "vcpu": {"busy": round(_median(busy), 2), "softirq": round(_median(softirq), 2)}
            if busy else None}


def _l1_rates(l1, secs: int = 10) -> str:
    """Packets per second on each of L1's interfaces and CPU seconds per
    second of each L2 QEMU, over @secs: a silent guest busy in its
    transmit path may be answering a storm."""
    snap = ("cat /proc/net/dev; for n in src dst; do [ -e /run/$n.pid ] && "
            "echo \"cpu $n $(cut -d' ' -f14,15 /proc/$(cat /run/$n.pid)/stat)\"; done; true")
    try:
        a = l1.sh(snap, check=False).out
        time.sleep(secs)
        b = l1.sh(snap, check=False).out
    except Exception as e:  # noqa: BLE001 (a record of what failed is the point)
        return f"=== L1's rates failed: {e!r}"

    def parse(out):
        d = {}
        for m in re.finditer(r"^\s*(\S+):\s*\d+\s+(\d+)(?:\s+\d+){6}\s+\d+\s+(\d+)", out, re.M):
            d[m[1]] = (int(m[2]), int(m[3]))
        for m in re.finditer(r"^cpu (\S+) (\d+) (\d+)", out, re.M):
            d[f"qemu {m[1]}"] = (int(m[2]) + int(m[3]), 0)
        return d
    pa, pb = parse(a), parse(b)
    rows = [f"{k}: rx {(pb[k][0] - pa[k][0]) / secs:.0f}/s tx {(pb[k][1] - pa[k][1]) / secs:.0f}/s"
            if not k.startswith("qemu") else
            f"{k}: {(pb[k][0] - pa[k][0]) / secs / 100:.2f} CPU s/s"
            for k in pb if k in pa]
    return f"=== L1 over {secs} s:\n" + "\n".join(rows)


def gaps(st, results) -> list:
    """Peer-seen gap (s) of each hop, from the ping stream's trace."""
    return [round(st.ps.trace.max_gap(r["t0"], r["end"]), 2) for r in results]


def _gaps_at(st, r: dict, least: float = 0.5) -> list:
    """Each gap over @least s between the ping stream's replies during the
    hop @r: [start, length] in seconds from the hop's start (its "at_s"
    are on the same axis)."""
    return [[round(a - r["t0"], 2), round(b - a, 2)]
            for a, b in st.ps.trace.gaps(r["t0"] - 5, r["end"]) if b - a > least]


def bridge(l1) -> None:
    """L1's PF at MTU 9000, before any L2 (an MTU change resets the PF and
    its VFs); br0, of the PF and a standby's taps, and br1, of L1's uplink
    and TAP (a virtio-net destination's), at MTU 9000 too."""
    l1.sh(f"ip link set $(l1_pf) mtu {MTU}; "
          f"l1_bridge; ip link set br0 mtu {MTU}; l1_uplink_tap {TAP} {UPLINK_MAC} {MTU}")


def fresh_guest(l1, peer) -> Guest:
    """A guest-shadow L2 booted on VF0, configured through its upper and
    checked once there."""
    guest = Guest(l1, "shadow")
    guest.boot()
    configure(guest, l1, peer)
    check(guest, l1, peer, "on VF0 at boot", promisc_traffic=False)
    return guest


def moves(guest, peer, plan: list, name: str) -> None:
    """The moves of @plan ((NIC, label[, L1 command run before the move]))
    under the streams, the checks after each, the TCP stream alive at the
    end; numbers kept as @name."""
    l1 = guest.l1
    before = l1.l2(guest.name).wait_stat("lower_adopted")[-1]
    checks, results = [], []
    with Streams(l1, peer, guest) as st:
        try:
            for new, label, *host in plan:
                for cmd in host:
                    l1.sh(cmd)
                hop(guest, l1, peer, st, new, label, results)
                checks.append(check(guest, l1, peer, f"after {label}",
                                    promisc_traffic=new["kind"] == "virtio"))
        except BaseException:
            _keep_console(guest, name)
            raise
        resumed = tcp_resumes(st, time.time())
        alive = st.close()
    want = int(before["lower_adopted"]) + len(plan)
    stats = l1.l2(guest.name).wait_stat("lower_adopted", timeout=60, pred=lambda s:
                                        int(s["lower_adopted"]) >= want)[-1]
    for r in results:
        r["gaps_at_s"] = _gaps_at(st, r)
    report(name, {"gaps_s": gaps(st, results), "ping_every_s": PING_S, "hops": results,
                  "checks": checks, "tcp_alive": alive, "tcp_resumed_s": resumed,
                  "guest": stats.line, **pace(l1, guest.name)})
    assert alive, "iperf3's TCP stream failed:\n" + "".join(ln for _, ln in st.lines[-20:])
    assert resumed is not None, "TCP stream carried nothing after the last move"
    # each move: one lower released, one adopted
    released = int(stats["lower_released"]) - int(before["lower_released"])
    assert released == len(plan) and int(stats["lower_adopted"]) == want, stats.line
    assert int(stats["replay_errors"]) == 0 and int(stats["tx_hold_dropped"]) == 0, stats.line
    l1.assert_kernels_clean(guest.name)


def fresh_guest_moves(l1, peer, plan: list, name: str) -> None:
    """moves() of @plan by a guest of its own (fresh_guest()), both L2
    QEMUs stopped after."""
    try:
        moves(fresh_guest(l1, peer), peer, plan, name)
    finally:
        l1.l2_stop("src", "dst")
