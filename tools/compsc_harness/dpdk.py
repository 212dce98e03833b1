"""compsc_harness.dpdk: DPDK's testpmd on a bench VF, on top of .vm and .mig.

The VF goes to vfio-pci in no-IOMMU mode (guest/dpdk-vf), and testpmd
(built by `make dpdk`, which `make vm-test` runs, with the CompSC igb VF PMD, drivers/dpdk) answers the
peer's ARP and pings on it (`--forward-mode=icmpecho`), printing the port's
statistics every second. The PMD logs each CompSC restore; this module
reads those lines and the statistics back from testpmd's log.

    tp = TestPmd.start(vm, vf)     # skips when the image has no testpmd
    ...                            # peer pings vf.ip, migrations
    tp.stop()                      # SIGINT: testpmd prints final stats

With interactive=True testpmd reads its prompt from a FIFO instead of
printing statistics every second: tp.command("show port xstats 0"),
tp.xstats(); fresh_stats() then asks for the statistics.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest

from .mig import migrate
from .vm import VF, VM

TESTPMD = "/usr/bin/dpdk-testpmd"
LOG = "/tmp/testpmd.log"
PIDF = "/tmp/testpmd.pid"
# Interactive mode: testpmd's stdin, and the pid of the process that keeps
# it open for writing (testpmd quits at end of file)
FIFO = "/tmp/testpmd.in"
HOLDER = "/tmp/testpmd.holder"
# testpmd prints command output through stdio into a file, which would
# hold it until exit: line-buffered, as coreutils' `stdbuf -oL` does it
# (the image carries libstdbuf.so with testpmd)
STDBUF = "LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L"
XSTATS_HDR = "NIC extended statistics for port 0"
# One restore line per migration (igb_compsc.c, PMD log type
# pmd.net.e1000.init at INFO); the PF messages since 0008, the receive
# descriptors dropped because guest memory moved since 0010.
RESTORE_RE = re.compile(r"port (\d+): CompSC restore (\d+): rx shift (\d+), "
                        r"tx shift (\d+), (\d+) us(?:, (\d+) PF messages)?"
                        r"(?:, (\d+) rx dropped stale)?")


def require_testpmd(vm: VM) -> None:
    """Skip, naming the command, when the image carries no testpmd."""
    if vm.run(f"test -x {TESTPMD}", check=False).rc != 0:
        pytest.skip("no DPDK in the bench image: it was built with "
                    "BENCH_DPDK=no (mk/bench.mk); `make vm-test` builds "
                    "testpmd (make dpdk) and carries it by default")


def peer_tap(peer) -> dict:
    """The peer's tap counters: frames the peer sent towards the guest
    (the tap's tx) and got from it (its rx), as compsc-bench reads them."""
    r = peer.run(f"cd /sys/class/net/{peer._taps[0]}/statistics && "
                 "echo $(cat tx_packets) $(cat rx_packets)")
    sent, got = map(int, r.out.split())
    return {"peer_sent": sent, "peer_received": got}


@dataclass
class Restore:
    count: int
    rx_shift: int
    tx_shift: int
    us: int
    msgs: int = 0
    rx_dropped: int = 0     # stale: guest memory moved (copied=1)


class TestPmd:
    """testpmd in the background of the guest, on one VF."""

    __test__ = False  # not a pytest class

    def __init__(self, vm: VM, vf: VF, pid: int, interactive: bool,
                 port: int = 0):
        self.vm, self.vf, self.pid = vm, vf, pid
        self.interactive, self.port = interactive, port

    @staticmethod
    def launch(bdfs: list, interactive: bool = False, eal: str = "", app: str = "") -> str:
        """The guest shell command that starts testpmd in the background
        on the PCI devices @bdfs (on vfio-pci already): its output in LOG,
        its pid in PIDF; @eal, @app: more EAL and testpmd options."""
        # Two lcores on the one vCPU: testpmd forwards on a lcore other
        # than the main one, which sleeps between statistics prints (or
        # waits for a command).
        mode = ("-i --auto-start" if interactive else "--stats-period=1")
        allow = " ".join(f"-a {b}" for b in bdfs)
        cmd = (f"{TESTPMD} --lcores=0@0,1@0 -n 1 --iova-mode=pa "
               f"--file-prefix=compsc {allow} {eal} "
               "--log-level=pmd.net.e1000.init:info -- "
               f"--forward-mode=icmpecho {mode} {app} "
               "--total-num-mbufs=2048 --rxd=256 --txd=256")
        # In the background of the agent's command, which returns at once;
        # the agent kills a command's process group only on its timeout.
        # Interactive: stdin is the FIFO, opened (so both opens return)
        # by a holder whose only other descriptors are /dev/null.
        stdin, holder = "/dev/null", ""
        if interactive:
            cmd = f"env {STDBUF} {cmd}"
            stdin = FIFO
            holder = (f"rm -f {FIFO}; mkfifo {FIFO}; sleep 100000 2>/dev/null "
                      f"< /dev/null > {FIFO} & echo $! > {HOLDER}; ")
        return (f"rm -f {PIDF}; {holder}sh -c 'echo $$ > {PIDF}; exec {cmd}' "
                f"> {LOG} 2>&1 < {stdin} &")

    @classmethod
    def start(cls, vm: VM, vf: VF, timeout: float = 120,
              interactive: bool = False, eal: str = "", app: str = "",
              port: int = 0) -> "TestPmd":
        """eal, app: more EAL and testpmd options (make bench-dpdk's bond:
        vdevs, --portlist); port: the port whose statistics are read."""
        require_testpmd(vm)
        vm.run(f"dpdk-vf {vf.bdf}", timeout=60)
        vm.run(cls.launch([vf.bdf], interactive, eal, app))
        pid = vm.run(f"for i in $(seq 50); do test -s {PIDF} && break; "
                     f"sleep 0.1; done; cat {PIDF}").out.strip()
        tp = cls(vm, vf, int(pid), interactive, port)
        if interactive:
            tp.wait_for("Start automatic packet forwarding", timeout)
            tp.fresh_stats(timeout)
        else:
            tp.wait_for(tp.stats_hdr, timeout)
        return tp

    @property
    def stats_hdr(self) -> str:
        return f"NIC statistics for port {self.port}"

    def command(self, line: str) -> None:
        """One line to the interactive prompt (its output goes to the log)."""
        assert self.interactive and "'" not in line, line
        # bounded: with testpmd gone the FIFO has no reader, and the open
        # for writing would wait for one forever
        self.vm.run(f"timeout 5 sh -c \"echo '{line}' > {FIFO}\"")

    def xstats(self, timeout: float = 10) -> dict:
        """`show port xstats 0`, as a dict of ints: the VF's xstats, then
        the PMD's compsc_* ones."""
        n = self.log().count(XSTATS_HDR)
        self.command("show port xstats 0")
        deadline = time.time() + timeout
        while True:
            out = self.log()
            # complete once the prompt follows the block
            if out.count(XSTATS_HDR) > n and "testpmd> " in out.rsplit(XSTATS_HDR, 1)[1]:
                break
            if time.time() > deadline:
                raise AssertionError(f"testpmd showed no xstats for {timeout} s:"
                                     f"\n{out[-2000:]}")
            time.sleep(0.5)
        block = out.rsplit(XSTATS_HDR, 1)[1].split("testpmd> ", 1)[0]
        return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+): (\d+)$", block, re.M)}

    def log(self) -> str:
        return self.vm.get(LOG)

    def alive(self) -> bool:
        return self.vm.run(f"kill -0 {self.pid}", check=False).rc == 0

    def wait_for(self, text: str, timeout: float) -> str:
        deadline = time.time() + timeout
        while True:
            out = self.log()
            if text in out:
                return out
            if not self.alive():
                dmesg = self.vm.run("dmesg | tail -20", check=False).out
                raise AssertionError(f"testpmd exited:\n{out[-3000:]}\n"
                                     f"guest kernel log:\n{dmesg}")
            if time.time() > deadline:
                raise AssertionError(f"testpmd: no '{text}' after {timeout} s:"
                                     f"\n{out[-3000:]}")
            time.sleep(1)

    def wait_restores(self, n: int, timeout: float = 30) -> list[Restore]:
        """The restore lines once there are n of them (or at the timeout)."""
        deadline = time.time() + timeout
        while True:
            rs = self.restores()
            if len(rs) >= n or time.time() > deadline:
                return rs
            time.sleep(0.5)

    def restores(self) -> list[Restore]:
        return [Restore(int(m[2]), int(m[3]), int(m[4]), int(m[5]),
                        int(m[6] or 0), int(m[7] or 0))
                for m in RESTORE_RE.finditer(self.log())]

    def port_stats(self) -> dict:
        """The port's counters as testpmd printed them last (HW stats
        through the PMD's stats_get): rx_packets, tx_packets, ..."""
        out = self.log()
        blocks = out.split(self.stats_hdr)
        if len(blocks) < 2:
            return {}
        last = blocks[-1]
        st = {}
        for k, name in (("RX-packets", "rx_packets"), ("TX-packets", "tx_packets"),
                        ("RX-bytes", "rx_bytes"), ("TX-bytes", "tx_bytes"),
                        ("RX-errors", "rx_errors"), ("TX-errors", "tx_errors")):
            m = re.search(rf"{k}:\s*(\d+)", last)
            if m:
                st[name] = int(m.group(1))
        return st

    def fwd_tx_dropped(self, out: str) -> int:
        """The replies testpmd itself dropped (its forward statistics'
        TX-dropped, printed when it stops), -1 if absent from @out."""
        m = re.search(rf"Forward statistics for port {self.port}.*?TX-dropped: (\d+)",
                      out, re.S)
        return int(m.group(1)) if m else -1

    def fresh_stats(self, timeout: float = 10) -> dict:
        """Statistics printed after this call (testpmd prints every second,
        or, interactive, when asked)."""
        n = self.log().count(self.stats_hdr)
        if self.interactive:
            self.command(f"show port stats {self.port}")
        deadline = time.time() + timeout
        while self.log().count(self.stats_hdr) <= n:
            if time.time() > deadline:
                raise AssertionError("testpmd printed no statistics for "
                                     f"{timeout} s:\n{self.log()[-2000:]}")
            time.sleep(0.5)
        return self.port_stats()

    def stop(self) -> str:
        """SIGINT: testpmd stops forwarding, closes the port, exits (also
        interactive: `quit` first, as the prompt restarts its read after
        SIGINT). Then the FIFO's holder goes."""
        if self.interactive and self.alive():
            self.vm.run(f"timeout 5 sh -c \"echo quit > {FIFO}\"", check=False)
        self.vm.run(f"kill -INT {self.pid} 2>/dev/null; "
                    f"for i in $(seq 100); do kill -0 {self.pid} 2>/dev/null "
                    "|| break; sleep 0.2; done", check=False, timeout=60)
        if self.interactive:
            self.vm.run(f"test -s {HOLDER} && kill $(cat {HOLDER}); rm -f {HOLDER} {FIFO}",
                        check=False)
        return self.log()


class BondMethod:
    """DPDK's documented live migration of a VM with a VF (doc/guides/
    howto/lm_bond_virtio_sriov.rst), testpmd's side: an active-backup
    bond (net_bonding, mode 1) over the VF and a backup port, forwarding
    on the bond only. Before the move the backup becomes the primary and
    the VF leaves the bond, is stopped, closed and detached; after it the
    VF (the destination's, at the same address) is attached, re-added
    and made the primary again. Each step is a testpmd command and the
    text its completion prints (make bench-dpdk runs them one by one
    through its agent, bench-dpdk-nested all of a phase in one guest
    command: script()). Ports: the VF @vf, the backup @backup, the bond
    @bond, as testpmd numbers them with the VF probed first."""

    CONFIG_DONE = "Primary: ["
    ACTIVE = "Active Slaves (2)"    # the VF and the backup both active
    WAIT_S = 10

    def __init__(self, bdf: str, mac: str, vf: int = 0, backup: int = 1, bond: int = 2):
        self.bdf, self.mac = bdf, mac
        self.vf, self.backup, self.bond = vf, backup, bond

    def vdev(self, backup: str) -> str:
        """The bond's EAL option over the VF and @backup (a device name
        or PCI address), the VF its primary."""
        return (f"--vdev net_bonding0,mode=1,slave={self.bdf},"
                f"slave={backup},primary={self.bdf}")

    def primary(self, port: int) -> list:
        """@port becomes the primary and takes the VM's MAC. 22.11's
        `set bonding primary` moves no MAC: without the second command the
        backup keeps its own MAC when it takes over (the peer's frames go
        to the VF being removed, and the first move loses everything),
        and once a replug has given the backup the VM's MAC it keeps it
        while the VF is primary again (both then receive the VM's frames,
        the unpolled backup's ring keeps them, and they are answered,
        late and twice, at the next switch). `set bonding mac_addr`
        reapplies the bond's MAC to the primary and gives every other
        member its own back."""
        return [(f"set bonding primary {port} {self.bond}", "testpmd> "),
                (f"set bonding mac_addr {self.bond} {self.mac}", "testpmd> ")]

    def unplug(self) -> list:
        # the howto's order: backup primary, VF out of the bond, detached
        return self.primary(self.backup) + [
            (f"remove bonding slave {self.vf} {self.bond}", "testpmd> "),
            (f"port stop {self.vf}", "Done"),
            (f"port close {self.vf}", "Done"),
            # 22.11 releases a closed port's id: the device goes by its address
            (f"device detach {self.bdf}", "is detached")]

    def replug(self) -> list:
        # Not the howto's `port start`: the bond configures and starts a
        # member itself, and testpmd 22.11 puts an attached port among the
        # forwarding ones (`set portlist` is refused while forwarding), so
        # a port it started could not be stopped for the next detach. The
        # next unplug's `port stop`/`port close` are then refused with a
        # message, and `device detach` stops and closes it in the PMD.
        # The bond makes a member primary only while its link is up, and
        # until then `set bonding primary` only records the wish (the
        # bond switches once the link comes up). So the configuration is
        # asked for every half second until the VF is an active member,
        # for at most WAIT_S (a wait step: it may end without). On the
        # nested bench a VF plugged at the destination never became
        # active (docs/results.md, "make bench-dpdk-nested").
        return [(f"port attach {self.bdf}", "is attached"),
                (f"add bonding slave {self.vf} {self.bond}", "testpmd> "),
                (f"show bonding config {self.bond}", self.ACTIVE, 0.5)] + \
            self.primary(self.vf)

    def config(self) -> tuple:
        return (f"show bonding config {self.bond}", self.CONFIG_DONE)

    @staticmethod
    def script(steps: list, timeout_s: int = 30) -> str:
        """One guest shell line that gives testpmd (interactive, on FIFO)
        @steps one after the other, each once the one before printed its
        completion text once more in LOG (a wait step, with a third
        element, seconds, is sent again at that interval until it has, for
        at most WAIT_S, and then prints "bond: N waited"); after each it
        prints "bond: N UPTIME" (the guest's clock, s). Exits non-zero
        with the log's tail if testpmd is gone or a step prints nothing
        in @timeout_s."""
        count = f"grep -o -F \"$2\" {LOG} | wc -l"
        fn = (f"tp() {{ n=$({count}); kill -0 $(cat {PIDF}) || return 1; "
              f"echo \"$1\" > {FIFO}; i=0; while [ $({count}) -le $n ]; do "
              f"i=$((i + 1)); [ $4 -eq 0 ] || [ $i -le {BondMethod.WAIT_S * 10} ] || "
              "{ echo \"bond: $3 waited\"; break; }; "
              f"[ $i -le {timeout_s * 10} ] || "
              f"{{ echo \"bond: no $2 after $1\"; tail -c 1500 {LOG}; return 1; }}; "
              f"[ $4 -eq 0 ] || [ $((i % $4)) -ne 0 ] || echo \"$1\" > {FIFO}; "
              "sleep 0.1; done; read -r u _ < /proc/uptime; echo \"bond: $3 $u\"; }; ")
        out = []
        for i, (line, done, *retry) in enumerate(steps):
            assert "'" not in line + done and '"' not in line + done, (line, done)
            out.append(f"tp '{line}' '{done}' {i} {round(retry[0] * 10) if retry else 0}")
        return fn + " && ".join(out)


def move(tp: TestPmd, peer, n: int, pings: int = 10, **how) -> dict:
    """Stand-in migration number @n of testpmd's VF (@how: compsc_harness.mig.migrate's
    knobs): the PMD has then restored exactly @n times and answers @pings
    pings from @peer. The stand-in's result."""
    res = migrate(tp.vm, tp.vf, **how)
    rs = tp.wait_restores(n)
    assert len(rs) == n, (f"migration {n}: the PMD restored {len(rs)} "
                          f"times\n{tp.log()[-3000:]}")
    after = peer.ping(tp.vf.ip, count=pings, interval=0.05)
    assert after.received == pings, f"no traffic after migration {n}: {after.raw[-1000:]}"
    return res
