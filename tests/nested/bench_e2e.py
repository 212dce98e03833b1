"""make bench-e2e: the downtime a peer sees when Debian's unmodified QEMU,
inside the L1 host, live-migrates one L2 guest three ways, in one run:

  compsc-log   CompSC igbvf on VF0 -> VF1 through compsc_vfio, QEMU using the
               driver's DMA logging (default migration parameters), the
               VF's BAR mapped into the L2 as QEMU does by default
  unplug       the usual way today: device_del of VF0, migrate, device_add
               of VF1 at the destination (the guest re-plugs its NIC)
  virtio       a virtio-net L2 (tap on a bridge with the PF) migrated by the
               same QEMU, the paravirtual reference

and, for `make bench-dpdk-nested`, DPDK's testpmd in the L2:
  compsc-dpdk  on the CompSC igb VF PMD, migrated as compsc-log
  dpdk-bonding DPDK's documented method (as `make bench-dpdk` runs it):
               testpmd on an active-backup bond over the VF and a
               virtio-net NIC; the VF leaves the bond and is detached,
               device_del, RAM-only migration, device_add of the other VF
               at the destination, which goes back in the bond as primary
  dpdk-virtio  on DPDK's virtio PMD over the virtio NIC, migrated as virtio

Downtime = the longest gap between ping replies at the peer (outside L1)
around a migration, the median of REPS migrations back and forth per mode
(unplug: one). QEMU's own "downtime" figure is printed next to it.
L1 runs under TCG; its L2s on KVM inside it (or TCG inside TCG with
NESTED_ACCEL=tcg): the report and the plot say which. Compare within one
run only. L1's NIC is QEMU's 82576 (igb, igbvf in the L2s), or with
BENCH_E2E_NIC=82599 (make bench-e2e NIC=82599) the project's 82599 model
(ixgbe, ixgbevf), the same modes on it.

Last line, exactly:
  bench-e2e: compsc_vs_pv=R1 compsc_vs_unplug=R2 converged=yes|no compsc_vs_qemu=R3
R1, R2 are ratios of peer-seen downtime with CompSC using DMA logging;
R3 is that downtime over QEMU's own reported downtime for the same
migrations (medians of both): what the device adds to QEMU's switch-over;
converged=yes when that migration completed with QEMU's default
parameters (so the DMA log let it converge).

With compsc-dpdk, a line before it:
  bench-e2e-dpdk: dpdk_vs_pv=R dpdk_vs_igbvf=R dpdk_vs_qemu=R dpdk_vs_dpdk_pv=R vf_absent_vs_bonding=R compsc_vs_bonding=R
vf_absent_vs_bonding: the time the application runs without its VF,
compsc-dpdk (the host's take to its hand-back, L1's kernel log) over
dpdk-bonding (device_del to the re-added VF the bond's primary);
compsc_vs_bonding: their peer-seen gaps; medians over the migrations. There is no all-dirty mode:
without the DMA log compsc_vfio refuses the migration
(test_migrate_no_dma_log.py).
"""
import functools
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from compsc_harness.dpdk import LOG as TESTPMD_LOG, BondMethod, TestPmd
from compsc_harness.vm import VM, Peer
from compsc_harness.mig import max_wait
from compsc_harness.stats import fmt, ratio, vs
from e2e_plot import gap_parts, plot_gaps
from pcsample import DstSampler, Symbols, UserSymbols, window
from nested import (DST_PORT, L1, L2_ACCEL, L2_IP, L2_VMLINUZ, MIG_PORT,
                    MIGRATION_ENDS, SRC_PORT, away_mac, hotplug_migrate,
                    migration_summary, vf_nic)
from shadow_nested import ACPI_HP, VM_MAC

PING_INTERVAL = 0.05
# migrations per mode, back and forth; median reported (BENCH_E2E_N overrides)
REPS = int(os.environ.get("BENCH_E2E_N", "5"))
CONVERGE_TIMEOUT = 240   # s of pre-copy before "does not converge"
RESUME_TIMEOUT = 90      # s after the switch-over for the peer to hear back
STALLED_S = 5            # s without a reply after it: record the path (outlier)
# The L1 host's vCPUs: its QEMUs and the L2's vCPU share them. 2 uses both
# of this machine's cores (1 left the L2 starved for 1-2 s after each
# switch-over); COMPSC_L1_SMP overrides.
L1_SMP = int(os.environ.get("COMPSC_L1_SMP", "2"))
# L1's NIC (make bench-e2e NIC=82599): the 82599 model, its VFs driven by
# the CompSC ixgbevf in the L2s, for every mode
NIC = os.environ.get("BENCH_E2E_NIC", "igb")
# BENCH_E2E_L1CPU=1: sample L1's CPU per QEMU thread around each migration
# (l1lib.sh l1_cpu_sample) and report who ran while the guest was away.
L1_CPU = os.environ.get("BENCH_E2E_L1CPU") == "1"
L1_CPU_LOG, L1_CPU_STOP = "/tmp/cpu.log", "/tmp/cpu.stop"
# BENCH_E2E_PCSAMPLE=1: sample the destination L2's RIP and TCG's block
# count (pcsample.py) and report what its vCPU ran from its start to the
# peer's first reply. The sampling costs the destination QEMU's main loop
# some time: compare within such a run only.
PC_SAMPLE = os.environ.get("BENCH_E2E_PCSAMPLE") == "1"
# the L2 kernel's tree: bzImage is arch/x86/boot/bzImage in it
L2_SYSMAP = Path(L2_VMLINUZ).parents[3] / "System.map" if L2_VMLINUZ else None
TICK_MS = 10    # USER_HZ


@functools.lru_cache(maxsize=None)
def l2_symbols() -> Symbols:
    """The L2 kernel's System.map, read once per run, not per migration."""
    return Symbols(L2_SYSMAP)


class Mode:
    """One way of migrating; run() returns its result dict."""

    name = ""
    log = "bench-e2e"       # the prefix of this mode's lines (bench_shadow.py's own)
    src_dev = "vf0"
    dst_dev = "vf1"
    vfioopts = ""
    env = ""                 # more of l1lib.sh l2_start's variables
    qemu_extra = ""          # more L2 QEMU arguments
    params: dict = {}
    reps = REPS
    guest_timeline = False   # the guest driver reports its restore (CompSC)
    bar_mmap = False         # the VF's BAR mapped into the L2 (else trapped)

    def __init__(self, l1: L1, peer: Peer):
        self.l1, self.peer = l1, peer
        self.stalled = None     # the path while this migration's gap was open

    def dev(self, which: str) -> str:
        return {"vf0": self.l1.vf0, "vf1": self.l1.vf1}.get(which, which)

    def l2_start(self, name: str, port: int, dev: str, incoming: bool) -> None:
        """One L2 of this mode (its vfio-pci options, on @dev)."""
        env = self.env + (f"VFIOOPTS={self.vfioopts} " if self.vfioopts else "")
        env += "L2NOMMAP=off " if self.bar_mmap else ""
        inc = self.qemu_extra + (f" -incoming tcp:127.0.0.1:{MIG_PORT}" if incoming else "")
        inc += f" -name {name},debug-threads=on" if L1_CPU else ""
        # through L1.l2_start: it keeps the arguments for the one more boot
        # an early-boot panic gets
        self.l1.l2_start(name, self.dev(dev), port, inc, env=env)

    def start(self) -> None:
        self.l2_start("src", SRC_PORT, self.src_dev, incoming=False)
        self.l2_start("dst", DST_PORT, self.dst_dev, incoming=True)
        boot = self.l1.src.wait_up()
        # Each mode's L2 answers on L2_IP with a MAC of its own (a VF's, or
        # virtio-net's): the peer's ARP entry from the mode before would
        # send this one's pings to the old MAC until it expires (~30 s).
        self.peer.run(["ip", "neigh", "flush", "to", L2_IP], check=False)
        if self.peer.ping(L2_IP, count=20, interval=0.5).received < 3:
            raise RuntimeError(f"{self.name}: L2 not reachable before migrating; "
                               f"the path: {json.dumps(self.path_state())}")
        print(f"{self.log}: {self.name}: L2 up after {boot:.0f} s", flush=True)

    on_started = None       # called once the migration is under way

    def migrate(self, src: int, dst: int) -> dict:
        self.l1.migrate_start(self.params, src, dst)
        if self.on_started:
            self.on_started()
        return self.l1.migrate_wait(CONVERGE_TIMEOUT, 0.5, src)

    def after(self, dst: int) -> None:
        """What the operator does once QEMU reports completion (@dst: the
        destination's QMP port)."""

    def guest_events(self, name: str, restores: int) -> dict:
        """The guest driver's side of the restore (ethtool -S through the
        L2's status line, guest clock, ms): how long the restore took, then
        until the driver restarted transmit and NAPI, and until a packet
        was first sent. Empty when the line never came (slow under TCG)."""
        keys = ("compsc_restore_us", "compsc_resume_us", "compsc_first_rx_us",
                "compsc_first_xmit_us")
        try:
            stats = self.l1.l2(name).wait_stat(keys[-1], timeout=60, pred=lambda s:
                                               int(s.get("compsc_restores", -1)) > restores)
        except Exception:  # noqa: BLE001 - a missing line is reported as such
            return {}
        s = [s for s in stats if int(s.get("compsc_restores", -1)) > restores][-1]
        return {k.replace("compsc_", "guest_").replace("_us", "_ms"): int(s[k]) / 1000
                for k in keys if k in s}

    def restores(self, name: str) -> int:
        vals = [int(s["compsc_restores"]) for s in self.l1.l2(name).stats()
                if "compsc_restores" in s]
        return max(vals, default=0)

    def run(self) -> dict:
        """@reps migrations back and forth between the two sides; the mode's
        downtime is their median (one migration is too noisy under TCG)."""
        self.start()
        sides = [("src", SRC_PORT, self.src_dev), ("dst", DST_PORT, self.dst_dev)]
        runs = []
        for n in range(self.reps):
            here, there = sides[n % 2], sides[(n + 1) % 2]
            if n:   # the side the guest left earlier waits for it again
                self.restart_incoming(*there)
            runs.append(self.once(here[1], there[1]))
            print(f"{self.log}: {json.dumps(runs[-1])}", flush=True)
            if runs[-1]["peer_gap_s"] is None:
                break
        self.l1.l2_stop("src", "dst")
        gaps = [r["peer_gap_s"] for r in runs if r["peer_gap_s"] is not None]
        done = len(gaps) == self.reps
        waits = [r["peer_wait_s"] for r in runs if r.get("peer_wait_s") is not None]
        absent = [r["vf_absent_s"] for r in runs if r.get("vf_absent_s") is not None]
        return {"mode": self.name, "status": "completed" if done else runs[-1]["status"],
                "peer_gap_s": statistics.median(gaps) if done else None,
                "gaps_s": [round(g, 2) for g in gaps],
                "peer_wait_s": statistics.median(waits) if done else None,
                "waits_s": [round(w, 2) for w in waits],
                "qemu_downtime_ms": [r["qemu_downtime_ms"] for r in runs],
                # the guest without its VF (CompSC: take to hand-back; the
                # bonding method: device_del to the VF primary again)
                "vf_absent_s": statistics.median(absent) if done and len(absent) == len(runs) else None,
                "vf_absents_s": absent,
                "vf_primary_again": [r["vf_primary_again"] for r in runs
                                     if "vf_primary_again" in r],
                "runs": runs}

    def restart_incoming(self, name: str, port: int, dev: str) -> None:
        """The side the guest just left waits for it to come back."""
        self.l1.l2_stop(name)
        self.l2_start(name, port, dev, incoming=True)
        self.l1.wait_incoming(port)

    def once(self, src: int, dst: int) -> dict:
        """One migration @src -> @dst (QMP ports) under the ping stream."""
        mark = self.l1.dmesg_mark()
        names = {SRC_PORT: "src", DST_PORT: "dst"}
        restores = self.restores(names[src]) if self.guest_timeline else 0
        sampler = self.l1.start(f". /usr/sbin/l1lib.sh; l1_cpu_sample {L1_CPU_LOG} "
                                f"{L1_CPU_STOP}", timeout=600) if L1_CPU else None
        # QEMU's QMP server takes one client at a time: the sampler connects
        # to the destination once the migration has set it up
        pcs = DstSampler(self.l1, dst) if PC_SAMPLE else None
        self.on_started = pcs.start if pcs else None
        try:
            return self._once(src, dst, mark, names, restores, sampler, pcs)
        finally:
            if pcs and pcs.is_alive():
                pcs.stop()

    def _once(self, src, dst, mark, names, restores, sampler, pcs) -> dict:
        self.stalled = None
        with self.peer.ping_stream(L2_IP, interval=PING_INTERVAL) as ps:
            time.sleep(3)
            t0 = time.time()
            res = self.migrate(src, dst)
            if res["status"] == "completed":
                self.after(dst)
            t1 = time.time()
            if res["status"] != "completed":
                if res["status"] not in MIGRATION_ENDS:
                    self.l1.qmp(src, "migrate_cancel")
                print(f"{self.log}: {self.name}: not completed: {migration_summary(res)}\n" +
                      self.l1.sh("tail -n 5 /run/src.qemu /run/dst.qemu; dmesg | tail -n 8",
                                 check=False).out, flush=True)
            resumed = self.wait_replies(ps, t1) if res["status"] == "completed" else False
            time.sleep(2)
        gap = ps.trace.max_gap(t0, time.time()) if resumed else None
        # requests of the last second may still be on their way back
        wait = max_wait(ps.trace, t0, time.time() - 1.0) if resumed else None
        out = {"mode": self.name, "status": res["status"], "peer_gap_s": gap,
               "peer_wait_s": wait,
               "qemu_downtime_ms": res.get("downtime"),
               "qemu_total_ms": res.get("total-time"),
               "migrate_s": round(t1 - t0, 2)}
        if self.stalled:
            out["stalled_path"] = self.stalled
        if gap is not None:
            # where the gap sits against the driver's take and hand-over
            a, b = ps.trace.widest(t0)
            ev = self.l1.vfio_events(mark)
            out["gap_from_t"] = round(a, 3)     # host clock
            out["timeline_s"] = {k: round(v - a, 2) for k, v in
                                 [("gap_end", b)] + sorted(ev.items(), key=lambda x: x[1])}
            if "taken" in ev and "handed" in ev:   # the guest without its VF
                out["vf_absent_s"] = round(ev["handed"] - ev.get("taken_again", ev["taken"]), 2)
            if self.guest_timeline:
                out["guest_ms"] = self.guest_events(names[dst], restores)
        if pcs and pcs.ident:
            pcs.stop()
            out["pc"] = self.pc_report(pcs, gap and b, ev if gap else {})
        if sampler:
            self.l1.run(f"touch {L1_CPU_STOP}")
            sampler.wait()
            if gap is not None:
                out["l1_cpu"] = self.l1_cpu(a, b, ev)
        return out

    def pc_report(self, pcs: DstSampler, b, ev: dict) -> dict:
        """The destination vCPU from its start (QEMU's RESUME) to the first
        reply @b, split at the device's hand-back when there is one."""
        if pcs.error or pcs.resumed is None or not b:
            return {"error": pcs.error or "no RESUME event or no reply"}
        syms, user = l2_symbols(), self.user_symbols()
        out = {"resumed_to_first_reply": window(pcs, syms, pcs.resumed, b, user=user)}
        handed = ev.get("handed")
        if handed and pcs.resumed < handed < b:
            out["handed_to_first_reply"] = window(pcs, syms, handed, b, user=user)
        # second by second: what ran first and what ran last before the reply
        starts = (pcs.resumed + k for k in range(int(b - pcs.resumed) + 1))
        out["per_s"] = [window(pcs, syms, t, min(t + 1, b), top=4, user=user) for t in starts]
        return out

    def user_symbols(self):
        """The guest's user process named by l2-init's l2map lines (testpmd
        in compsc-dpdk), or None."""
        return None

    def reset_vfs(self) -> None:
        """An FLR of each VF (after which the PF resets its side of it):
        see CompscLog.run."""
        self.l1.sh(f"for d in {self.l1.vf0} {self.l1.vf1}; do "
                   "echo 1 > /sys/bus/pci/devices/$d/reset; done", check=False)

    def l1_cpu(self, a: float, b: float, ev: dict) -> dict:
        """L1's CPU, per QEMU thread, in the parts of the gap (a, b): before
        the take, while the device was held, from the hand-over to the first
        reply. Thread CPU in ms (10 ms ticks), L1 busy in % of its CPUs."""
        offset = self.l1.clock_offset()
        samples: dict = {}      # host time -> {(who, comm): ticks}
        for line in self.l1.run(f"cat {L1_CPU_LOG}").out.splitlines():
            f = line.split()
            if len(f) != 6:
                continue
            key = ("l1", "idle") if f[1] == "l1" else (f[1], f[3])
            row = samples.setdefault(offset + float(f[0]), {})
            if f[1] == "l1":
                row[("l1", "busy")] = int(f[4])
                row[key] = int(f[5])
            else:
                row[key] = row.get(key, 0) + int(f[4]) + int(f[5])
        edges = [("before_take", a, ev.get("taken", a)),
                 ("held", ev.get("taken", a), ev.get("handed", a)),
                 ("to_first_reply", ev.get("handed", a), b)]
        return {name: self.cpu_window(samples, t0, t1) for name, t0, t1 in edges if t1 > t0}

    @staticmethod
    def cpu_window(samples: dict, t0: float, t1: float) -> dict:
        ts = sorted(samples)
        s0 = max((t for t in ts if t <= t0), default=ts[0] if ts else None)
        s1 = min((t for t in ts if t >= t1), default=ts[-1] if ts else None)
        if s0 is None or s1 <= s0:
            return {}
        r0, r1 = samples[s0], samples[s1]
        d = {k: (r1[k] - r0.get(k, 0)) * TICK_MS for k in r1}
        busy, idle = d.pop(("l1", "busy"), 0), d.pop(("l1", "idle"), 0)
        return {"span_ms": round((s1 - s0) * 1000),
                "l1_busy_pct": round(100 * busy / (busy + idle)) if busy + idle else None,
                "threads_ms": {f"{w}/{c}": v for (w, c), v in
                               sorted(d.items(), key=lambda x: -x[1]) if v >= TICK_MS}}

    def wait_replies(self, ps, since: float) -> bool:
        """True once the peer hears the guest again after @since. A gap
        still open after STALLED_S is an outlier: the path to the guest is
        recorded while it is broken (self.stalled), not after it healed."""
        t = time.time()
        while time.time() - t < RESUME_TIMEOUT:
            r = self.peer.ping(L2_IP, count=1, interval=0.2, deadline=2)
            if r.received:
                return True
            if self.stalled is None and time.time() - since > STALLED_S:
                self.stalled = self.path_state()
                print(f"{self.log}: {self.name}: no reply {STALLED_S} s after the "
                      f"switch-over; the path: {json.dumps(self.stalled)}", flush=True)
        return False

    def path_state(self) -> dict:
        """Where the peer's frames for the L2 go: the peer's ARP entry for
        it, which L1 bridge port (if any) has learnt the L2's MAC (br0's
        forwarding table, 16-byte records: MAC, then the port number; L1
        has no `bridge` tool), the PF's VF MACs (the pool the 82576
        switches them to) and each tap's counters (rx: what its QEMU sent,
        tx: what the bridge gave it)."""
        neigh = self.peer.run(["ip", "neigh", "show", "to", L2_IP], check=False).out.strip()
        mac = neigh.split(" lladdr ")[1].split()[0] if " lladdr " in neigh else "none"
        l1 = self.l1.sh(
            f"ip link show $(l1_pf) | grep ' vf '; "
            "for p in /sys/class/net/*/brport; do d=${p%/brport}; "
            "echo \"port ${d##*/} $(cat $p/port_no)\"; done; "
            "[ -d /sys/class/net/br0 ] && od -An -tx1 -v -w16 /sys/class/net/br0/brforward "
            f"| grep -i '{mac.replace(':', ' ')}' | sed 's/^/fdb /'; "
            "for t in tap-src tap-dst; do [ -d /sys/class/net/$t ] && "
            "echo $t $(cat /sys/class/net/$t/statistics/rx_packets "
            "/sys/class/net/$t/statistics/tx_packets /sys/class/net/$t/operstate); done",
            check=False).out.strip()
        return {"peer_neigh": neigh, "l1": l1.splitlines()}


class CompscLog(Mode):
    name = "compsc-log"
    guest_timeline = True
    bar_mmap = True     # as QEMU does by default

    def run(self) -> dict:
        """After this mode the next one's virtio-net L2, behind the PF in
        br0, answered broadcast ARP but no unicast frame (3 runs of
        `BENCH_E2E_MODES="compsc-log virtio"`, also with the VFs' MACs set
        back and with br0's learning fixed; br0 had the L2's MAC on the
        right tap): frames for a MAC no pool has never reached the PF, so
        some receive state of the VFs' pools outlived their L2s (L1 cannot
        read the pool registers: /dev/mem refuses them). A reset of each
        VF (FLR, after which the PF resets its side of the VF) ends it."""
        try:
            return super().run()
        finally:
            self.reset_vfs()

    def after(self, dst: int) -> None:
        """The VF the guest left gets a MAC of its own, as libvirt gives a
        hostdev's back once it releases it: both VFs sit on one PF, and the
        82599 model's switch sends the guest's frames to the first VF that
        has its MAC (QEMU's 82576 model did not need this)."""
        self.l1.vf_own_mac(0 if dst == DST_PORT else 1)


class DpdkL2:
    """A mode whose L2 runs DPDK's testpmd in icmpecho mode on its NIC
    (l2-init's l2nic=dpdk: vfio-pci in no-IOMMU mode, 512 MiB with 2 MiB
    hugepages), whichever NIC the mode gives it."""
    guest_timeline = False   # the PMD's restore line has no first-xmit time
    env = "L2MEM=512 L2APPEND=l2nic=dpdk "
    qemu_extra = f" -cpu {VM.CPU}"   # DPDK's baseline: SSE4.2

    def user_symbols(self):
        """testpmd's code as l2-init listed it (the same in every L2 of the
        run: ASLR is off there), named from the build's testpmd."""
        if getattr(self, "_user", None) is None or not self._user.maps:
            # kept: an incoming L2's console never has the lines (no boot)
            testpmd = Path(os.environ.get("COMPSC_BUILD", "build")) / "dpdk/build/app/dpdk-testpmd"
            self._user = UserSymbols(self.l1.src.log() + self.l1.dst.log(),
                                     {"/usr/bin/dpdk-testpmd": str(testpmd)})
        return self._user


class CompscDpdk(DpdkL2, CompscLog):
    """The same migration with DPDK's testpmd on the CompSC igb VF PMD
    driving the VF in the L2, not the kernel's igbvf: what `make
    bench-dpdk-nested` compares with DPDK on virtio-net (dpdk-virtio)."""
    name = "compsc-dpdk"


class Unplug(Mode):
    name = "unplug"
    dst_dev = "none"
    # a median of 3, not one: ~4 s each with the L2s on KVM (~30 s under
    # TCG inside TCG), an order of magnitude above the other modes
    reps = 3

    def start(self) -> None:
        self.plugged_vf = self.l1.vf0       # the VF the guest has now
        self.dev_id = "hostdev0"
        super().start()

    def restart_incoming(self, name: str, port: int, dev: str) -> None:
        """An incoming side never has a VF: the guest gets one after."""
        super().restart_incoming(name, port, "none")

    def migrate(self, src: int, dst: int) -> dict:
        self.l1.qmp(src, "device_del", id=self.dev_id)
        # the guest gives the NIC back (PCIe attention button, ~5 s in Linux)
        t = time.time()
        while self.plugged(src, self.dev_id):
            if time.time() - t > 60:
                raise RuntimeError("the L2 never gave its VF back for device_del")
            time.sleep(0.5)
        return super().migrate(src, dst)

    def plugged(self, port: int, dev: str) -> bool:
        """Whether the L2 QEMU on @port still has the device with id @dev."""
        return any(c["name"] == dev for c in
                   self.l1.qmp(port, "qom-list", path="/machine/peripheral"))

    def after(self, dst: int) -> None:
        """The other VF, plugged in at the destination."""
        vf1 = self.plugged_vf == self.l1.vf0
        self.plugged_vf = self.l1.vf1 if vf1 else self.l1.vf0
        self.dev_id = "hostdev1" if vf1 else "hostdev0"
        self.l1.qmp(dst, "device_add", driver="vfio-pci", host=self.plugged_vf,
                    id=self.dev_id, bus="rp1")


class Virtio(Mode):
    name = "virtio"
    src_dev = dst_dev = "virtio"


class DpdkVirtio(DpdkL2, Virtio):
    """The same testpmd on virtio-net (DPDK's virtio PMD) migrated by the
    same QEMU: the path DPDK's bonding method carries its traffic on while
    the VF is unplugged, with the same application code to translate
    again in the destination's fresh QEMU as compsc-dpdk."""
    name = "dpdk-virtio"


class DpdkBonding(DpdkL2, Mode):
    """DPDK's own method (compsc_harness.dpdk.BondMethod, as make
    bench-dpdk runs it): testpmd on an active-backup bond over the VF
    (01:00.0, plain passthrough) and a virtio-net NIC with the VM's MAC
    (02:00.0, on a tap in br0, as dpdk-virtio's). Per migration: the bond
    switches to virtio-net (a guest command), the VF left gives up the
    VM's MAC (the PF then gives its frames to br0), the bond lets go of
    the VF and detaches it (a guest command), then
    nested.hotplug_migrate(standby=True): the VF arrived at is trusted,
    device_del of the VF (ACPI hotplug, as bench-shadow's),
    QEMU migrates RAM only, device_add of the other VF on the
    destination; then the VF is attached, re-added and made primary,
    which gives it the VM's MAC (one guest command).

    vf_absent_s: from the device_del to the VF the bond's primary again
    (the guest's clock for the replug's own steps, from when the harness
    sent it: the command's way in is left out); vf_out_s: the same from
    the bond's switch to virtio-net, when the application's traffic left
    the VF. A VF that does not become an active member within the
    replug's wait (vf_primary_again false) leaves virtio-net primary;
    both times then end at its re-add to the bond: lower bounds."""

    name = "dpdk-bonding"
    dst_dev = "none"
    env = DpdkL2.env.replace("l2nic=dpdk", "l2nic=dpdkbond") + "L2MIG=off L2NOMMAP=off "
    BDF = "0000:01:00.0"        # the VF behind rp1, either VF
    VIRTIO_BDF = "0000:02:00.0"

    def __init__(self, l1: L1, peer: Peer):
        super().__init__(l1, peer)
        self.method = BondMethod(self.BDF, VM_MAC)
        self.nic = vf_nic(l1.vf0, 0)

    def l2_start(self, name: str, port: int, dev: str, incoming: bool) -> None:
        """With the virtio-net NIC (its tap made once) and ACPI hotplug;
        an incoming side has no VF (it gets one after the migration)."""
        tap = f"tap-bd-{name}"
        self.l1.sh(f"l1_tap {tap}")
        self.qemu_extra = (f"{DpdkL2.qemu_extra} {ACPI_HP}"
                           " -device pcie-root-port,id=rp2,slot=2,chassis=2"
                           f" -netdev tap,id=sb0,ifname={tap},script=no,downscript=no"
                           f" -device virtio-net-pci,netdev=sb0,id=sb0nic,mac={VM_MAC},"
                           "bus=rp2,romfile=,guest_announce=off")
        super().l2_start(name, port, "none" if incoming else dev, incoming)

    def start(self) -> None:
        """VF0 has the VM's MAC and trust (the bond sets it again on each
        primary switch), VF1 a MAC of its own; testpmd on the bond."""
        self.l1.sh(f"l1_vf_mac 0 {VM_MAC}; l1_vf_mac 1 {away_mac(1)}; "
                   "l1_vf_trust 0 on; l1_vf_trust 1 off")
        self.l2_start("src", SRC_PORT, self.src_dev, incoming=False)
        self.l2_start("dst", DST_PORT, self.dst_dev, incoming=True)
        boot = self.l1.src.wait_up()
        launch = TestPmd.launch([self.BDF, self.VIRTIO_BDF], interactive=True,
                                eal=self.method.vdev(self.VIRTIO_BDF),
                                app=f"--portlist={self.method.bond}")
        self.l1.src.run(f"{launch} i=0; until grep -q 'Start automatic packet "
                        f"forwarding' {TESTPMD_LOG}; do i=$((i + 1)); [ $i -lt 600 ] || "
                        f"{{ tail -c 2000 {TESTPMD_LOG}; exit 1; }}; sleep 0.2; done",
                        timeout=180)
        self.peer.run(["ip", "neigh", "flush", "to", L2_IP], check=False)
        if self.peer.ping(L2_IP, count=20, interval=0.5).received < 3:
            raise RuntimeError(f"{self.name}: the bond not reachable before migrating; "
                               f"testpmd: {self.l1.l2('src').run(f'tail -c 2000 {TESTPMD_LOG}')}")
        print(f"{self.log}: {self.name}: L2 up after {boot:.0f} s", flush=True)

    def run(self) -> dict:
        """As Mode's; the VFs' MACs and trust as L1's set-up gave them
        after, and each VF reset (see CompscLog.run)."""
        try:
            return super().run()
        finally:
            self.l1.sh("; ".join(f"l1_vf_mac {i} {mac}; l1_vf_trust {i} off"
                                 for i, mac in enumerate(self.l1.vf_macs)), check=False)
            self.reset_vfs()

    def restart_incoming(self, name: str, port: int, dev: str) -> None:
        super().restart_incoming(name, port, "none")

    def bond_steps(self, name: str, steps: list) -> dict:
        """@steps (BondMethod's) in the L2 @name, one guest command: each
        step's guest uptime (s) by its number."""
        out = self.l1.l2(name).run(BondMethod.script(steps), timeout=120)
        return {int(m[1]): float(m[2]) for m in re.finditer(r"bond: (\d+) ([\d.]+)", out)}

    def migrate(self, src: int, dst: int) -> dict:
        names = {SRC_PORT: "src", DST_PORT: "dst"}
        new = vf_nic(self.l1.vf1, 1) if dst == DST_PORT else vf_nic(self.l1.vf0, 0)
        t_out = time.time()
        unplug = self.method.unplug()
        switch = len(self.method.primary(self.method.backup))
        self.bond_steps(names[src], unplug[:switch])
        # The VM's MAC off the VF the bond no longer polls at once, not
        # after the detach (hotplug_migrate's standby order): until then
        # the PF switches the peer's frames to that VF, where they are
        # lost, for as long as this harness takes for the guest commands
        # (seconds on this bench), which is not the method's cost.
        old = self.nic["index"]
        self.l1.sh(f"l1_vf_mac {old} {away_mac(old)}; l1_vf_trust {old} off")
        t_mac = time.time()
        self.bond_steps(names[src], unplug[switch:])
        t_detached = time.time()
        # (the old VF's MAC and trust moved above: hotplug_migrate leaves a
        # NIC of another kind as it is; it trusts the new VF)
        t = hotplug_migrate(self.l1, VM_MAC, dict(self.nic, kind="vf, moved"), new,
                            src=src, dst=dst, standby=True)
        self.nic = new
        self.at = {"vf_out": t_out, "mac_moved": t_mac, "vf_detached": t_detached,
                   "device_del": t["at"]["deleted"] - t["unplug_s"], **t["at"]}
        self.steps = {k: round(t[k], 2) for k in ("unplug_s", "mac_s", "migrate_s", "plug_s")}
        return t["migration"]

    def after(self, dst: int) -> None:
        """The destination's VF, once the guest sees it, on vfio-pci, then
        back in the bond as its primary; the bond's configuration read."""
        name = {SRC_PORT: "src", DST_PORT: "dst"}[dst]
        mark = "read -r u _ < /proc/uptime; echo \"bond: {} $u\""
        found = (f"{mark.format('sent')}; i=0; until [ -e /sys/bus/pci/devices/{self.BDF} ]; "
                 f"do i=$((i + 1)); [ $i -lt 600 ] || exit 1; sleep 0.05; done; "
                 f"{mark.format('found')}; dpdk-vf {self.BDF} 64 >/dev/null || exit 1; "
                 f"{mark.format('bound')}; ")
        t0 = time.time()
        steps = self.method.replug()
        out = self.l1.l2(name).run(found + BondMethod.script(steps + [self.method.config()])
                                   + f" && grep -F '{BondMethod.CONFIG_DONE}' {TESTPMD_LOG} | tail -1",
                                   timeout=300)
        up = {m[1]: float(m[2]) for m in re.finditer(r"bond: (\w+) ([\d.]+)", out)}
        primary = str(len(steps) - 1)
        if "sent" not in up or primary not in up:
            raise RuntimeError(f"{self.name}: replug printed no times: {out[-1500:]}")
        # the guest's steps on the host's clock, from when the harness sent
        # the command (its way into the guest, tenths of a second, left out)
        self.vf_primary = f"Primary: [{self.method.vf}]" in out.rsplit("bond: ", 1)[-1]
        # the replug's end: the VF the primary, or (not active) only asked to be
        end = "vf_primary" if self.vf_primary else "vf_replugged"
        self.at.update({k: t0 + up[g] - up["sent"] for k, g in
                        (("vf_found", "found"), ("vf_bound", "bound"),
                         ("vf_attached", "0"), ("vf_added", "1"), (end, primary)) if g in up})
        if not self.vf_primary:     # what testpmd said to the replug
            self.replug_log = self.l1.l2(name).run(f"tail -c 3000 {TESTPMD_LOG}")
        self.replug_s = {k: round(v - up["sent"], 2) for k, v in up.items()}

    def once(self, src: int, dst: int) -> dict:
        self.at, self.steps, self.vf_primary, self.replug_log = {}, {}, False, None
        self.replug_s = {}
        out = super().once(src, dst)
        out["replug_guest_s"] = self.replug_s   # the guest's clock, per step
        if self.replug_log:
            out["testpmd_log_tail"] = self.replug_log
        at = self.at
        end = at.get("vf_primary", at.get("vf_added"))
        if end:
            # without the VF primary again: the time to its re-add to the
            # bond, a lower bound of the time without it
            out["vf_absent_s"] = round(end - at["device_del"], 2)
            out["vf_out_s"] = round(end - at["vf_out"], 2)
        out["vf_primary_again"] = self.vf_primary
        out["steps_s"] = self.steps
        if out.get("gap_from_t") and at:
            # the host's steps and the guest's on the gap's time axis
            out["timeline_s"].update({k: round(v - out["gap_from_t"], 2)
                                      for k, v in at.items()})
        return out


def run_mode(mode: Mode) -> dict:
    """One mode; a mode that breaks is reported as such, the others go on."""
    try:
        return mode.run()
    except Exception as e:  # noqa: BLE001 - reported, and the run goes on
        print(f"{mode.log}: {mode.name}: broke: {e}"[:3000], flush=True)
        mode.l1.l2_stop("src", "dst")
        return {"mode": mode.name, "status": "broke", "peer_gap_s": None}


# virtio last: it bridges the PF (dpdk-bonding's standby too)
MODES = (CompscLog, CompscDpdk, Unplug, DpdkBonding, Virtio, DpdkVirtio)
# what runs when none is named: `make bench-dpdk-nested` names compsc-dpdk
DEFAULT_MODES = ("compsc-log", "unplug", "virtio")


def main(names: list) -> int:
    """All modes, or only those named on the command line (to debug one)."""
    modes = [m for m in MODES if m.name in (names or DEFAULT_MODES)]
    results = {m.name: {"mode": m.name, "status": "not run", "peer_gap_s": None}
               for m in MODES}
    with Peer() as peer:
        l1 = L1(peer, smp=L1_SMP, nic=NIC)
        try:
            l1.setup()
            for mode in modes:
                results[mode.name] = run_mode(mode(l1, peer))
            l1.check_kernel_log()
        finally:
            l1.close(check=False)
    save(results)
    return report(results)


def save(results: dict) -> Path:
    """report.json (every migration's numbers) and gaps.png (what each gap
    is made of) in build/bench-e2e/<time>/, linked as build/bench-e2e/latest."""
    top = Path(os.environ.get("COMPSC_BUILD", "build")) / "bench-e2e"
    out = top / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(
        {"results": results, "l1_smp": L1_SMP, "l1_accel": "tcg", "l2_accel": L2_ACCEL,
         "nic": NIC,
         "parts_s": {m: [gap_parts(run) for run in r.get("runs", [])]
                     for m, r in results.items()}}, indent=1) + "\n")
    try:
        plot_gaps(results, out / "gaps.png")
    except ImportError as e:
        print(f"bench-e2e: no plot ({e}); install python3-matplotlib", flush=True)
    link_latest(top, out)
    print(f"bench-e2e: report and plot in {out}", flush=True)
    return out


def link_latest(top: Path, out: Path) -> None:
    """@top/latest points at the run folder @out (the newest run)."""
    latest = top / "latest"
    if latest.is_symlink() or latest.exists():
        latest.unlink()
    latest.symlink_to(out.name)


def vs_qemu(r: dict) -> str:
    """Peer-seen downtime over QEMU's reported downtime (medians), or na."""
    qd = [d for d in r.get("qemu_downtime_ms", []) if d]
    return fmt(ratio(r["peer_gap_s"], statistics.median(qd) / 1000.0 if qd else None))


def report(results: dict) -> int:
    log = results["compsc-log"]
    converged = log["status"] == "completed" and log["peer_gap_s"] is not None
    print(f"bench-e2e: L1 on tcg, L2s on {L2_ACCEL}, L1's NIC {NIC}", flush=True)
    print("bench-e2e: peer-seen downtime (s): " + " ".join(
        f"{k}={'-' if v['peer_gap_s'] is None else round(v['peer_gap_s'], 2)}"
        for k, v in results.items()))
    print("bench-e2e: longest wait of a request for the guest (s): " + " ".join(
        f"{k}={'-' if v.get('peer_wait_s') is None else round(v['peer_wait_s'], 2)}"
        for k, v in results.items()) +
        f" compsc_vs_pv={vs(log, results['virtio'], 'peer_wait_s')}")
    dpdk, bond = results["compsc-dpdk"], results["dpdk-bonding"]
    if dpdk["status"] != "not run":
        print("bench-e2e-dpdk: time without the VF (s): " + " ".join(
            f"{k}={'-' if results[k].get('vf_absent_s') is None else results[k]['vf_absent_s']}"
            for k in ("compsc-dpdk", "dpdk-bonding")))
        print(f"bench-e2e-dpdk: dpdk_vs_pv={vs(dpdk, results['virtio'])} "
              f"dpdk_vs_igbvf={vs(dpdk, log)} dpdk_vs_qemu={vs_qemu(dpdk)} "
              f"dpdk_vs_dpdk_pv={vs(dpdk, results['dpdk-virtio'])} "
              f"vf_absent_vs_bonding={vs(dpdk, bond, 'vf_absent_s')} "
              f"compsc_vs_bonding={vs(dpdk, bond)}")
    print(f"bench-e2e: compsc_vs_pv={vs(log, results['virtio'])} "
          f"compsc_vs_unplug={vs(log, results['unplug'])} "
          f"converged={'yes' if converged else 'no'} "
          f"compsc_vs_qemu={vs_qemu(log)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
