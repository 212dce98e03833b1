"""An L2 guest of the nested bench, as the tests address it: one object
with its name, VF and QMP port (L2), and the l2stat lines it prints
(L2Stat). The L1 (nested.L1) runs the L2's QEMU; an L2 is what a test
calls about one guest: start it, run a command in it, read its status,
ask its QEMU."""

import re
import shlex
import time
import warnings

from compsc_harness import qemucmd
from compsc_harness.vm import BenchError, vf_ip

# The L2 QEMUs' QMP servers (source, destination) listen on these ports on
# L1's management NIC, and L1's user netdev forwards the same ports from
# 127.0.0.1 in the peer's namespace, where Peer.connect() reaches them; a
# destination QEMU waits for its migration on MIG_PORT.
SRC_PORT, DST_PORT, MIG_PORT = 5551, 5552, 4444
# Every L2's address: the guest under test answers the peer there, on
# whichever VF and host it runs now.
L2_IP = vf_ip(0)
# Where L1 mounts the bench's share: the L2 kernel and initrd (l1lib.sh S)
L1_SHARE = "/mnt/share"
# the virtio-net baseline's MAC (l2_nic(); libvirt_nested.py's domains too)
VIRTIO_MAC = "52:54:00:12:34:99"
# What a test may set for one L2's start (L2.start()'s @env), and the
# default of each: L2ACCEL "kvm" (KVM in L1, l1lib.sh l1_kvm) or "tcg";
# L2MEM in MiB; L2APPEND, more of its kernel command line (l2-init reads
# l2nic=, l2integ=...); L2VIOMMU=1, behind an emulated Intel IOMMU that
# the L2 kernel turns on; for its VF (vfio-pci): L2MIG, enable-migration;
# L2NOMMAP, x-no-mmap (its BAR trapped: type1's dirty bitmap, which the
# all-dirty migrations need, fails on a mapped BAR); VFIOOPTS, more
# vfio-pci properties.
L2_VARS = {"L2ACCEL": "kvm", "L2MEM": "256", "L2APPEND": "", "L2VIOMMU": "",
           "L2MIG": "on", "L2NOMMAP": "on", "VFIOOPTS": ""}


def l2_vars(env: str) -> dict:
    """@env ("L2MEM=512 L2APPEND='l2nic=dpdk'", shell words) as a dict
    over L2_VARS's defaults; ValueError for a variable it does not know."""
    out = dict(L2_VARS)
    for word in shlex.split(env):
        key, _, value = word.partition("=")
        if key not in L2_VARS:
            raise ValueError(f"not an L2 variable: {word!r} (L2_VARS)")
        out[key] = value
    return out


def l2_nic(name: str, dev: str, v: dict) -> list:
    """The QEMU NIC arguments of the L2 @name: @dev a VF's BDF (passed
    through, vfio-pci), "virtio" (virtio-net on the tap l1lib.sh l2_tap
    made, the paravirtual baseline) or "none" (no NIC: where the unplug
    baseline plugs one in later)."""
    if dev == "none":
        return []
    if dev == "virtio":
        return ["-netdev", f"tap,id=v0,ifname=tap-{name},script=no,downscript=no",
                "-device", f"virtio-net-pci,netdev=v0,mac={VIRTIO_MAC},bus=rp1,romfile="]
    opts = f",{v['VFIOOPTS']}" if v["VFIOOPTS"] else ""
    return ["-device", f"vfio-pci,host={dev},id=hostdev0,bus=rp1,"
            f"enable-migration={v['L2MIG']},x-no-mmap={v['L2NOMMAP']}{opts}"]


def l2_argv(name: str, dev: str, port: int, qmp_ip: str, v: dict) -> list:
    """The L2 @name's QEMU arguments (the binary is L1's, l1lib.sh
    l2_exec): the bench's q35 guest (qemucmd.q35()) on KVM in L1 with
    L1's CPU (-cpu host: SSE4.2 included; a -cpu in the test's extra
    arguments comes later and wins) or on TCG, its console on ttyS0 and
    its command pipe on ttyS1, QMP on @qmp_ip:@port, and its NIC on @dev.
    @v: l2_vars()."""
    append = f"console=ttyS0 quiet panic=-1 no_timer_check l2ip={L2_IP}"
    append += " intel_iommu=on" if v["L2VIOMMU"] else ""
    append += f" {v['L2APPEND']}" if v["L2APPEND"] else ""
    kvm = v["L2ACCEL"] != "tcg"
    return qemucmd.q35(
        accel="kvm" if kvm else "tcg", cpu="host" if kvm else None, mem=int(v["L2MEM"]),
        kernel=f"{L1_SHARE}/l2/vmlinuz", initrd=f"{L1_SHARE}/l2/initrd.img", append=append,
        iommu="intel-iommu,caching-mode=on,intremap=off" if v["L2VIOMMU"] else None) + [
        "-serial", f"file:/run/{name}.log", "-serial", f"pipe:/run/{name}.ctl",
        "-qmp", f"tcp:{qmp_ip}:{port},server=on,wait=off"] + l2_nic(name, dev, v)


def early_boot_panic(console: str) -> bool:
    """The L2 kernel panicked on its boot CPU before init ran (see
    L2._reboot): a panic whose trace reaches start_kernel."""
    panic = console.find("Kernel panic")
    return panic >= 0 and "start_kernel+" in console[:panic] and "l2: " not in console


class L2Silent(AssertionError):
    """An L2 printed no awaited line in time: a guest command or status
    line that did not come (tests/nested/README.md, "A guest that falls
    silent"). Still an AssertionError: a test fails on it unless it says
    otherwise."""


class L2Stat(dict):
    """One whole l2stat line of an L2's console (l2-init): "up" and its
    counters. A key it lacks fails with the line instead of a KeyError
    (ethtool -S in the L2 failed: its NIC was gone, say)."""
    _RE = re.compile(r"(l2stat .*) len=(\d+)\s*$")

    def __init__(self, line: str, kv: dict):
        super().__init__(kv)
        self.line = line

    def __missing__(self, key):
        raise AssertionError(f"the L2's l2stat line has no {key}: {self.line!r}")

    @classmethod
    def parse(cls, line: str):
        """The L2Stat of a whole line; None for any other line, or one
        cut or unfinished (its length is not what l2-init said)."""
        m = cls._RE.match(line[max(line.find("l2stat "), 0):])
        if not m or len(m[1]) != int(m[2]):
            return None
        words = m[1].split()[1:]
        kv = dict(x.split("=", 1) for x in words if "=" in x)
        kv.update(dict(x.split(":", 1) for x in words if ":" in x))
        return cls(m[1], kv)


class L2:
    """One L2 guest: its @name (console /run/NAME.log and pid file in
    L1), the VF it runs on and the port of its QEMU's QMP server (both
    None for a guest another program started, libvirt say, whose console
    the L1 keeps under the same name). Got from L1.l2(); every L1 keeps
    one object per name."""

    def __init__(self, l1, name: str, vf: str = None, port: int = None):
        self.l1, self.name, self.vf, self.port = l1, name, vf, port
        self._args = None               # start()'s arguments, for a reboot
        self._rebooted = False          # booted again since start()
        self.stat_unfinished = 0        # see stats()

    def __repr__(self):
        return f"L2({self.name!r}, vf={self.vf}, port={self.port})"

    # -- the QEMU process
    def start(self, extra: str = "", env: str = "", vf: str = None,
              port: int = None) -> "L2":
        """Start this L2 on @vf (a VF's BDF, "virtio" or "none": l2_nic())
        with QMP on @port (both default to the last ones); @extra: more
        QEMU arguments (shell words); @env: L2_VARS to set (shell words),
        over the L1's own defaults (L1.l2_vars)."""
        self.vf, self.port = vf or self.vf, port or self.port
        self._args = (extra, env)
        self._rebooted = False
        v = l2_vars(f"{self.l1.l2_vars} {env}")
        if self.vf == "virtio":
            self.l1.sh(f"l2_tap {self.name}")
        argv = l2_argv(self.name, self.vf, self.port, self.l1.mgmt_ip, v) + shlex.split(extra)
        self.l1.sh(f"l2_exec {self.name} {shlex.join(argv)}")
        return self

    def start_incoming(self, extra: str = "", env: str = "", to: int = MIG_PORT,
                       wait: bool = True, vf: str = None, port: int = None) -> "L2":
        """A fresh QEMU for this L2 (the one running stopped first), waiting
        for a migration on 127.0.0.1:@to (start(), with @vf and @port);
        with @wait False, returns before it listens (wait_incoming())."""
        self.stop()
        self.start(f"-incoming tcp:127.0.0.1:{to} {extra}".rstrip(), env, vf=vf, port=port)
        if wait:
            self.wait_incoming()
        return self

    def stop(self) -> None:
        """Kill this L2's QEMU and wait until it is gone (L1.l2_stop())."""
        self.l1.l2_stop(self.name)

    def qmp(self, command: str, timeout: float = 30, **args):
        """@command with @args to this L2's QEMU (L1.qmp())."""
        return self.l1.qmp(self.port, command, timeout=timeout, **args)

    def status(self, timeout: float = 30) -> str:
        """Its QEMU's run state ("running", "inmigrate", ...)."""
        return self.l1.l2_status(self.port, timeout)

    def wait_incoming(self, timeout: float = 120) -> None:
        """Until its QEMU (started with -incoming) waits for a migration."""
        self.l1.wait_incoming(self.port, timeout)

    # -- the console and commands
    def log(self) -> str:
        return self.l1.sh(f"cat /run/{self.name}.log", check=False).out

    def cmd(self, cid: str, cmd: str) -> None:
        """Run @cmd in this L2 (the QEMU it runs in now) without waiting;
        its console says "l2ctl: @cid start" and, once done, "l2ctl: @cid
        rc=RC" (wait_line)."""
        self.l1.sh(f"l2_cmd {self.name} {cid} {shlex.quote(cmd)}", timeout=30)

    def run(self, cmd: str, timeout: float = 120) -> str:
        """Run @cmd in this L2 and wait for it: what it printed on the
        console, without l2-init's own lines (the status loop and other
        commands share it; the L2 kernel's messages may still be among
        it); BenchError naming @cmd if it exits non-zero."""
        rc, out = self._command(f"run{time.monotonic_ns()}", cmd, timeout)
        if rc != "0":
            raise BenchError(f"in L2 {self.name}: {cmd!r} failed (rc={rc}):\n{out[-2000:]}")
        return out

    def kmemleak(self, timeout: float = 360) -> str:
        """A kmemleak scan in this running L2 (debug L2 kernel): its
        report, "" when clean. Printed on the L2's console, where the
        console scan counts it too."""
        rc, out = self._command(
            f"kml{time.monotonic_ns()}",
            "mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
            "k=/sys/kernel/debug/kmemleak; "
            "[ -e $k ] && echo scan > $k && sleep 1 && echo scan > $k && cat $k", timeout)
        if rc != "0":
            raise BenchError(f"kmemleak scan in L2 {self.name} failed (rc={rc}):\n{out[-2000:]}")
        return out

    def _command(self, cid: str, cmd: str, timeout: float) -> tuple:
        """Run @cmd as @cid and wait: (its exit code, what it printed)."""
        mark = len(self.log())
        self.cmd(cid, cmd)
        m = self.wait_line(rf"l2ctl: {cid} rc=(\d+)", timeout=timeout)
        log = self.log()[mark:]
        out = log[log.find(f"l2ctl: {cid} start"):log.find(f"l2ctl: {cid} rc=")]
        out = "".join(line for line in out.splitlines(keepends=True)[1:]
                      if "l2stat " not in line and "l2ctl: " not in line)
        return m[1], out

    def wait_line(self, pattern: str, timeout: float = 120) -> re.Match:
        """The first match of @pattern in this L2's console, once there;
        L2Silent after @timeout s (times the L1's slow)."""
        t0, timeout = time.monotonic(), timeout * self.l1.slow
        while time.monotonic() - t0 < timeout:
            m = re.search(pattern, self.log())
            if m:
                return m
            time.sleep(1)
        raise L2Silent(f"{pattern!r} not in {self.name}'s console in {timeout} s:\n"
                       f"{self.log()[-2000:]}")

    def wait_up(self, timeout: float = 400) -> float:
        """Seconds until this L2 said it is up; BenchError after @timeout
        s (times the L1's slow)."""
        t0, timeout = time.monotonic(), timeout * self.l1.slow
        while time.monotonic() - t0 < timeout:
            log = self.log()
            if "l2: up" in log:
                return time.monotonic() - t0
            if early_boot_panic(log):
                self._reboot(log)
            # an L2 on KVM is up in a few seconds: a coarser poll would
            # add its own wait to every test
            time.sleep(1)
        raise BenchError(f"L2 {self.name} did not come up:\n{self.log()[-3000:]}\n"
                         f"{self.l1.sh(f'cat /run/{self.name}.qemu', check=False).out}")

    def wait_up_again(self, mark: int, timeout: float = 400) -> None:
        """Until this L2, reset in place when its console was @mark
        characters long, says it is up again; BenchError after @timeout s
        (times the L1's slow)."""
        t0, timeout = time.monotonic(), timeout * self.l1.slow
        while "l2: up" not in self.log()[mark:]:
            if time.monotonic() - t0 >= timeout:
                raise BenchError(f"L2 {self.name} did not come up again:\n"
                                 f"{self.log()[-3000:]}")
            time.sleep(3)

    def _reboot(self, log: str) -> None:
        """Start this L2 again after its kernel panicked in start_kernel(),
        once per start(); BenchError the second time.

        Debian's kernel takes interrupts in setup_IO_APIC(); a legacy one
        that arrives in mp_irqdomain_alloc() between the pin's irq getting
        the IO-APIC's chip and that chip's data finds NULL chip_data in
        io_apic_modify_irq() (seen once, on 2026-11-27, under TCG).
        No CompSC code has run by then (igbvf is a module l2-init loads)
        and the test has not begun, so a second boot is not a retry of
        anything under test. The console is kept out of /run/l2logs, where
        the debug run's final scan would fail the test on it."""
        trace = "\n".join(line for line in log.splitlines()
                          if re.search(r"BUG:|RIP:|Kernel panic", line))
        panics = self.l1.boot_panics
        if self._rebooted:
            raise BenchError(f"L2 {self.name}'s kernel panicked in early boot again "
                             f"(the first: {panics[-1]!r}):\n{log[-3000:]}")
        panics.append(trace)
        warnings.warn(f"L2 {self.name}: the kernel panicked in start_kernel(), "
                      f"before any CompSC code; booted once more:\n{trace}")
        self.stop()
        self.l1.sh(f"mkdir -p /run/l2panics; "
                   f"mv /run/{self.name}.log /run/l2panics/{self.name}.$(date +%s%N).log")
        self.start(*self._args)
        self._rebooted = True

    # -- the status lines
    def stats(self) -> list:
        """Every l2stat line so far that arrived whole, as L2Stat dicts.

        The console is read while QEMU still writes it, so its last line
        may be unfinished, and the L2 kernel's messages can cut into a
        line; l2-init ends each line in its length to tell (a cut line
        once made test_migrate_state_carried fail with a KeyError).
        Counted in self.stat_unfinished (the last line) and stat_cut()
        (lines before it)."""
        out = []
        lines = self.log().splitlines()
        for i, line in enumerate(lines):
            stat = L2Stat.parse(line)
            if stat is not None:
                out.append(stat)
            elif "l2stat " in line and i == len(lines) - 1:
                self.stat_unfinished += 1
        return out

    def stat_cut(self) -> list:
        """The l2stat lines of the console, but for its last, that did not
        arrive whole (the kernel's messages cut into them)."""
        return [line for line in self.log().splitlines()[:-1]
                if "l2stat " in line and L2Stat.parse(line) is None]

    def wait_stat(self, key: str = "", timeout: float = 120, pred=None,
                  after: int = 0) -> list:
        """The l2stat lines once one past the first @after carries @key
        (and satisfies @pred, given the line's dict).

        The first line on a destination may have been read on the source,
        and the status loop is slow right after a migration: wait for a
        line that proves what it shows, never for a fixed time. @timeout
        is multiplied by the L1's slow."""
        t0, timeout = time.monotonic(), timeout * self.l1.slow
        while time.monotonic() - t0 < timeout:
            stats = self.stats()
            if any((not key or key in s) and (pred is None or pred(s))
                   for s in stats[after:]):
                return stats
            time.sleep(2)
        raise BenchError(f"no l2stat with {key or 'it'} from {self.name} in {timeout} s:\n"
                         f"{self.log()[-2000:]}")

    def stat_since(self, mark: int, timeout: float = 120) -> dict:
        """An l2stat line read after the caller's moment, given @mark =
        len(stats()) at that moment. One line may be under way then
        (being read, or echoed but still in the guest's tty buffer) and
        the next may have begun before it reached the log: the third new
        line began after the moment."""
        return self.wait_stat(timeout=timeout, after=mark + 2)[mark + 2]

    def stat_next(self, timeout: float = 120) -> dict:
        """An l2stat line read after now (stat_since)."""
        return self.stat_since(len(self.stats()), timeout=timeout)

    def stat_now(self) -> dict:
        """The latest l2stat line with a CompSC restore count (once there
        is one): the count before a migration."""
        return [s for s in self.wait_stat("compsc_restores")
                if "compsc_restores" in s][-1]

    def wait_restores(self, n: int, timeout: float = 120) -> dict:
        """The first l2stat line showing @n CompSC restores or more (the
        first lines on a destination may have been read on the source)."""
        stats = self.wait_stat("compsc_restores", timeout=timeout,
                               pred=lambda s: int(s["compsc_restores"]) >= n)
        return next(s for s in stats if int(s.get("compsc_restores", -1)) >= n)
