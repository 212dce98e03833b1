"""make bench-shadow: the downtime a peer sees when
Debian's unmodified QEMU, inside the L1 host, live-migrates an L2 whose VF
driver is Debian's unmodified igbvf, five ways in one run:

  shadow     igbvf + guest-shadow (gshadow.ko) with a virtio-net standby
             (the VM's MAC, on a tap in L1's br0, standby_pci): the VF
             gives up the VM's MAC at the PF (the frames go to the
             standby), hot-unplug of the VF, RAM-only migration, hot-plug
             of the other VF, which guest-shadow gives the VM's MAC once it
             is ready (nested.hotplug_migrate(standby=True)); the
             configuration (MTU 9000, VLAN 100, 29 groups, promiscuous) set
             through the upper is checked from the peer with traffic on the
             new VF after each migration
  shadow-hold  the same without the standby: guest-shadow holds transmit
             from the unplug to the plug
  unplug     the same moves without guest-shadow: igbvf alone, l2-init sets
             the address on the new NIC and announces it
  failover   net_failover: virtio-net standby (failover=on, on a tap in
             L1's br0) with the VF as its primary (failover_pair_id); QEMU
             unplugs the primary itself (migration state wait-unplug) and
             plugs the destination's at the switch-over
  compsc     the CompSC-patched igbvf through compsc_vfio, DMA logging
             (bench-e2e's compsc-log mode, for reference)

Every mode but compsc runs an iperf3 TCP stream (2 Mbit/s, peer to L2)
across all of its migrations (TcpLoad): the L2's one vCPU is the
bottleneck, so the modes compared carry the same load.

Downtime per migration = the longest gap between ping replies at the peer
around it (bench_e2e.Mode.once(): ping every 50 ms); per mode the median
of BENCH_SHADOW_N migrations back and forth (default 5). For the hot-plug
modes each migration's split_s puts the host's steps, the guest's (its
kernel log) and the guest's first frame at the peer on one time axis
(split()). L1 runs under TCG, its L2s on KVM (NESTED_ACCEL=tcg: TCG
inside TCG): compare within one run only.

Last line, exactly:
  bench-shadow: shadow_vs_unplug=R1 shadow_vs_failover=R2 config_kept=yes|no tcp_alive=yes|no
R1, R2: median gap of shadow over that of unplug, failover ("na" when a
mode could not run; the report and stderr say why); the line before it
gives the same ratios for shadow-hold. config_kept: every
check passed after every shadow migration; tcp_alive: the TCP stream
never failed and carried data after the last shadow migration.
"""
import json
import os
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from compsc_harness.stats import vs
from compsc_harness.vm import Peer, vf_mac
import bench_e2e
from bench_e2e import CompscLog, Mode
from nested import (DST_PORT, L1, L2_IP, MIG_PORT, MIGRATION_ENDS, SRC_PORT,
                    away_mac, hotplug_migrate, vf_nic)
from shadow_nested import (ACPI_HP, L1_UPLINK, MTU, VM_MAC, Guest, Streams,
                           configure, tcp_resumes, bridge)
from shadow_nested import check as check_config  # Hotplug.check is a method

REPS = int(os.environ.get("BENCH_SHADOW_N", "5"))
NAMES = {SRC_PORT: "src", DST_PORT: "dst"}
# What l2-init's L2 prints on the way to a usable NIC after a plug (guest
# clock, printk time): the PCI core finding the device, the driver's probe
# done, its link up, guest-shadow's replay into it, its adoption (replay,
# open, address sync) or net_failover's pairing, and gshadow finding the
# lower ready (just before it sends what it held and announces the move).
PROBE_STEPS = (("found", r"pci 0000:01:00\.0: \[8086:10ca\]"),
               ("probed", r"igbvf 0000:01:00\.0: Intel\(R\) 82576 Virtual Function"),
               ("link_up", r"igbvf 0000:01:00\.0: Link is Up"),
               ("replayed", r"gsh0: replayed \d+ recorded settings"),
               ("adopted", r"gsh0: adopted \S+ \(0000:01|failover primary slave:\S+ registered"),
               ("live", r"gsh0: \S+ live: MAC in place"),
               ("ready", r"gsh0: \S+ ready: sending \d+ held, announcing$"))
HERE = Path(__file__).resolve().parent


def probe_timeline(l1: L1, name: str, since: float) -> dict:
    """Guest-clock seconds from the PCI core finding the plugged VF to each
    later step (PROBE_STEPS), from the L2's kernel log after guest uptime
    @since; {} if the log has no such lines."""
    try:
        log = l1.l2(name).run("dmesg", timeout=90)
    except Exception as e:  # noqa: BLE001 - a missing timeline is reported as such
        return {"error": str(e)[:200]}
    times: dict = {}
    for line in log.splitlines():
        m = re.match(r"\s*\[\s*(\d+\.\d+)\]\s*(.*)", line)
        if not m or float(m[1]) < since:
            continue
        for step, pat in PROBE_STEPS:
            if step not in times and re.search(pat, m[2]):
                times[step] = float(m[1])
    if "found" not in times:
        return {"seen": sorted(times)}
    return {k: round(v - times["found"], 2) for k, v in times.items() if k != "found"}


def split(gap_from: float, at: dict, probe: dict, seen: list) -> dict:
    """Where one gap went, seconds from its start (the peer's last reply
    before it), host clock: the host's steps (@at, hotplug_migrate()), the
    guest's first frame after the plug and its gratuitous ARP (@seen:
    frames_from.py's lines), and the guest's steps (@probe, guest clock
    from the VF found), placed on the host clock by gshadow's "ready" line,
    which comes just before the first frame (what it held, else the ARP)."""
    out = {k: round(v - gap_from, 2) for k, v in at.items()}
    firsts = [float(t) for t, kind, *_ in seen if kind == "first" and float(t) > at["plugged"]]
    garps = [float(t) for t, kind, *_ in seen if kind == "garp" and float(t) > at["plugged"]]
    if garps:
        out["garp"] = round(garps[0] - gap_from, 2)
    if firsts:
        out["first_tx"] = round(firsts[0] - gap_from, 2)
    if firsts and "ready" in probe:
        found = firsts[0] - probe["ready"]
        out.update({k: round(found + v - gap_from, 2)
                    for k, v in [("found", 0.0)] + list(probe.items())
                    if isinstance(v, float)})
    return out


def watch_frames(peer):
    """frames_from.py on the peer's side of the wire, for split()."""
    return peer.popen([sys.executable, str(HERE / "frames_from.py"), peer._taps[0], VM_MAC])


def stop_watch(proc) -> list:
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    return [line.split() for line in out.splitlines() if line.strip()]


def guest_uptime(l1: L1, name: str) -> float:
    return float(l1.l2(name).run("cut -d' ' -f1 /proc/uptime").split()[-1])


class TcpLoad:
    """A TCP stream (iperf3 at 2 Mbit/s, peer to L2) across all of a
    mode's migrations, so that every mode but compsc carries the same load
    (under NESTED_ACCEL=tcg the guest's vCPU is the bench's bottleneck);
    whether it survived is the mode's "tcp"."""

    def start_tcp(self, name: str) -> None:
        """The stream to the L2 now running as @name."""
        self.tcp = Streams(self.l1, self.peer, SimpleNamespace(name=name), ping=False,
                           rate="2M").__enter__()
        self.done, self.tcp_result = 0, {}

    def count_tcp(self, out: dict) -> None:
        """After each migration: the stream's verdict after the last."""
        self.done += 1
        if self.done == self.reps:
            self.tcp_result = self.finish_tcp()
            out["tcp"] = self.tcp_result

    def finish_tcp(self) -> dict:
        """Whether the TCP stream never failed and carries data now, after
        the last migration and its checks (waits for its backoff, up to
        tcp_resumes()'s 120 s, for an interval with data in it)."""
        at_end = tcp_resumes(self.tcp, time.time() - 5) is not None
        alive = self.tcp.close()
        return {"alive": alive, "data_at_end": at_end, "survived": alive and at_end}

    def run(self) -> dict:
        try:
            res = super().run()
        finally:
            if getattr(self, "tcp", None) is not None and not self.tcp_result:
                self.tcp.close()    # a mode that broke: its stream goes too
        res["tcp"] = self.tcp_result
        return res


class Hotplug(TcpLoad, Mode):
    """Moves by hot-unplug/plug (nested.hotplug_migrate(), through
    shadow_nested.Guest): VF0 -> VF1 -> VF0 ..., a fresh QEMU each
    hop; the TCP stream across all of them."""

    nic = "stock"
    log = "bench-shadow"
    reps = REPS
    check_config = False
    standby = False

    def start(self) -> None:
        self.guest = Guest(self.l1, self.nic, standby=self.standby)
        self.guest.boot()
        if self.check_config:
            configure(self.guest, self.l1, self.peer)
        if self.peer.ping(L2_IP, count=20, interval=0.5).received < 3:
            raise RuntimeError(f"{self.name}: L2 not reachable before migrating")
        self.start_tcp(self.guest.name)

    def restart_incoming(self, name: str, port: int, dev: str) -> None:
        """As Mode's, before the next migration: the QEMU the guest left
        starts again, with no NIC (Guest.hop() would start it right after
        the plug, in the gap, where its start-up under TCG competes with
        the guest coming back)."""
        self.guest._start(port, "none", incoming=True)
        self.l1.wait_incoming(port)

    def migrate(self, src: int, dst: int) -> dict:
        """hotplug_migrate() to the other VF; the guest is there now."""
        new = vf_nic(self.l1.vf1, 1) if dst == DST_PORT else vf_nic(self.l1.vf0, 0)
        t = hotplug_migrate(self.l1, VM_MAC, self.guest.nic, new, src=src, dst=dst,
                            standby=self.standby)
        self.plugged, self.at = time.time(), t["at"]
        self.guest.here, self.guest.nic = dst, new
        self.steps = {k: round(t[k], 2) for k in ("unplug_s", "mac_s", "migrate_s", "plug_s")}
        return t["migration"]

    def once(self, src: int, dst: int) -> dict:
        since = guest_uptime(self.l1, self.guest.name)
        watch = watch_frames(self.peer)
        try:
            out = super().once(src, dst)
        finally:
            seen = stop_watch(watch)
        plugged = self.plugged
        out["steps_s"] = self.steps
        out["guest_probe_s"] = probe_timeline(self.l1, self.guest.name, since)
        if out.get("timeline_s"):       # the first reply against the plug, host clock
            first = out["gap_from_t"] + out["timeline_s"]["gap_end"]
            out["steps_s"]["plug_to_first_reply"] = round(first - plugged, 2)
            out["split_s"] = {**split(out["gap_from_t"], self.at, out["guest_probe_s"], seen),
                              "first_reply": out["timeline_s"]["gap_end"]}
        if self.check_config:
            out["config"] = self.check()
        self.count_tcp(out)
        return out

    def check(self) -> dict:
        """The recorded configuration in effect on the new NIC, by peer
        traffic (shadow_nested.check); a failed check is the result."""
        try:
            got = check_config(self.guest, self.l1, self.peer,
                               f"after migration {self.done + 1}", promisc_traffic=False)
            return {"kept": True, **got}
        except AssertionError as e:
            print(f"bench-shadow: {self.name}: configuration not kept: {e}"[:2000],
                  file=sys.stderr, flush=True)
            return {"kept": False, "error": str(e)[:1000]}

    def run(self) -> dict:
        res = super().run()
        if self.check_config:
            res["config_kept"] = bool(res["runs"]) and len(res["runs"]) == self.reps and all(
                r.get("config", {}).get("kept") for r in res["runs"])
        return res


class Shadow(Hotplug):
    name = "shadow"
    nic = "shadow"
    check_config = True
    standby = True

    def run(self) -> dict:
        """As Hotplug's, the VFs' trust back off after (Guest.boot())."""
        try:
            return super().run()
        finally:
            if hasattr(self, "guest"):      # else boot() never set trust
                self.guest.untrust()


class ShadowHold(Shadow):
    name = "shadow-hold"
    standby = False


class Unplug(Hotplug):
    name = "unplug"


PAUSE = [{"capability": "pause-before-switchover", "state": True}]


class Failover(TcpLoad, Mode):
    """net_failover: QEMU unplugs the primary VF itself (wait-unplug) and
    plugs the destination's at the switch-over. The one-PF bench's part:
    the VF left gets another MAC once unplugged (or the PF would switch
    the guest's frames to it instead of the standby's tap), and the VF
    arrived at gets the VM's at the switch-over (pause-before-switchover,
    vCPUs stopped: the guest loses nothing for it)."""

    name = "failover"
    log = "bench-shadow"
    reps = REPS

    def side(self, port: int) -> tuple:
        return (0, self.l1.vf0) if port == SRC_PORT else (1, self.l1.vf1)

    def l2_failover(self, port: int, incoming: bool) -> None:
        name, (_, vf) = NAMES[port], self.side(port)
        self.l1.l2_stop(name)
        tap = f"tap-fo-{name}"
        self.l1.sh(f"[ -d /sys/class/net/{tap} ] || l1_tap {tap} {MTU}")
        args = (f"-device pcie-root-port,id=rp2,slot=2,chassis=2 "
                f"-netdev tap,id=sb0,ifname={tap},script=no,downscript=no "
                f"-device virtio-net-pci,netdev=sb0,id=net1,mac={VM_MAC},bus=rp2,"
                f"failover=on,romfile= "
                f"-device vfio-pci,host={vf},id=hostdev0,bus=rp1,enable-migration=off,"
                f"x-no-mmap=off,failover_pair_id=net1 {ACPI_HP}")
        inc = f" -incoming tcp:127.0.0.1:{MIG_PORT}" if incoming else ""
        self.l1.l2_start(name, "none", port, f"{args}{inc}", env="L2APPEND='l2nic=failover'")

    def start(self) -> None:
        self.l1.sh(f"l1_vf_mac 0 {VM_MAC}; l1_vf_mac 1 {away_mac(1)}")
        self.l2_failover(SRC_PORT, incoming=False)
        self.l2_failover(DST_PORT, incoming=True)
        self.l1.src.wait_up()
        # net_failover has both: the standby and the VF QEMU plugged once
        # the guest took the standby feature
        self.l1.src.wait_stat("lowers", timeout=300,
                              pred=lambda s: len(s["lowers"].strip(",").split(",")) >= 2)
        if self.peer.ping(L2_IP, count=20, interval=0.5).received < 3:
            raise RuntimeError("failover: L2 not reachable before migrating")
        self.start_tcp("src")

    def restart_incoming(self, name: str, port: int, dev: str) -> None:
        self.l2_failover(port, incoming=True)
        self.l1.wait_incoming(port)

    def migrate(self, src: int, dst: int) -> dict:
        """The migration, with the bench's MAC moves at its two points."""
        t0 = time.monotonic()
        self.l1.qmp(src, "migrate-set-capabilities", capabilities=PAUSE)
        self.l1.migrate_start(None, src, dst)
        steps, info = {}, {}
        while time.monotonic() - t0 < bench_e2e.CONVERGE_TIMEOUT:
            info = self.l1.qmp(src, "query-migrate")
            st = info.get("status")
            if st != "wait-unplug" and "unplug_s" not in steps and st != "setup":
                steps["unplug_s"] = round(time.monotonic() - t0, 2)
                self.l1.sh(f"l1_vf_mac {self.side(src)[0]} {away_mac(self.side(src)[0])}")
            if st == "pre-switchover":
                t1 = time.monotonic()
                steps["migrate_s"] = round(t1 - t0 - steps["unplug_s"], 2)
                self.l1.sh(f"l1_vf_mac {self.side(dst)[0]} {VM_MAC}")
                self.l1.qmp(src, "migrate-continue", state="pre-switchover")
                # the bench's share of QEMU's downtime (vCPUs stopped)
                steps["mac_pause_s"] = round(time.monotonic() - t1, 2)
            if st in MIGRATION_ENDS:
                break
            time.sleep(0.2)
        steps["total_s"] = round(time.monotonic() - t0, 2)
        self.steps = steps
        return info

    def once(self, src: int, dst: int) -> dict:
        since = guest_uptime(self.l1, NAMES[src])
        out = super().once(src, dst)
        out["steps_s"] = self.steps
        out["guest_probe_s"] = probe_timeline(self.l1, NAMES[dst], since)
        self.count_tcp(out)
        return out


class Compsc(CompscLog):
    """bench-e2e's compsc-log mode; the VFs get back the MACs bench-setup
    gave them (the hot-plug modes moved the VM's MAC between them)."""

    name = "compsc"
    log = "bench-shadow"
    reps = REPS

    def start(self) -> None:
        self.l1.sh(f"l1_vf_mac 0 {vf_mac(0)}; l1_vf_mac 1 {vf_mac(1)}")
        super().start()


# compsc last: the hot-plug modes need L1's PF at MTU 9000 in br0 before any
# L2 (an MTU change resets the PF and its VFs), which CompSC does not mind.
MODES = (Shadow, ShadowHold, Unplug, Failover, Compsc)


def main(names: list) -> int:
    """All modes, or only those named on the command line, in that order
    (to debug one, or to see whether a mode's place in the run matters)."""
    by_name = {m.name: m for m in MODES}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"bench-shadow: no mode {unknown}; modes: {list(by_name)}")
    modes = [by_name[n] for n in names] if names else list(MODES)
    results = {m.name: {"mode": m.name, "status": "not run", "peer_gap_s": None}
               for m in MODES}
    t0 = time.time()
    with Peer() as peer:
        l1 = L1(peer, smp=bench_e2e.L1_SMP, uplink=L1_UPLINK)
        try:
            l1.setup()
            for dev in (*peer._taps, peer.bridge):
                peer.run(["ip", "link", "set", "dev", dev, "mtu", str(MTU)])
            bridge(l1)
            for mode in modes:
                print(f"bench-shadow: mode {mode.name} ({mode.reps} migrations)", flush=True)
                results[mode.name] = bench_e2e.run_mode(mode(l1, peer))
            l1.check_kernel_log()
        finally:
            l1.close(check=False)
    out = save(results, time.time() - t0)
    return report(results, out)


def save(results: dict, took: float) -> Path:
    """report.json in build/bench-shadow/<time>/, linked as latest."""
    top = Path(os.environ.get("COMPSC_BUILD", "build")) / "bench-shadow"
    out = top / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(
        {"results": results, "l1_smp": bench_e2e.L1_SMP, "reps": REPS,
         "l1_accel": "tcg", "l2_accel": bench_e2e.L2_ACCEL,
         "ping_every_s": bench_e2e.PING_INTERVAL, "run_s": round(took),
         "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
         "summary": summary(results)}, indent=1) + "\n")
    bench_e2e.link_latest(top, out)
    print(f"bench-shadow: report in {out}", flush=True)
    return out


def summary(results: dict) -> dict:
    sh = results["shadow"]
    return {"shadow_vs_unplug": vs(sh, results["unplug"]),
            "shadow_vs_failover": vs(sh, results["failover"]),
            "config_kept": "yes" if sh.get("config_kept") else "no",
            "tcp_alive": "yes" if sh.get("tcp", {}).get("survived") else "no"}


def report(results: dict, out: Path) -> int:
    for name, r in results.items():
        if r.get("peer_gap_s") is None:
            print(f"bench-shadow: mode {name} has no median: {r.get('status')}"
                  f"{' (' + r['reason'] + ')' if r.get('reason') else ''}; see {out}",
                  file=sys.stderr, flush=True)
    print(f"bench-shadow: L1 on tcg, L2s on {bench_e2e.L2_ACCEL}", flush=True)
    print("bench-shadow: peer-seen gap, median (s): " + " ".join(
        f"{k}={'-' if v.get('peer_gap_s') is None else round(v['peer_gap_s'], 2)}"
        for k, v in results.items()))
    print("bench-shadow: gaps (s): " + "; ".join(
        f"{k} {v.get('gaps_s', [])}" for k, v in results.items()))
    hold = results["shadow-hold"]
    print(f"bench-shadow: without the standby: shadow_hold_vs_unplug="
          f"{vs(hold, results['unplug'])} shadow_hold_vs_failover="
          f"{vs(hold, results['failover'])}")
    s = summary(results)
    print(f"bench-shadow: shadow_vs_unplug={s['shadow_vs_unplug']} "
          f"shadow_vs_failover={s['shadow_vs_failover']} "
          f"config_kept={s['config_kept']} tcp_alive={s['tcp_alive']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
