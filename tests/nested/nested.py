"""Nested VFIO bench: an L1 VM is the host (patched igb PF, vfio, compsc_vfio
on VF0 and VF1, Debian's QEMU over 9p), L2 VMs are guests running the CompSC
igbvf on a passed-through VF. L1(nic="82599") has the project's 82599 model
instead (compsc_harness.vm NICS), the patched ixgbe, and its L2s the CompSC
ixgbevf. Python drives; the L1 side is tests/nested/l1lib.sh."""

import contextlib
import fcntl
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


from compsc_harness import qmp
from compsc_harness.pf import vlan_arp
from compsc_harness.qmp import QMPFailed  # noqa: F401  (the tests import it from here)
from compsc_harness.vm import NICS, VM, Bench, BenchError, KernelProblem, kernel_problems
from l2guest import DST_PORT, L2, L2_IP, MIG_PORT, SRC_PORT

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("COMPSC_NESTED_CACHE",
                            Path.home() / ".cache/compsc/nested"))
KROOT = Path(os.environ.get("COMPSC_KROOT", ""))
KREL = os.environ.get("COMPSC_KREL", "")
VFIO_KO = Path(os.environ.get("COMPSC_VFIO_KO", ""))
# Debian's vfio.ko rebuilt so the VFIO core can report DMA logs
# (hypervisor-glue/vfio-core); unset, L1 runs Debian's own core.
VFIO_CORE_KO = os.environ.get("COMPSC_VFIO_CORE_KO", "")
# Stock modules L1 needs beyond the bench image, in load order; the VFIO
# core (drivers/vfio/vfio) comes from l1_modules().
L1_MODULES = ["fs/netfs/netfs", "net/9p/9pnet", "net/9p/9pnet_virtio", "fs/9p/9p",
              "virt/lib/irqbypass",
              "drivers/vfio/vfio_iommu_type1", "drivers/vfio/pci/vfio-pci-core",
              "drivers/vfio/pci/vfio-pci"]
MGMT_IP = "10.0.2.15"     # L1's management NIC (l1lib.sh l1_mgmt)
MGMT_MAC = "52:54:00:77:0f:01"
# The peer's end of the management NIC where L1's QEMU has no user netdev
# (qemu_features()): a tap of its own in the peer's namespace, on no
# bridge, so monitor traffic still never shares the PF's wire.
MGMT_TAP, MGMT_PEER_IP = "cmgmt0", "10.0.2.2"
# Where L1's QEMU has no 9p, the share travels in L1's initrd (about 95 MB
# more of L1's RAM holds it).
SHARE_IN_INITRD_MEM = 160
# L1's uplink (L1(uplink=True)): a second port to the peer's bridge, for
# the taps of virtio-net destinations (l1lib.sh l1_uplink_tap)
UPLINK_MAC = "52:54:00:77:0f:02"
# L1's stock igbvf (fill_vlvf()), and more VLANs than the PF's VLVF table holds
L1_STOCK_IGBVF = "/lib/compsc/drivers/igbvf-upstream/igbvf.ko"
VLVF_FILL = range(2000, 2040)
# Two hosts (L1(host=0), L1(host=1)): a point-to-point link between the
# two L1s (UDP datagrams between their QEMUs, on the peer's loopback)
# carries the migration stream, as a management network does between two
# machines. Host i's NIC on it has LINK_MAC and link_ip(i); its QEMU
# forwards the QMP ports from HOST_FWD_STRIDE * i above them, since both
# L1s' forwards listen in the one peer namespace.
LINK_MAC = "52:54:00:77:0f:03"
LINK_UDP_PORT = 7100
HOST_FWD_STRIDE = 100
# What the L2s run on (mk/nested.mk NESTED_ACCEL): "kvm", KVM inside L1
# (kvm-amd over the AMD SVM with nested paging that L1's TCG CPU
# emulates), so an L2 runs at L1's speed; or "tcg", TCG inside TCG, about
# 26 times slower (a fallback for a QEMU or kernel without it). Every
# report says which.
L2_ACCEL = os.environ.get("COMPSC_L2_ACCEL", "kvm")
if L2_ACCEL not in ("kvm", "tcg"):
    raise BenchError(f"COMPSC_L2_ACCEL={L2_ACCEL!r}: kvm or tcg")
# L1's CPU under KVM L2s: QEMU's default model (which every L1 ran on
# before, one or two vCPUs) plus SVM and nested paging for kvm-amd, and
# the SSE4.2 baseline DPDK's testpmd needs in an L2 (compsc_harness.vm VM.CPU).
# Not "max": with it, a 2-vCPU L1 lost its second vCPU's timer interrupts
# (rcu_preempt "timer wakeup didn't happen ... on cpu=1") and stalled.
L1_KVM_CPU = "qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt,+svm,+npt"
# A 1 s downtime budget: the tests' migrations converge sooner under TCG in
# TCG. (The name is history: without DMA logging, where type1 reported all
# RAM dirty, these made QEMU move it all at once; compsc_vfio now refuses
# such a migration, test_migrate_no_dma_log.py.) QMP takes the bandwidth
# in bytes/s; 1000 MiB/s is what HMP's "1000" was.
ALL_DIRTY = {"downtime-limit": 1000, "avail-switchover-bandwidth": 1000 << 20}
# A held migration's pre-copy (L1.hold_open()) cannot converge, and QEMU
# loops it without a pause: each round syncs KVM's and compsc_vfio's dirty
# logs and sends what little is dirty. On a one-vCPU L1 that loop leaves the
# L2's vCPU thread next to nothing (a guest command waited ~100 s; with the
# cap, 1-2 s). Capped, QEMU sleeps out each 100 ms window once it has sent
# a page (L1.wait_taken()).
HOLD_BANDWIDTH = 64 << 10
RETURN_PATH = [{"capability": "return-path", "state": True}]
MIGRATION_ENDS = ("completed", "failed", "cancelled")
VFIO_PARAMS = "/sys/module/compsc_vfio/parameters"
# compsc_vfio's debugfs: the module's test-only knobs, a directory per VF
VFIO_DEBUGFS = "/sys/kernel/debug/compsc_vfio"
MOUNT_DEBUGFS = "mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug"


def _sh(*argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, **kw)


# The small L2 kernel and the modules built against it (mk/l2kernel.mk):
# guest path under /lib/compsc -> host file.
L2_VMLINUZ = os.environ.get("COMPSC_L2_VMLINUZ", "")
L2_KOS = {"kmod/compsc.ko": os.environ.get("COMPSC_L2_COMPSC_KO", ""),
          # Debian's igbvf unmodified and guest-shadow (l2-init's l2nic=)
          "drivers/igbvf-stock/igbvf.ko": os.environ.get("COMPSC_L2_STOCK_IGBVF_KO", ""),
          "kmod/gshadow.ko": os.environ.get("COMPSC_L2_GSHADOW_KO", "")}
# The CompSC VF driver of each NIC (l2-init loads the one its VF needs),
# COMPSC_L2_<DRIVER>_KO; only the 82576's is required (BENCH_82599=no
# builds no ixgbevf, and the 82599 cases skip then, L1NicMissing).
L2_VF_KOS = {n.name: (f"drivers/{n.vf_driver}/{n.vf_driver}.ko",
                      os.environ.get(f"COMPSC_L2_{n.vf_driver.upper()}_KO", ""))
             for n in NICS.values()}
L2_KOS.update(ko for name, ko in L2_VF_KOS.items() if name == "igb" or ko[1])
# bench_bugs.ko for the debug L1 and L2 (mk/nesteddebug.mk sets these for
# nested-test-debug only): test_detectors_debug.py commits bugs with them.
BUGS_KO = {"L1": os.environ.get("COMPSC_L1_BUGS_KO", ""),
           "L2": os.environ.get("COMPSC_L2_BUGS_KO", "")}
BUGS_PATH = "/lib/compsc/test/bench_bugs.ko"
if BUGS_KO["L2"]:
    L2_KOS["test/bench_bugs.ko"] = BUGS_KO["L2"]


class L1NicMissing(BenchError):
    """This run has no L1 with that NIC: no QEMU with its model
    (Bench.qemu_for()) or no CompSC VF driver built for the L2 kernel."""


def check_nic(bench: Bench, nic: str) -> None:
    """L1NicMissing if an L1 with the NIC @nic cannot be made here."""
    try:
        bench.qemu_for(NICS[nic])
    except BenchError as e:
        raise L1NicMissing(str(e)) from None
    if L2_VF_KOS[nic][0] not in L2_KOS:
        raise L1NicMissing(f"no {NICS[nic].vf_driver} for the L2 kernel "
                           f"(COMPSC_L2_{NICS[nic].vf_driver.upper()}_KO; make l2-kmods)")


@functools.lru_cache(maxsize=None)
def qemu_features(qemu: str) -> frozenset:
    """What of {"9p", "user"} the QEMU binary @qemu has: Debian's has
    both; the project's 82599 build has neither (qemu/scripts/build.sh
    configures no optional feature)."""
    dev = _sh(qemu, "-device", "help").stdout.decode()
    net = _sh(qemu, "-netdev", "help").stdout.decode()
    return frozenset({"9p"} if '"virtio-9p-pci"' in dev else set()) | \
        frozenset({"user"} if re.search(r"^user$", net, re.M) else set())


def share_files(share: Path) -> dict:
    """{guest path: host file} of the share (share_dir()), for an L1
    that gets it in its initrd: the same tree l1lib.sh mounts over 9p."""
    files = [p for p in sorted((share / "qemu").rglob("*")) if p.is_file()]
    files += [share / "l2" / f for f in ("vmlinuz", "initrd.img")]
    return {f"/mnt/share/{p.relative_to(share)}": str(p) for p in files}


def share_dir(bench: Bench) -> Path:
    """QEMU (binary, libraries, firmware, modules) and the L2 images, for 9p."""
    share = CACHE / "share"
    _qemu_share(share / "qemu")
    l2 = share / "l2"
    l2.mkdir(parents=True, exist_ok=True)
    for f in [L2_VMLINUZ, *L2_KOS.values()]:
        if not f or not Path(f).is_file():
            raise BenchError(f"L2 kernel or module {f!r} missing: run `make nested-test` "
                             "(mk/l2kernel.mk builds them)")
    # Replaced, not rewritten: an L2 starting in another L1 keeps its file.
    tmp = l2 / f"vmlinuz.{os.getpid()}.tmp"
    shutil.copy2(L2_VMLINUZ, tmp)
    os.replace(tmp, l2 / "vmlinuz")
    _l2_initrd(Path(bench.initrd), l2 / "initrd.img")
    return share


def _qemu_share(q: Path) -> None:
    """QEMU's binary, libraries, firmware and modules in @q, copied once.
    On a fresh machine both pytest workers get here at the same moment,
    and two `cp -r` into one new tree fail each other ("File exists"
    0.17 s into a test's setup): the copy is
    made under a lock, in a directory of its own, renamed into place."""
    done = q / "fw/bios-256k.bin"
    if done.exists():
        return
    q.parent.mkdir(parents=True, exist_ok=True)
    with open(q.parent / "qemu.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return
        tmp = Path(tempfile.mkdtemp(prefix="qemu.", dir=q.parent))
        try:
            _copy_qemu(tmp)
            shutil.rmtree(q, ignore_errors=True)    # a copy cut off before this lock
            os.rename(tmp, q)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def _copy_qemu(q: Path) -> None:
    for d in ("bin", "lib", "fw", "mod"):
        (q / d).mkdir(parents=True, exist_ok=True)
    shutil.copy2("/usr/bin/qemu-system-x86_64", q / "bin")
    ldd = _sh("ldd", "/usr/bin/qemu-system-x86_64").stdout.decode()
    for lib in set(re.findall(r"(/\S+\.so[.\d]*)", ldd)):
        shutil.copy2(os.path.realpath(lib), q / "lib" / os.path.basename(lib))
    _sh("cp", "-rL", "/usr/share/qemu/.", str(q / "fw"))
    _sh("cp", "-rL", "/usr/share/seabios/.", str(q / "fw"))
    _sh("cp", "-rL", "/usr/lib/x86_64-linux-gnu/qemu/.", str(q / "mod"))


def _l2_initrd(bench_initrd: Path, out: Path) -> None:
    """The bench initrd's userspace, l2-init as /init, and in /lib/compsc
    only the modules built for the L2 kernel: the Debian kernel's modules
    would not load there, and every MB unpacked costs L2 boot time."""
    # Own stage and temporary file: test runs may build this concurrently.
    stage = Path(tempfile.mkdtemp(prefix="l2stage.", dir=CACHE))
    try:
        __l2_initrd(bench_initrd, stage, out.with_name(f"{out.name}.{os.getpid()}.tmp"))
        os.replace(out.with_name(f"{out.name}.{os.getpid()}.tmp"), out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def __l2_initrd(bench_initrd: Path, stage: Path, out: Path) -> None:
    with open(bench_initrd, "rb") as f:
        subprocess.run(["cpio", "-idm", "--quiet"], cwd=stage, stdin=f, check=True)
    for d in ("lib/modules", "lib/compsc"):
        shutil.rmtree(stage / d, ignore_errors=True)
    for rel, ko in L2_KOS.items():
        (stage / "lib/compsc" / rel).parent.mkdir(parents=True, exist_ok=True)
        _sh("strip", "--strip-debug", "-o", str(stage / "lib/compsc" / rel), ko)
    # busybox modinfo (compsc-insmod) opens modules.dep even for a file name.
    release = _sh("modinfo", "-F", "vermagic", L2_KOS["kmod/compsc.ko"]).stdout.split()[0]
    (stage / "lib/modules" / release.decode()).mkdir(parents=True)
    (stage / "lib/modules" / release.decode() / "modules.dep").touch()
    shutil.copy2(HERE / "l2-init", stage / "init")
    os.chmod(stage / "init", 0o755)
    names = sorted(str(p.relative_to(stage)) for p in stage.rglob("*"))
    with open(out, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=stage,
                       input="\n".join(names).encode() + b"\n", stdout=f, check=True)


# How a kernel tree may install a module: Debian's compress theirs, the
# debug trees (mk/nesteddebug.mk) install them plain.
_UNPACK = {".ko.xz": ("xz", "-dc"), ".ko.zst": ("zstd", "-qdc")}


def _stock_module(m: str, optional: bool = False):
    """The stock module @m (path under kernel/, no suffix) of KROOT's
    kernel as a plain .ko: a plain one where it lies, a compressed one
    decompressed once into the cache (keyed by the kernel release); None
    if that kernel has it built in (modules.builtin), or has no such
    module and @optional."""
    mods = KROOT / "lib/modules" / KREL
    if (mods / "kernel" / (m + ".ko")).is_file():
        return mods / "kernel" / (m + ".ko")
    dst = CACHE / "mods" / KREL / (Path(m).name + ".ko")
    if dst.exists():
        return dst
    for suffix, unpack in _UNPACK.items():
        src = mods / "kernel" / (m + suffix)
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            tmp = dst.with_name(f"{dst.name}.{os.getpid()}.tmp")
            tmp.write_bytes(_sh(*unpack, str(src)).stdout)
            os.replace(tmp, dst)
            return dst
    builtin = mods / "modules.builtin"
    if builtin.is_file() and f"kernel/{m}.ko" in builtin.read_text().split():
        return None
    if optional:
        return None
    raise BenchError(f"module {m} is neither in {mods}/kernel nor built in")


# For bench-e2e's virtio-net baseline: a bridge with the PF and taps
# (l1lib.sh l1_bridge loads them).
L1_NET_MODULES = ["net/llc/llc", "net/802/stp", "net/bridge/bridge", "drivers/net/tun"]
# L1's management NIC (virtio-net on a user netdev): only the L2 QEMUs' QMP
# ports are forwarded to it, so monitor traffic never shares the PF's wire
# with the traffic the tests measure (l1lib.sh l1_mgmt loads them).
L1_MGMT_MODULES = ["net/core/failover", "drivers/net/net_failover", "drivers/net/virtio_net"]
# KVM in L1 for the L2s (l1lib.sh l1_kvm): kvm-amd needs kvm and, where
# the kernel has SEV (Debian's does), ccp; kvm needs irqbypass (L1_MODULES).
L1_KVM_MODULES = ["drivers/crypto/ccp/ccp", "arch/x86/kvm/kvm", "arch/x86/kvm/kvm-amd"]
# a kernel without SEV (the debug L1's, l1kernel-debug.config) has no ccp
L1_OPTIONAL_MODULES = {"drivers/crypto/ccp/ccp"}


def l1_modules() -> dict:
    """{guest path: host file}: the stock modules, the VFIO core, compsc_vfio.ko."""
    # a module the kernel has built in is left out: l1lib.sh skips its insmod
    files = {f"/lib/compsc/nested/{Path(m).name}.ko": str(ko)
             for m in L1_MODULES + L1_NET_MODULES + L1_MGMT_MODULES +
             (L1_KVM_MODULES if L2_ACCEL == "kvm" else [])
             if (ko := _stock_module(m, m in L1_OPTIONAL_MODULES)) is not None}
    core = VFIO_CORE_KO or _stock_module("drivers/vfio/vfio")
    if core is not None:
        files["/lib/compsc/nested/vfio.ko"] = str(core)
    files["/lib/compsc/nested/compsc_vfio.ko"] = str(VFIO_KO)
    files["/usr/sbin/l1lib.sh"] = str(HERE / "l1lib.sh")
    if BUGS_KO["L1"]:
        files[BUGS_PATH] = BUGS_KO["L1"]
    return files


# On the debug kernels (mk/nesteddebug.mk, COMPSC_DEBUG_KERNEL=1) an L2
# gets more RAM than l1lib.sh's default 256 MiB, for KASAN's shadow and
# quarantine, kmemleak's and lockdep's records; L1 gets room for two such
# L2s on top of the debug kernel's own extra (compsc_harness.vm DEBUG_EXTRA_MEM).
L2_DEBUG_MEM = 384
L1_DEBUG_MEM = 2 * (L2_DEBUG_MEM - 256)
# How much longer every wait on an L2 (its console, its QMP server, a
# migration) may take on the debug kernels: the debug L2 came up 469-594 s
# after its QEMU started in the soak (docs/results.md), and a fresh
# destination QEMU missed a 120 s wait for its QMP server.
DEBUG_SLOW = 2.5
# compsc_vfio's bound on the wait for the guest driver's readers on this
# bench (the module's default, 1000 ms, is for a guest on real CPUs). An L2
# vCPU here is a thread of an L1 that runs under TCG on one or two vCPUs,
# shared with L1 itself, the other L2's QEMU and the migration thread, and
# L1 shares the host's two cores with the other pytest worker's L1: a
# reader section a native guest leaves in microseconds can last a second
# of wall time (with NESTED_ACCEL=tcg, seconds: two 1 s takes were refused
# that way under test_migrate_integrity's datagram stream). The refusal is
# the designed outcome (the guest keeps its device, the migration fails
# cleanly; test_take_timed_out.py), but these tests are about what comes
# after a take, so the bench gives readers 5 s.
TAKE_TIMEOUT_MS = 5000


# At most this many L1 VMs run at once on this machine, whatever the
# workers and checkouts: one a core. An L1 keeps most of a core busy under
# TCG while it boots, starts L2s or migrates, and with more L1s than cores
# the L2s inside them went without CPU for seconds, their transmit
# watchdogs reset the VF (test_migrate_mtu_loop, test_area_rewritten_
# during_take failed with five and with three L1s on 2 cores, and passed
# with one). COMPSC_L1_SLOTS overrides it.
L1_SLOTS = int(os.environ.get("COMPSC_L1_SLOTS", os.cpu_count() or 1))
L1_SLOT_DIR = Path("/run/compsc-l1-slots")


class L1Slots:
    """@k of the machine's L1_SLOTS (flock()ed files in L1_SLOT_DIR), held
    until release() or the process ends. All @k are taken under one gate
    lock, so that two who wait for two never hold one each."""

    def __init__(self, k: int = 0, what: str = "an L1"):
        self._fds = []
        k = min(k, L1_SLOTS)
        if not k:
            return
        L1_SLOT_DIR.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        with open(L1_SLOT_DIR / "gate", "w") as gate:
            fcntl.flock(gate, fcntl.LOCK_EX)
            while not self._try(k):
                if t0 is not None and time.monotonic() - t0 > 10:
                    print(f"nested: {what} waits for {k} of {L1_SLOTS} L1 slots "
                          "(COMPSC_L1_SLOTS)", file=sys.stderr)
                    t0 = None
                time.sleep(1)

    def _try(self, k: int) -> bool:
        for i in range(L1_SLOTS):
            if len(self._fds) == k:
                break
            fd = os.open(L1_SLOT_DIR / f"slot{i}", os.O_CREAT | os.O_RDWR, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._fds.append(fd)
            except BlockingIOError:
                os.close(fd)
        return len(self._fds) == k

    def take(self, k: int) -> "L1Slots":
        """@k of these, handed to a new holder (one L1 of a pair)."""
        part = L1Slots()
        part._fds, self._fds = self._fds[:k], self._fds[k:]
        return part

    def release(self) -> None:
        fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)


class L1(VM):
    """The L1 host: q35 with an emulated Intel IOMMU in front of the PF
    (@nic, a key of compsc_harness.vm NICS: the 82576, or the 82599 model
    on the project's QEMU)."""

    def __init__(self, peer, name="l1", mem=1536, smp=None, uplink=False, host=None,
                 rootfs=None, slots: L1Slots = None, nic: str = "igb", **kw):
        check_nic(Bench(), nic)
        # before the boot: the slot this L1 runs in (L1_SLOTS)
        self.slots = slots or L1Slots(1, name)
        try:
            self._init(peer, name, mem, smp, uplink, host, rootfs, nic=nic, **kw)
        except BaseException:
            self.slots.release()
            raise

    def _init(self, peer, name, mem, smp, uplink, host, rootfs, nic, **kw):
        bench = Bench()
        self.features = qemu_features(bench.qemu_for(NICS[nic]))
        self._uplink = uplink
        self.host = host                # its index in a two-host test, or None
        # a Debian root filesystem with the packages and libvirt (l1root.sh)
        self.rootfs = rootfs
        self.fwd = HOST_FWD_STRIDE * (host or 0)
        self.uplink_tap = None          # its tap on the peer's side, once booted
        self._throttled = None          # (QEMU port, its max-bandwidth) while wait_taken() caps it
        self._share = share_dir(bench)
        smp = smp or int(os.environ.get("COMPSC_L1_SMP", "1"))
        self._l2s = {}                  # name: its L2 (l2())
        self.boot_panics = []           # see L2._reboot()
        self._vlvf_mods = set()         # L1's modules before fill_vlvf()
        # under every L2's own (l2guest.L2_VARS, L2.start())
        self.l2_vars = f"L2ACCEL={L2_ACCEL}" + (f" L2MEM={L2_DEBUG_MEM}" if bench.debug else "")
        self.mgmt_ip = MGMT_IP          # where the L2s' QMP servers listen
        self.accel = L2_ACCEL
        self.slow = DEBUG_SLOW if bench.debug else 1
        mem += L1_DEBUG_MEM if bench.debug else 0
        files = l1_modules()
        if "9p" not in self.features:
            files.update(share_files(self._share))
            mem += SHARE_IN_INITRD_MEM
        super().__init__(peer=peer, name=name, mem=mem, smp=smp, append="intel_iommu=on",
                         extra_files=files, boot_timeout=300, bench=bench, nic=nic, **kw)

    # L1 does not get the one-VM bench's spare root port: L1 plugs nothing
    SPARE_PORT = False

    # every PCI device of L1 behind it, the VFs L1 passes to its L2s included
    IOMMU = "intel-iommu,intremap=on,caching-mode=on"

    def cpu_model(self):
        """L1_KVM_CPU for L2s on KVM; with L2s on TCG, QEMU's default (the
        model the TCG-in-TCG runs were measured with)."""
        return L1_KVM_CPU if L2_ACCEL == "kvm" else None

    def qemu_argv(self, *a, **kw):
        argv = super().qemu_argv(*a, **kw)
        share = ["-virtfs", f"local,path={self._share},mount_tag=share,security_model=none,"
                 "readonly=on"] if "9p" in self.features else []
        return (argv + share + self._mgmt_argv() +
                ["-device", f"virtio-net-pci,netdev=mgmt,mac={MGMT_MAC},romfile="] +
                self._uplink_argv() + self._link_argv() + self._rootfs_argv())

    def _mgmt_argv(self) -> list:
        """The management NIC's netdev: a user netdev forwarding the QMP
        ports to 127.0.0.1 in the peer's namespace; without one in this
        QEMU, a tap there (MGMT_TAP) from which the peer reaches MGMT_IP."""
        if "user" in self.features:
            fwd = ",".join(f"hostfwd=tcp:127.0.0.1:{p + self.fwd}-{MGMT_IP}:{p}"
                           for p in (SRC_PORT, DST_PORT))
            # restrict=on: L1 reaches nothing through it; the forwards still work
            return ["-netdev", f"user,id=mgmt,restrict=on,{fwd}"]
        ip = ["ip", "-n", self.peer.ns]
        if subprocess.run(ip + ["link", "show", MGMT_TAP], capture_output=True).returncode:
            _sh(*ip, "tuntap", "add", "dev", MGMT_TAP, "mode", "tap")
            _sh(*ip, "addr", "add", f"{MGMT_PEER_IP}/24", "dev", MGMT_TAP)
            _sh(*ip, "link", "set", MGMT_TAP, "up")
        return ["-netdev", f"tap,id=mgmt,ifname={MGMT_TAP},script=no,downscript=no"]

    def _rootfs_argv(self) -> list:
        if not self.rootfs:
            return []
        return ["-virtfs", f"local,path={self.rootfs},mount_tag=rootfs,security_model=none,"
                "readonly=on"]

    @property
    def link_ip(self) -> str:
        """This host's address on the link between two hosts."""
        return link_ip(self.host)

    def _link_argv(self) -> list:
        """Host i's NIC on the link: UDP from its port to the other's."""
        if self.host is None:
            return []
        me, other = (LINK_UDP_PORT + i for i in (self.host, 1 - self.host))
        return ["-netdev", f"dgram,id=link,local.type=inet,local.host=127.0.0.1,"
                f"local.port={me},remote.type=inet,remote.host=127.0.0.1,remote.port={other}",
                "-device", f"virtio-net-pci,netdev=link,mac={LINK_MAC},romfile="]

    def _uplink_argv(self) -> list:
        """The uplink's NIC, on a tap of its own after the PF's (the peer's
        first tap stays the PF's, as the tests expect)."""
        if not self._uplink:
            return []
        if self.uplink_tap is None:
            self.uplink_tap = self.peer.add_tap()
        return ["-netdev", f"tap,id=uplink,ifname={self.uplink_tap},script=no,downscript=no",
                "-device", f"virtio-net-pci,netdev=uplink,mac={UPLINK_MAC},romfile="]

    def sh(self, cmd: str, timeout: float = 120, check: bool = True):
        return self.run(f". /usr/sbin/l1lib.sh; {cmd}", timeout=timeout, check=check)

    def setup(self, vfio_params: str = "") -> tuple:
        """PF + 2 VFs (bench-setup), vfio, compsc_vfio on VF0 and VF1."""
        self.sh(f"l1_mount; l1_mgmt {MGMT_MAC} {MGMT_IP}")
        if self.host is not None:
            self.sh(f"l1_nic_up {LINK_MAC} {self.link_ip}")   # the link to the other host
        if L2_ACCEL == "kvm":
            self.sh("l1_kvm")
        igb, cvf = self.nic.module(self.nic.pf_driver), ""
        if self.rootfs:     # the modules the packages installed
            self.sh("l1_root && l1_dkms")
            igb, cvf = (self.sh(f"l1_dkms_ko {m}").out.strip() for m in ("igb", "compsc_vfio"))
        vfs = self.setup_vfs(2, igb=igb, wait_link=0)
        # first, so the caller's value wins
        vfio_params = f"take_timeout_ms={TAKE_TIMEOUT_MS} {vfio_params}"
        self.sh(f"L1_CVF_KO={cvf} l1_vfio {vfio_params}")
        for vf in vfs[:2]:
            out = self.sh(f"l1_bind {vf.bdf}").out.strip()
            assert out.endswith("compsc_vfio"), out
        self.vf0, self.vf1 = vfs[0].bdf, vfs[1].bdf
        self.vf_macs = [vf.mac for vf in vfs[:2]]
        # what the modules said when they loaded (tidy() empties the log)
        self.setup_log = self.sh("dmesg").out
        return self.vf0, self.vf1

    def tidy(self) -> None:
        """Undo what a test module leaves behind in the ordinary course,
        for the next one (conftest.py's L1Pool): its L2s stopped, the VFs'
        MACs as setup() gave them and trust off, L1's kernel log emptied
        (tests slice it at a length they took, which a ring buffer that
        wrapped would shift). Anything else a module changed shows in
        fingerprint()."""
        names = self.sh("cd /run && for f in *.qemu; do "
                        "[ -e \"$f\" ] && echo \"${f%.qemu}\"; done; true").out.split()
        self.l2_stop(*names)
        self.sh("; ".join(f"l1_vf_mac {i} {mac}; l1_vf_trust {i} off"
                          for i, mac in enumerate(self.vf_macs)) +
                "; dmesg -c >/dev/null; rm -rf /run/l2logs /run/l2panics")
        self._l2s.clear()
        self.boot_panics.clear()

    def fingerprint(self) -> str:
        """What tidy() does not put back and the next module must find as
        setup() left it (l1lib.sh l1_fingerprint)."""
        return self.sh("l1_fingerprint").out

    def last_migrations(self) -> dict:
        """{VF BDF: last_migration} as an operator sees it here: `compsc
        devices --json` (compsc_vfio's record of each VF's last migration)."""
        doc = json.loads(self.sh("mountpoint -q /sys/kernel/debug || "
                                 "mount -t debugfs none /sys/kernel/debug; "
                                 "compsc devices --json").out)
        return {vf["bdf"]: vf["last_migration"] for pf in doc["pfs"] for vf in pf["vfs"]}

    def areas(self) -> dict:
        """{PF's VF index: guest area address} as the host sees them
        registered (compsc.ko's debugfs compsc/areas)."""
        out = self.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
                      "cat /sys/kernel/debug/compsc/areas").out
        return {int(vf): int(gpa, 16) for _, vf, gpa, _ in
                (line.split() for line in out.splitlines() if line.strip())}

    def dmesg_mark(self) -> int:
        """Where L1's kernel log ends now, for dmesg_since() (tidy()
        empties the log, which voids a mark taken before it)."""
        return len(self.sh("dmesg").out)

    def dmesg_since(self, mark: int) -> str:
        """L1's kernel log after @mark (dmesg_mark())."""
        return self.sh("dmesg").out[mark:]

    def wait_dmesg(self, mark: int, pattern: str, count: int = 1,
                   timeout: float = 300) -> str:
        """L1's kernel log after @mark (a length of it) once @pattern
        occurs there @count times; AssertionError after @timeout s."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            log = self.dmesg_since(mark)
            if len(re.findall(pattern, log)) >= count:
                return log
            time.sleep(1)
        raise AssertionError(f"{pattern!r} not seen {count} times in {timeout} s:\n{log[-3000:]}")

    def clock_offset(self) -> float:
        """The bench host's time minus L1's uptime: maps L1's clocks (dmesg,
        /proc/uptime) to the host's, within a command's round trip."""
        up = float(self.sh("cut -d' ' -f1 /proc/uptime").out.split()[0])
        return time.time() - up

    def vfio_events(self, mark: int) -> dict:
        """Host-clock times of compsc_vfio's first `device taken` and
        `device handed` since dmesg offset @mark; `taken_again` for a take
        after a give-back (hold_ms), since which the VF has been away from
        the guest."""
        offset = self.clock_offset()
        ev = {}
        for line in self.dmesg_since(mark).splitlines():
            m = re.match(r"\[\s*(\d+\.\d+)\].*(device taken|device handed)", line)
            if m:
                k, t = m.group(2).split()[1], offset + float(m.group(1))
                if k == "taken" and "taken" in ev and "handed" not in ev:
                    ev["taken_again"] = t
                ev.setdefault(k, t)
        return ev

    def l2_stop(self, *names: str) -> None:
        """Kill the named L2 QEMUs and wait until they are gone: one still
        tearing down holds its VF or tap, and a QEMU started on it next
        fails (exiting with 256 MiB pinned takes seconds under TCG)."""
        for n in names:
            self.sh(f"[ -f /run/{n}.pid ] && kill $(cat /run/{n}.pid); true")
        for n in names:
            self.sh(f"p=$(cat /run/{n}.pid 2>/dev/null); i=0; "
                    f"while [ -n \"$p\" ] && [ -d /proc/$p ] && "
                    f"! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && [ $i -lt 300 ]; "
                    f"do sleep 0.2; i=$((i + 1)); done; rm -f /run/{n}.pid; true", timeout=90)

    def l2(self, name: str) -> L2:
        """The L2 called @name: one object per name, made on first use
        (its VF and port set by l2_start)."""
        if name not in self._l2s:
            self._l2s[name] = L2(self, name)
        return self._l2s[name]

    @property
    def src(self) -> L2:
        """The L2 "src": a migration's usual source, on VF0 (SRC_PORT)."""
        return self._pair_l2("src", self.vf0, SRC_PORT)

    @property
    def dst(self) -> L2:
        """The L2 "dst": a migration's usual destination, on VF1 (DST_PORT)."""
        return self._pair_l2("dst", self.vf1, DST_PORT)

    def _pair_l2(self, name: str, vf: str, port: int) -> L2:
        l2 = self.l2(name)
        if l2.port is None:
            l2.vf, l2.port = vf, port
        return l2

    def l2_start(self, name: str, vf: str, port: int, extra: str = "",
                 env: str = "") -> L2:
        """Start the L2 @name on @vf with QMP on @port (L2.start())."""
        return self.l2(name).start(extra, env, vf=vf, port=port)

    def l2_pair(self, peer, src_extra: str = "", dst_extra: str = "", env: str = "") -> dict:
        """The L2 "src" on VF0, answering the peer, and "dst" on VF1 waiting
        for its migration: where most migration tests start. @src_extra,
        @dst_extra: more QEMU arguments for each; @env: L2 variables for
        both (l2guest.L2_VARS). Returns the source's l2stat line (stat_now())."""
        self.l2_start("src", self.vf0, SRC_PORT, src_extra, env)
        # both boot at once: the destination is waited for last
        self.dst.start_incoming(dst_extra, env, wait=False, vf=self.vf1, port=DST_PORT)
        self.src.wait_up()
        assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
        self.dst.wait_incoming()
        return self.src.stat_now()

    def run_case(self, peer, case: "Case") -> "Outcome":
        """@case from the start of its L2 pair to the checks its end
        calls for (Case)."""
        if case.src_up:
            self.dst.start_incoming(case.dst_extra, case.env)
            before = self.src.stat_now()
        else:
            before = self.l2_pair(peer, case.src_extra, case.dst_extra, case.env)
        hooked = case.start_hook(self) if case.start_hook else None
        mark = self.dmesg_mark()
        self.migrate_start(params=ALL_DIRTY if case.params is None else case.params)
        if case.during:
            case.during(self)
        res = self.migrate_wait(timeout=case.timeout)
        log = self.dmesg_since(mark)
        if case.expect == "completed":
            assert res["status"] == "completed", (res, log[-3000:])
            after = self.arrived(peer, before)
        else:
            ended = cancelled(res) if case.expect == "cancelled" else res["status"] == "failed"
            assert ended, (case.expect, res, log[-3000:])
            after = self.kept_device(peer, before)
        return Outcome(res, log, before, after, hooked)

    def arrived(self, peer, before: dict, guest: L2 = None, left_vf: int = 0) -> dict:
        """After a completed migration from VF @left_vf (its MAC now its
        own) into the L2 @guest ("dst"): the guest carried its state (one
        restore more than @before, the source's l2stat line, and no reset)
        and answers the peer. Returns @guest's first line with that restore."""
        guest = guest or self.dst
        self.vf_own_mac(left_vf)
        after = guest.wait_restores(restores(before) + 1)
        assert after["compsc_resets"] == before["compsc_resets"], (before, after)
        assert answers(peer) >= 3, guest.log()[-3000:]
        return after

    def kept_device(self, peer, before: dict, guest: L2 = None) -> dict:
        """After a migration that did not complete: the L2 @guest ("src")
        runs on with its device untouched (no restore and no reset since
        @before) and answers the peer. Returns its next l2stat line."""
        guest = guest or self.src
        assert guest.status() == "running"
        mark = len(guest.stats())
        assert peer.ping(L2_IP, count=10, interval=0.5).received >= 5
        after = guest.stat_since(mark)
        assert after["compsc_resets"] == before["compsc_resets"], (before, after)
        assert after["compsc_restores"] == before["compsc_restores"], (before, after)
        return after

    @contextlib.contextmanager
    def vfio_param(self, name: str, value):
        """While the block runs, compsc_vfio's module parameter @name
        (writable at run time: hold_ms, take_timeout_ms) is @value;
        leaving it puts back what it was."""
        path = f"{VFIO_PARAMS}/{name}"
        old = self.sh(f"cat {path}").out.strip()
        self.sh(f"echo {value} > {path}")
        try:
            yield
        finally:
            self.sh(f"echo {old} > {path}")

    @contextlib.contextmanager
    def hold_open(self, hold_ms: int = 600000):
        """While the block runs, a migration started in it stays in
        pre-copy with the device taken: compsc_vfio's test-only fault_size
        reports a stop-copy size no downtime limit admits, and @hold_ms
        keeps the take's own bound out of the test. release_hold() lets it
        switch over; leaving the block restores both. Yields the dmesg
        mark at the start."""
        with self.vfio_param("hold_ms", hold_ms):
            self.vfio_fault("fault_size", 1 << 40)
            try:
                yield self.dmesg_mark()
            finally:
                self._unthrottle(quiet=True)
                self.vfio_fault("fault_size", 0)

    def wait_taken(self, mark: int, src: int = SRC_PORT, count: int = 1) -> str:
        """Inside hold_open(): L1's kernel log after @mark once the device
        has been taken on the size query @count times, and from then on the
        pre-copy of the QEMU on @src capped at HOLD_BANDWIDTH until
        release_hold() or the end of the block. Capped, QEMU seldom
        queries the stop-copy size again under ALL_DIRTY: a test that needs
        it to learn of a voided device soon does not call this."""
        log = self.wait_dmesg(mark, r"device taken on the size query", count)
        old = self.qmp(src, "query-migrate-parameters")["max-bandwidth"]
        self.qmp(src, "migrate-set-parameters", **{"max-bandwidth": HOLD_BANDWIDTH})
        self._throttled = (src, old)
        return log

    def _unthrottle(self, quiet: bool = False) -> None:
        """The bandwidth wait_taken() capped, put back; @quiet: the QEMU
        may be gone (killed, or failed by the test)."""
        held, self._throttled = self._throttled, None
        if not held:
            return
        try:
            self.qmp(held[0], "migrate-set-parameters", **{"max-bandwidth": held[1]})
        except QMPFailed:
            if not quiet:
                raise

    @contextlib.contextmanager
    def call_stacks(self, *funcs: str):
        """While the block runs, L1's kernel records the call stack of
        every call of the kernel functions @funcs (kprobes through
        tracefs). Yields a function that returns those so far: a list of
        (function, [frames, innermost first]). Leaving the block removes
        the probes."""
        trace = "/sys/kernel/tracing"
        names = [f"cvfprobe/p{i}" for i in range(len(funcs))]
        self.sh(f"mountpoint -q {trace} || mount -t tracefs none {trace}; "
                f"echo 0 > {trace}/tracing_on; echo > {trace}/trace")
        try:
            for name, fn in zip(names, funcs):
                self.sh(f"echo 'p:{name} {fn}' >> {trace}/kprobe_events && "
                        f"echo stacktrace > {trace}/events/{name}/trigger && "
                        f"echo 1 > {trace}/events/{name}/enable")
            self.sh(f"echo 1 > {trace}/tracing_on")
            yield lambda: _probe_stacks(self.sh(f"cat {trace}/trace").out,
                                        dict(zip((n.split("/")[1] for n in names), funcs)))
        finally:
            for name in names:
                self.sh(f"[ -d {trace}/events/{name} ] || exit 0; "
                        f"echo 0 > {trace}/events/{name}/enable; "
                        f"echo '!stacktrace' > {trace}/events/{name}/trigger; "
                        f"echo '-:{name}' >> {trace}/kprobe_events", check=False)
            self.sh(f"echo 0 > {trace}/tracing_on", check=False)

    def take_timeout(self, ms: int):
        """While the block (a context manager) runs, compsc_vfio's takes
        wait at most @ms for the guest's readers."""
        return self.vfio_param("take_timeout_ms", ms)

    def stall_reader(self, name: str, ms: int) -> float:
        """Keep one reader of the L2 @name's igbvf (its watchdog task,
        every 2 s) inside the read side for @ms: the debugfs test hook
        compsc_stall_ms. Returns (time.time()) once the hook is served.

        ethtool runs meanwhile: an entry under RTNL must leave the hook to
        the watchdog (one that took it would hold up the resume after
        each timed-out take too, and the stack's transmit watchdog would
        reset the VF)."""
        # a glob for the L2's one VF: the shell expands none in a redirection
        out = self.l2(name).run(
            f"{MOUNT_DEBUGFS}; "
            f"for f in /sys/kernel/debug/igbvf/*/compsc_stall_ms; do echo {ms} > $f; done; "
            "IF=$(ls /sys/class/net | grep -v '^lo$' | head -1); "
            "while ! dmesg | grep -q 'test hook: inside the read side for'; "
            "do ethtool -S \"$IF\" > /dev/null; done; "
            "dmesg | grep 'test hook: inside the read side for'")
        assert "(kworker" in out, f"the hook was served by another entry than the watchdog: {out}"
        return time.time()

    def release_hold(self) -> None:
        """Inside hold_open(): let the migration switch over."""
        self._unthrottle()
        self.vfio_fault("fault_size", 0)

    def vfio_fault(self, knob: str, value: int) -> None:
        """Set one of compsc_vfio's test-only debugfs knobs for the module:
        fault_size (bytes added to the stop-copy size QEMU is told) or
        fault_corrupt (1: spoil the next saved state, 2: pre-copy chunk)."""
        self.sh(f"{MOUNT_DEBUGFS}; echo {value} > {VFIO_DEBUGFS}/{knob}")

    def l2_consoles(self) -> dict:
        """{file: text} of every L2 console this L1 has had: the live ones
        (/run/NAME.log) and those a new start replaced (/run/l2logs)."""
        names = self.sh("ls /run/*.log /run/l2logs/*.log 2>/dev/null; true").out.split()
        return {n: self.sh(f"cat {n}", check=False).out for n in names}

    def close(self, check: bool = True) -> None:
        """As VM.close(); on the debug kernels, with @check, also fail on a
        report in any L2 console this L1 has had (the tests scan L1's own)."""
        probs = []
        if check and self.bench.debug and self.alive() and not self._closed:
            for path, text in self.l2_consoles().items():
                probs += [f"L2 console {path}:\n{p}" for p in kernel_problems(text)]
        try:
            super().close(check)
        finally:
            self.slots.release()
            if probs:
                raise KernelProblem(f"L2 kernel reports under {self.name}:\n\n"
                                    + "\n\n...\n\n".join(probs))

    def assert_kernels_clean(self, *l2s: str) -> None:
        """No Oops/WARNING/... in the consoles of the L2s @l2s nor in L1."""
        for n in l2s:
            probs = kernel_problems(self.l2(n).log())
            assert not probs, f"L2 {n}:\n" + "\n...\n".join(probs)
        probs = kernel_problems(self.sh("dmesg").out)
        assert not probs, "L1:\n" + "\n...\n".join(probs)
        self.check_kernel_log()

    def vfio_debugfs(self, bdf: str, name: str) -> dict:
        """compsc_vfio's debugfs file @name of the VF @bdf ("pf": what its
        PF holds for it now, "timeline", ...) as {key: value}."""
        out = self.sh(f"{MOUNT_DEBUGFS}; cat {VFIO_DEBUGFS}/{bdf}/{name}").out
        return dict(line.split("=", 1) for line in out.split() if "=" in line)

    def pf_vfs(self) -> dict:
        """{VF index: its line in `ip link show` of the PF} ("vf 0
        link/ether MAC ..., spoof checking on, link-state auto, trust off")."""
        out = self.sh("ip link show $(l1_pf)").out
        return {int(m[1]): m[0] for m in re.finditer(r"vf (\d+)\s+link/ether [^\n]*", out)}

    def fill_vlvf(self, bdf: str) -> None:
        """The VF @bdf (no VM on it) to L1's stock igbvf, which asks its PF
        for VLAN filters until the PF's VLVF table has no entry left."""
        self._vlvf_mods = self._modules()
        self.sh(f"echo igbvf > /sys/bus/pci/devices/{bdf}/driver_override; "
                f"echo {bdf} > /sys/bus/pci/devices/{bdf}/driver/unbind; "
                f"[ -d /sys/module/igbvf ] || insmod {L1_STOCK_IGBVF}; "
                f"echo {bdf} > /sys/bus/pci/drivers_probe; modprobe 8021q; "
                f"i=$(ls /sys/bus/pci/devices/{bdf}/net); ip link set $i up; "
                f"for v in {' '.join(map(str, VLVF_FILL))}; do "
                f"ip link add link $i name f$v type vlan id $v 2>/dev/null; done; true",
                timeout=300)

    def unfill_vlvf(self, bdf: str) -> None:
        """Undo fill_vlvf(): the VF back to compsc_vfio, and the modules
        it loaded (igbvf, 8021q and what that pulls in) gone again, so
        that L1 can serve the next test module (conftest.py's L1Pool)."""
        self.sh(f"for v in {' '.join(map(str, VLVF_FILL))}; do ip link del f$v 2>/dev/null; "
                f"done; echo {bdf} > /sys/bus/pci/devices/{bdf}/driver/unbind; true")
        new = self._modules() - self._vlvf_mods
        # 8021q first: modprobe -r takes the modules only it used along
        for m in sorted(new, key=lambda m: m != "8021q"):
            self.sh(f"[ ! -d /sys/module/{m} ] || modprobe -r {m} || rmmod {m}")
        assert self.sh(f"l1_bind {bdf}").out.strip().endswith("compsc_vfio")

    def _modules(self) -> set:
        """The modules loaded in L1 (lsmod)."""
        return {line.split()[0] for line in self.sh("lsmod").out.splitlines()[1:]}

    def pf_vf_macs(self) -> dict:
        """{VF index: the MAC the PF gives it} (`ip link show` of the PF)."""
        return {i: line.split()[3] for i, line in self.pf_vfs().items()}

    def vf_own_mac(self, index: int) -> None:
        """VF @index gets a MAC of its own (02:00:00:00:00:9<index>), not
        the guest's: the VF a guest left (both VFs sit on one PF, which
        would otherwise still switch the guest's frames to it), or a
        destination's VF before the guest arrives."""
        self.sh(f"l1_vf_mac {index} 02:00:00:00:00:9{index}")

    def qmp(self, port: int, command: str, timeout: float = 30, **args):
        """@command with @args to the L2 QEMU whose QMP server is on @port:
        its "return", or QMPFailed naming the command and QEMU's error.
        @timeout is multiplied by the L1's slow: on the debug kernels a
        fresh QEMU takes minutes to open its QMP server."""
        return qmp.execute(self._qmp_address(port), command, args, timeout * self.slow,
                           target=f"the L2 on port {port}")

    def _qmp_address(self, port: int):
        """A connection to the L2 QMP server on @port, made through L1's
        forwarded port in the peer's namespace (one per try)."""
        if "user" in self.features:
            return lambda: self.peer.connect("127.0.0.1", port + self.fwd)
        return lambda: self.peer.connect(MGMT_IP, port)

    async def _qmp_connect(self, port: int, timeout: float, what: str):
        """A negotiated session with the L2 QEMU on @port (held open by
        callers that time a command or sample, as pcsample does)."""
        return await qmp.connect(self._qmp_address(port), timeout, what)

    def device_del(self, port: int, dev_id: str, timeout: float = 60) -> float:
        """device_del of @dev_id on the L2 QEMU on @port, and the wait for
        its DEVICE_DELETED event (the guest has let go of the device):
        seconds from the command to the event."""
        return qmp.device_del(self._qmp_address(port), dev_id, timeout,
                              target=f"the L2 on port {port}")

    def l2_status(self, port: int, timeout: float = 30) -> str:
        """The run state of the L2 QEMU on @port ("running", "inmigrate", ...)."""
        return self.qmp(port, "query-status", timeout=timeout)["status"]

    def wait_incoming(self, port: int, timeout: float = 120) -> None:
        """Until the L2 QEMU on @port waits for a migration: one started
        with -incoming needs a while under TCG, and a migration (or a
        capability set) sent before it listens goes nowhere. @timeout is
        multiplied by the L1's slow."""
        end = time.monotonic() + timeout * self.slow
        while (status := self.l2_status(port, max(1, end - time.monotonic()) / self.slow)) \
                != "inmigrate":
            if time.monotonic() >= end:
                raise BenchError(f"QEMU on port {port} never waited for a migration: {status}")
            time.sleep(1)

    def migrate(self, timeout: float = 300, params: dict = None, poll: float = 0.5,
                src: int = SRC_PORT, dst: int = DST_PORT, dst_host: "L1" = None) -> dict:
        """Migrate the L2 on @src to the one on @dst (started with -incoming)
        with migration @params, here or on the other host @dst_host (its
        -incoming on its link_ip); query-migrate's last answer (polled
        every @poll s), see migrate_wait()."""
        self.migrate_start(params, src, dst, dst_host=dst_host)
        return self.migrate_wait(timeout, poll, src)

    def migrate_start(self, params: dict = None, src: int = SRC_PORT,
                      dst: int = DST_PORT, to: int = MIG_PORT, dst_host: "L1" = None) -> None:
        """Start the migration to 127.0.0.1:@to (the destination's
        -incoming port, or a relay in front of it), or to @dst_host's
        link_ip:@to."""
        there = dst_host or self
        if params:
            self.qmp(src, "migrate-set-parameters", **params)
        self.qmp(src, "migrate-set-capabilities", capabilities=RETURN_PATH)
        there.qmp(dst, "migrate-set-capabilities", capabilities=RETURN_PATH)
        addr = dst_host.link_ip if dst_host else "127.0.0.1"
        self.qmp(src, "migrate", uri=f"tcp:{addr}:{to}")

    def migrate_wait(self, timeout: float = 300, poll: float = 0.5,
                     src: int = SRC_PORT) -> dict:
        """query-migrate on @src, polled every @poll s until the migration
        ends or @timeout s pass: its last answer ("status", "downtime" and
        "total-time" in ms, "ram", "error-desc" on failure, ...). @timeout
        is multiplied by the L1's slow."""
        t0, timeout = time.monotonic(), timeout * self.slow
        while True:
            info = self.qmp(src, "query-migrate")
            if info.get("status") in MIGRATION_ENDS or time.monotonic() - t0 >= timeout:
                if info.get("status") != "completed":
                    self._why_failed(info)
                return info
            time.sleep(poll)

    def _why_failed(self, info: dict) -> None:
        """A migration that did not complete: what the L2 QEMUs printed and
        L1's last kernel lines, on stdout (pytest shows it for a failed
        test; a CI log may be all there is to go on)."""
        print(f"nested: migration {info.get('status')}: {info.get('error-desc', '')}")
        print(self.sh("for f in /run/*.qemu; do echo \"== $f\"; tail -n 15 $f; done; "
                      "echo '== L1 dmesg'; dmesg | tail -n 25", check=False).out)


# Where an unplugged guest's NIC goes back in: the L2s' one root port.
HOTPLUG_BUS = "rp1"


@contextlib.contextmanager
def two_hosts(peer, name: str = "host", ready=None, **kw):
    """Host 0 and host 1 of a two-host test (L1(host=), @kw for both),
    set up and then handed to @ready (more setup) one after the other;
    both closed when the block ends."""
    made = []
    pair = L1Slots(2, f"{name}0 and {name}1")
    try:
        for i in (0, 1):
            made.append(L1(peer, name=f"{name}{i}", host=i, slots=pair.take(1), **kw))
            made[-1].setup()
            if ready:
                ready(made[-1])
        yield made
    finally:
        pair.release()          # what no L1 took (a boot failed)
        for h in made:
            h.close(check=h.bench.debug)


def link_ip(host: int) -> str:
    """Host @host's address on the link between two hosts (L1(host=))."""
    return f"10.88.0.{host + 1}"


def away_mac(index: int) -> str:
    """The MAC a VF the guest has left gets from its PF (nested: both VFs
    sit on one PF, which would otherwise still switch the guest's frames
    to it)."""
    return f"52:54:00:77:00:2{index}"


def vf_nic(bdf: str, index: int, dev_id: str = "hostdev0") -> dict:
    """A destination NIC for hotplug_migrate(): the VF @bdf (the PF's VF
    @index), plain passthrough (no VFIO migration: it is unplugged first)."""
    return {"kind": "vf", "index": index, "id": dev_id,
            "device": {"driver": "vfio-pci", "host": bdf, "id": dev_id, "bus": HOTPLUG_BUS,
                       "enable-migration": "off"}}


def virtio_nic(tap: str, mac: str, dev_id: str = "hostdev0") -> dict:
    """A destination NIC for hotplug_migrate() on a host with no free VF:
    virtio-net with the guest's @mac on the tap @tap (l1lib.sh l1_tap)."""
    return {"kind": "virtio", "id": dev_id,
            "netdev": {"type": "tap", "id": f"net-{dev_id}", "ifname": tap,
                       "script": "no", "downscript": "no"},
            "device": {"driver": "virtio-net-pci", "netdev": f"net-{dev_id}", "mac": mac,
                       "id": dev_id, "bus": HOTPLUG_BUS, "romfile": ""}}


def hotplug_migrate(l1: "L1", mac: str, old: dict, new: dict, src: int = SRC_PORT,
                    dst: int = DST_PORT, timeout: float = 300, standby: bool = False) -> dict:
    """Live-migrate an L2 whose NIC driver knows nothing of migration, with QEMU's standard hot-unplug and plug.

    0. before the outage: the migration capabilities on both QEMUs;
    1. device_del of the guest's NIC (@old's id) on the source QEMU, and
       the wait for DEVICE_DELETED: the guest's PCI hotplug has removed it
       (guest-shadow, if loaded, lets go of its lower and holds transmit);
    2. in one L1 command: the source's PF gives the VF it left another MAC
       (@old is a vf_nic), then the destination's PF gives its VF the
       guest's @mac (@new is a vf_nic: idle until the plug, so it can have
       it now; one PF, so the old VF loses it first);
    3. the migration (RAM only: no VFIO device is left), polled every 0.1 s;
    4. once it completed: device_add of @new on the destination QEMU (for
       a virtio_nic, netdev_add of its tap first); guest-shadow adopts the
       new NIC, replays the configuration, announces the move.

    With @standby (the guest has a second NIC with @mac, guest-shadow's
    standby, on the PF's bridge), before step 1: the VF it leaves gives
    up @mac and its trust (trusted, the leaving igbvf's own reset in its
    remove would set @mac again: it re-sends the MAC it had), and the VF
    it arrives on is trusted and keeps its own MAC: guest-shadow sets
    @mac once that VF is ready, which is what moves the frames to it. In
    between the PF has no VF with @mac and gives the frames to its own
    port, the bridge and the standby's tap (while the old VF is still
    there, igb's overflow unicast still reaches it too).

    Every host step inside the outage (1 to 4) is one command or one wait:
    each L1 command and QMP connection costs tenths of a second here
    (bench-shadow's split_s). The destination QEMU runs with -incoming and
    no NIC on the bus. Returns the seconds of each step (unplug_s, mac_s,
    migrate_s, plug_s), when each ended
    ("at": host clock, time.time() once DEVICE_DELETED came, the migration
    completed, device_add returned) and query-migrate's last answer
    ("migration"); raises BenchError if the migration did not complete
    (the source still has no NIC then: plug @old back to give it one; the
    destination's VF has @mac already)."""
    for port in (src, dst):
        l1.qmp(port, "migrate-set-capabilities", capabilities=RETURN_PATH)
    moves = [(old, away_mac(old.get("index", 0)))] + ([] if standby else [(new, mac)])
    macs = "; ".join(f"l1_vf_mac {nic['index']} {m}" for nic, m in moves if nic["kind"] == "vf")
    if standby:
        macs = "; ".join([macs] * bool(macs) + [f"l1_vf_trust {nic['index']} {on}" for nic, on in
                                                ((old, "off"), (new, "on")) if nic["kind"] == "vf"])

    def move_macs() -> float:
        t0 = time.monotonic()
        if macs:
            l1.sh(macs)
        return time.monotonic() - t0

    t = {"mac_s": move_macs()} if standby else {}
    t["unplug_s"] = l1.device_del(src, old["id"])
    t["at"] = {"deleted": time.time()}
    if not standby:
        t["mac_s"] = move_macs()
    t0 = time.monotonic()
    l1.qmp(src, "migrate", uri=f"tcp:127.0.0.1:{MIG_PORT}")
    info = l1.migrate_wait(timeout, 0.1, src)
    t["migrate_s"] = time.monotonic() - t0
    t["at"]["migrated"] = time.time()
    t["migration"] = info
    if info.get("status") != "completed":
        raise BenchError(f"hot-plug migration did not complete: {migration_summary(info)}")
    t0 = time.monotonic()
    if new["kind"] != "vf":
        l1.qmp(dst, "netdev_add", **new["netdev"])
    l1.qmp(dst, "device_add", **new["device"])
    t["plug_s"] = time.monotonic() - t0
    t["at"]["plugged"] = time.time()
    return t




# What a VF's reset runs inside (vfio-pci holds memory_lock for write
# there): the reset ioctls and the PCI core's reset functions that call
# the driver's reset_done.
RESET_PATH_RE = re.compile(r"\b(pci_try_reset_function|pci_reset_function|"
                           r"__pci_reset_function_locked|pci_dev_restore|pci_reset_bus|"
                           r"vfio_pci_ioctl_reset|vfio_pci_dev_set_hot_reset|"
                           r"cvf_err_reset_done|cvf_reset_done)\b")

# compsc_vfio's cleanup of a migration: what must not run inside a reset
# (vfio_unpin_pages() takes type1's iommu->lock, a data fd's lock is held
# across copy_to_user(); both are taken outside memory_lock elsewhere)
CLEANUP_CALLS = ("vfio_unpin_pages", "cvf_file_disable")


def inside_reset(calls: list) -> list:
    """Those of @calls (L1.call_stacks()) made from inside a reset."""
    return [(fn, frames) for fn, frames in calls
            if any(RESET_PATH_RE.search(f) for f in frames)]


def _probe_stacks(trace: str, probes: dict) -> list:
    """[(function, [frames])] from tracefs output with kprobe events
    named after @probes' keys, each followed by its stack trace."""
    out = []
    for line in trace.splitlines():
        m = re.search(r": (p\d+): \(", line)
        if m and m[1] in probes:
            out.append((probes[m[1]], []))
        elif line.lstrip().startswith("=> ") and out:
            out[-1][1].append(line.split("=> ", 1)[1].strip())
    return out


@dataclass
class Case:
    """One migration of the L2 pair, described rather than written out
    (as QEMU's migration tests describe theirs): how the pair starts, what
    runs before and while it migrates, and how it must end. L1.run_case()
    runs it and checks what every such migration must show: "completed",
    the guest on the destination with its state carried (L1.arrived());
    "failed" or "cancelled", the guest on the source with its device
    (L1.kept_device())."""
    expect: str = "completed"
    params: dict = None             # migrate-set-parameters; None: ALL_DIRTY
    env: str = ""                   # l2_start's variables for both L2s
    src_extra: str = ""             # more QEMU arguments for the source
    dst_extra: str = ""             # ... and for the destination
    start_hook: Callable = None     # (l1) once the pair is up; its value: Outcome.hooked
    during: Callable = None         # (l1) once the migration has started
    timeout: float = 300
    src_up: bool = False            # the source runs on: start only a new destination


@dataclass
class Outcome:
    """What L1.run_case() saw, for a test's own checks: query-migrate's
    last answer, L1's kernel log from the migration's start, the source's
    l2stat line before it and the guest's after it, the start hook's value."""
    res: dict
    log: str
    before: dict
    after: dict
    hooked: Any = None


def restores(stat: dict) -> int:
    """The CompSC restore count of an l2stat line (-1: the line has none)."""
    return int(stat.get("compsc_restores", -1))


# How the stream's shutdown by migrate_cancel shows when the migration
# thread meets it before it sees the cancel: on a read (the return path)
# or on a write to the socket.
CANCEL_SHUTDOWN = re.compile(r"Channel error: Input/output error|"
                             r"Unable to write to socket: Broken pipe")


def cancelled(res: dict) -> bool:
    """Whether migrate_cancel ended the migration of query-migrate's @res:
    "cancelled", or "failed" on the channel the cancel shut down. The
    cancel shuts the stream down, and QEMU's migration thread, if it read
    the state just before, takes that shutdown for a stream error and
    fails instead (migration_detect_error()): the same end for the VM and
    its device."""
    return res.get("status") == "cancelled" or (
        res.get("status") == "failed"
        and bool(CANCEL_SHUTDOWN.search(res.get("error-desc", ""))))


def answers(peer, tries: int = 6, pause: float = 5) -> int:
    """Replies (of 5 pings) from the L2 once it answers at least 3, or the
    last count after @tries rounds @pause s apart: a VF coming back from a
    reset or a driver load needs a few seconds under TCG inside TCG."""
    got = 0
    for _ in range(tries):
        got = peer.ping(L2_IP, count=5, interval=0.5).received
        if got >= 3:
            break
        time.sleep(pause)
    return got


def migration_summary(info: dict) -> str:
    """One line from query-migrate's answer, for the test logs."""
    return (f"{info.get('status')}, downtime {info.get('downtime')} ms,"
            f" total {info.get('total-time')} ms"
            + (f", error: {info['error-desc']}" if "error-desc" in info else ""))


# compsc_vfio's kernel log on the wait for receive paths at a DMA log start
# (hypervisor-glue/vfio/dirty.c cvf_log_drain()).
LOG_DRAINED = re.compile(r"DMA log: receive paths that read the flag before it was set "
                         r"have left \(waited (\d+) us\)")
LOG_WHOLE = "the log reports whole windows"


# igbvf's debugfs test hook: each receive poll that reads the dirty-log flag
# clear stalls this long before its buffers, and the polls that then found
# the flag set are counted
RX_STALL_HOOK = "/sys/kernel/debug/igbvf/*/compsc_rx_stall_ms"
RX_STALL_RACED = "/sys/kernel/debug/igbvf/*/compsc_rx_stall_raced"


def rx_stall_raced(guest) -> list:
    """@guest's compsc_rx_stall_raced, one count per igbvf device."""
    out = guest.run(f"{MOUNT_DEBUGFS}; cat {RX_STALL_RACED}")
    return [int(x) for x in re.findall(r"^\s*(\d+)\s*$", out, re.M)]


def log_drain_summary(dmesg: str) -> tuple:
    """From L1's kernel log: the waits that saw the receive paths leave (us
    each) and how many times the log reported a whole window instead."""
    return [int(us) for us in LOG_DRAINED.findall(dmesg)], dmesg.count(LOG_WHOLE)


def last_stat(stats: list, key: str):
    """The last value of @key in l2stat lines @stats (None: never shown)."""
    vals = [int(s[key]) for s in stats if key in s]
    return vals[-1] if vals else None


def longest_quiet(trace, since: float, until: float) -> float:
    """Longest stretch without a reply in a ping @trace from the first
    reply after @since until @until (infinite if none came): a stalled
    transmit queue, or frames still switched to the host the guest left,
    shows."""
    ts = sorted(t for t, _ in trace.replies if since <= t <= until)
    if not ts:
        return float("inf")
    return max([b - a for a, b in zip(ts, ts[1:])] + [until - ts[-1]])


def check_migrated(*hosts_vfs) -> None:
    """For each (host, VF address) of @hosts_vfs, compsc_vfio's record of
    the VF's last migration (as `compsc devices` shows it) is `ok`: a save
    on the source, a hand-over on the destination."""
    for host, vf in hosts_vfs:
        lm = host.last_migrations()[vf]
        assert lm and lm["source"] == "compsc_vfio" and lm["status"] == "ok", (host.name, vf, lm)


def check_vf0_migrated(*hosts) -> None:
    """check_migrated() of VF0 on each of @hosts."""
    check_migrated(*((host, host.vf0) for host in hosts))


def check_carried(after: list, rx0: int, restores0: int, resets0: int) -> None:
    """l2stat lines @after one migration show the state carried: one more
    restore, done by the host's configuration (no mailbox message), no
    reset, counters going on from @rx0, rings shifted, and a transmit
    after the restore."""
    assert last_stat(after, "compsc_restores") == restores0 + 1, after[-1]
    assert last_stat(after, "compsc_host_restores") == restores0 + 1, after[-1]
    assert last_stat(after, "compsc_restore_msgs") == 0, after[-1]
    assert last_stat(after, "compsc_resets") == resets0, after[-1]
    assert last_stat(after, "rx_packets") > rx0, (rx0, after[-1])
    assert min(int(s["rx_packets"]) for s in after) >= rx0, "rx counter went back"
    assert int(after[-1]["compsc_rx_shift_total"]) + int(after[-1]["compsc_tx_shift_total"]) > 0
    # the guest timed its restore, and the replies the peer got were sent after it
    assert int(after[-1]["compsc_restore_us"]) > 0, after[-1]
    assert int(after[-1]["compsc_first_xmit_us"]) > 0, after[-1]


# An L2's NIC (its only interface besides lo), and the configuration
# configure_guest() gives it
L2_IF = "$(ls /sys/class/net | grep -v '^lo$' | head -1)"
GUEST_MTU = 9000
GUEST_VID = 100
GUEST_VLAN_ADDR = f"10.77.{GUEST_VID}.10"
GUEST_GROUP = "239.1.2.3"


def configure_guest(l1: L1, name: str, peer) -> None:
    """The L2 @name on @l1 gets MTU GUEST_MTU (the peer's bridge too),
    VLAN GUEST_VID and the multicast group GUEST_GROUP, answering
    broadcast and multicast pings."""
    for dev in (*peer._taps, peer.bridge):
        peer.run(["ip", "link", "set", "dev", dev, "mtu", str(GUEST_MTU)])
    l1.l2(name).run(f"echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts && "
                    f"ip link set {L2_IF} mtu {GUEST_MTU} && "
                    f"ip link add link {L2_IF} name vl{GUEST_VID} type vlan id {GUEST_VID} && "
                    f"ip addr add {GUEST_VLAN_ADDR}/24 dev vl{GUEST_VID} && "
                    f"ip link set vl{GUEST_VID} up && ip addr add {GUEST_GROUP}/32 dev {L2_IF} autojoin")


def guest_config_unanswered(peer) -> list:
    """What of configure_guest()'s configuration the peer's traffic found
    not working (a tagged ARP, a jumbo ping, a multicast ping): [] if all."""
    bad = []
    if vlan_arp(peer, GUEST_VID, GUEST_VLAN_ADDR) < 2:
        bad.append(f"VLAN {GUEST_VID}")
    r = peer.run(["ping", "-n", "-c", "3", "-i", "0.3", "-s", str(GUEST_MTU - 28), "-M", "do",
                  "-w", "20", L2_IP], timeout=30, check=False)
    if r.out.count("bytes from") < 2:
        bad.append(f"MTU {GUEST_MTU}: {r.out}")
    r = peer.run(f"ping -n -c 3 -i 0.3 -w 20 -I {peer.bridge} {GUEST_GROUP}", timeout=30,
                 check=False)
    if r.out.count("bytes from") < 2:
        bad.append(f"group {GUEST_GROUP}: {r.out}")
    return bad
