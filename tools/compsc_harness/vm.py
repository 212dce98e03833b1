"""compsc_harness.vm: drive the CompSC bench VM and its host-side network peer.

The bench (see tests/vm/README.md) is QEMU q35 in TCG mode with an emulated
Intel 82576 (``-device igb``) behind a PCIe root port, running Debian's
kernel from an initramfs. Inside, the real igb driver creates VFs and igbvf
drives them. ``VM(nic="82599")`` has the project's 82599 model instead
(``-device ixgbe``, qemu/, in the QEMU build $COMPSC_QEMU_82599 names), on
which the project's ixgbe and ixgbevf run (see :data:`NICS`). Outside, a
:class:`Peer` owns a network namespace whose tap is QEMU's network
backend, so traffic is measured as a remote client sees it.

Typical use::

    from compsc_harness.vm import Peer, VM

    with Peer() as peer, VM(peer=peer) as vm:   # boots; cleans up on exit
        vfs = vm.setup_vfs(2)                   # igb PF up, 2 VFs on igbvf
        print(vm.run("uname -r").out)           # guest command, rc checked
        peer.ping(vfs[0].ip, count=3)           # host -> VF through the tap
    # leaving the block powers the guest off, fails on Oops/BUG/WARNING in
    # the guest log, removes the namespace and kills every process started

Addresses (all inside the peer's namespace, never anything else):
the peer is ``10.77.0.1/24``; VF n is ``10.77.0.(10+n)`` with MAC
``52:54:00:77:00:1n`` (set from the PF by guest/bench-setup).

Artifacts come from ``make vm-test``/``make initramfs``; :class:`Bench`
finds them (override with COMPSC_BUILD, COMPSC_VMLINUZ, COMPSC_INITRD,
COMPSC_MODULES, COMPSC_QEMU, COMPSC_QEMU_82599). Every VM keeps its
console log under ``$BUILD/vm/runs/<run-id>/<vm-name>/console.log``.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from compsc_harness import qemucmd

REPO = Path(__file__).resolve().parents[2]
RUN_ID = f"{os.getpid()}-{uuid.uuid4().hex[:6]}"

PEER_ADDR = "10.77.0.1"
PREFIX = 24


def vf_mac(n: int) -> str:
    """MAC that guest/bench-setup gives VF n from the PF."""
    return f"52:54:00:77:00:1{n}"


def vf_ip(n: int) -> str:
    """Address that guest/bench-setup puts on VF n."""
    return f"10.77.0.{10 + n}"


# ---------------------------------------------------------------- NICs

@dataclass(frozen=True)
class Nic:
    """A NIC model the bench VM can have, and its guest drivers."""
    name: str             # what tests call it (their `nic` parameter)
    device: str           # QEMU's -device model of the PF
    pf_driver: str        # guest driver (and module) names
    vf_driver: str
    # the environment variable naming the QEMU binary with the model
    # ("": Bench.qemu, Debian's)
    qemu_env: str = ""
    # setup_vfs() loads the project's builds by default: Debian's igb and
    # igbvf are the stock stack; for the 82599 the bench has only ours
    patched: bool = False

    def module(self, driver: str) -> str:
        """Guest path of the project's build of @driver (mk/bench.mk)."""
        return Bench.guest_module("drivers", driver, f"{driver}.ko")


# setup_vfs()'s igb/igbvf: the image's stock module (Debian's) even on a
# NIC whose default is the project's build (the 82599's)
STOCK = "stock"

NICS = {
    "igb": Nic("igb", "igb", "igb", "igbvf"),
    "82599": Nic("82599", "ixgbe", "ixgbe", "ixgbevf",
                 qemu_env="COMPSC_QEMU_82599", patched=True),
}


# ---------------------------------------------------------------- errors

class BenchError(Exception):
    """Something in the bench itself failed (boot, channel, namespace)."""


class GuestTimeout(BenchError):
    """A guest command did not finish in time (the agent killed it)."""


class GuestCommandError(BenchError):
    """A guest command exited non-zero and the caller asked for check."""


class KernelProblem(BenchError):
    """The guest log shows an Oops, BUG, WARNING, panic or call trace."""


class GuestStalled(BenchError):
    """A running guest stopped answering (no HELLO, no reply from the agent).

    str() is one line: which VM, what it was doing, where its console log
    is. On a busy 2-core host a TCG guest can starve; the caller decides
    whether a retry is honest (a boot is; a measurement that stalled half
    way is not silently repeated). The console tail is in .detail."""

    def __init__(self, vm: str, doing: str, why: str, console: Path, detail: str = ""):
        self.vm, self.doing, self.why, self.console_path = vm, doing, why, console
        self.detail = detail
        super().__init__(f"guest {vm} stalled while {doing} ({why}); console log: {console}")


# ------------------------------------------------------- kernel-log scanner

# Lines that mean the kernel went wrong. Taint notices for our out-of-tree,
# unsigned modules are expected and do not match any of these.
# The debug kernel (make soak, tests/vm/debugkernel.config) adds its
# detectors' words: lockdep's and KFENCE's headlines (behind a WARNING: or
# BUG: today, named here so a reworded prefix still counts), debugobjects,
# kmemleak finding leaks on a scan or switching itself off (then nothing
# more would be found), and lockdep switching itself off.
PROBLEM_RE = re.compile(
    r"Oops|BUG:|WARNING:|general protection|Call Trace|Kernel panic"
    r"|kernel BUG|UBSAN:|KASAN:|list_(add|del) corruption|RCU stall"
    r"|hung_task|soft lockup|hard LOCKUP"
    r"|possible circular locking|possible recursive locking|inconsistent lock state"
    r"|sleeping function called from invalid context|KFENCE:|ODEBUG:"
    r"|suspected memory leak|unreferenced object 0x|kmemleak: .*disabled"
    r"|lockdep is turned off")
HARMLESS_RE = re.compile(
    r"loading out-of-tree module taints kernel"
    r"|module verification failed"
    r"|tainting kernel"
    r"|ODEBUG: selftest passed|ODEBUG: \d+ of \d+ active objects replaced")


# Guest memory a debug-kernel VM gets on top of what its caller asked.
DEBUG_EXTRA_MEM = 512
KMEMLEAK = "/sys/kernel/debug/kmemleak"


def _short(cmd: str, n: int = 60) -> str:
    """A guest command cut to one short line for a one-line message."""
    c = " ".join(cmd.split())
    return c if len(c) <= n else c[:n - 3] + "..."


def kernel_problems(text: str, context: int = 20) -> list[str]:
    """Return one excerpt (the line plus ``context`` lines after) per problem."""
    lines = text.splitlines()
    out, skip_until = [], -1
    for i, line in enumerate(lines):
        if i <= skip_until or HARMLESS_RE.search(line):
            continue
        if PROBLEM_RE.search(line):
            out.append("\n".join(lines[max(0, i - 3):i + context]))
            skip_until = i + context
    return out


# ---------------------------------------------------------------- results

@dataclass
class Result:
    """Outcome of one command (guest or peer)."""
    cmd: str
    rc: int
    out: str
    err: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out

    def check(self) -> "Result":
        """Raise GuestCommandError/GuestTimeout unless the command succeeded."""
        if self.timed_out:
            raise GuestTimeout(f"timed out after {self.seconds:.1f}s: {self.cmd}\n{self._tail()}")
        if self.rc != 0:
            raise GuestCommandError(f"rc={self.rc}: {self.cmd}\n{self._tail()}")
        return self

    def _tail(self) -> str:
        return f"--- stdout\n{self.out[-3000:]}\n--- stderr\n{self.err[-3000:]}"


@dataclass
class VF:
    """One VF as set up by :meth:`VM.setup_vfs`."""
    index: int
    bdf: str
    ifname: str
    mac: str
    ip: str


@dataclass
class PingTrace:
    """Timestamped replies of one ping stream (see :meth:`Peer.ping_stream`)."""
    interval: float
    sent: int = 0
    replies: list = field(default_factory=list)  # (host time, icmp_seq)
    raw: str = ""
    # icmp_seq -> host time it was sent (reply time minus ping's own RTT):
    # a reply can come long after its request (held in the ring while the
    # device was taken), so only this says when the request went out
    sent_at: dict = field(default_factory=dict)

    @property
    def received(self) -> int:
        return len({s for _, s in self.replies})

    @property
    def lost(self) -> int:
        return max(0, self.sent - self.received)

    def gaps(self, start: float = 0.0, end: float = float("inf")) -> list:
        """(a, b) for each two consecutive replies whose gap overlaps
        [start, end] (host clock, time.time())."""
        ts = sorted(t for t, _ in self.replies)
        return [(a, b) for a, b in zip(ts, ts[1:]) if b >= start and a <= end]

    def widest(self, start: float = 0.0, end: float = float("inf")) -> tuple:
        """(last reply before, first reply after) the longest of gaps();
        (None, None) if there is none."""
        return max(self.gaps(start, end), key=lambda g: g[1] - g[0], default=(None, None))

    def max_gap(self, start: float = 0.0, end: float = float("inf")) -> float:
        """Longest time in seconds between consecutive replies whose gap
        overlaps [start, end]."""
        a, b = self.widest(start, end)
        return float("nan") if a is None else b - a


# ------------------------------------------------------------- cleanup

_live: "weakref.WeakSet" = weakref.WeakSet()


def _cleanup_all() -> None:
    for obj in list(_live):
        try:
            obj.close()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


atexit.register(_cleanup_all)
# SIGTERM (e.g. CI cancelling the job) should still run the finalizers.
if threading.current_thread() is threading.main_thread():
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, lambda *_: (_cleanup_all(), os._exit(143)))


_libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000


def _pdeath(argv: Sequence[str]) -> list[str]:
    """Wrap argv so the process dies if the test process is SIGKILLed."""
    return ["setpriv", "--pdeathsig", "KILL", "--", *argv]


def _sh(argv, timeout=60, check=True, input=None) -> Result:
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                           input=input)
        r = Result(" ".join(map(str, argv)), p.returncode, p.stdout, p.stderr,
                   time.monotonic() - t0)
    except subprocess.TimeoutExpired as e:
        r = Result(" ".join(map(str, argv)), -1, _s(e.stdout), _s(e.stderr),
                   time.monotonic() - t0, timed_out=True)
    return r.check() if check else r


def _s(b) -> str:
    if b is None:
        return ""
    return b.decode(errors="replace") if isinstance(b, bytes) else b


def _note_build_id(note: bytes) -> str:
    namesz, descsz, _type = (int.from_bytes(note[i:i + 4], "little") for i in (0, 4, 8))
    off = 12 + (namesz + 3) // 4 * 4
    return note[off:off + descsz].hex()


def build_id(path: Union[str, Path]) -> str:
    """GNU build ID (hex) of a host ELF file such as a built .ko."""
    out = subprocess.run(["readelf", "-n", str(path)], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        raise BenchError(f"{path}: no GNU build ID note")
    return m.group(1)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


# ---------------------------------------------------------------- Bench

class Bench:
    """Where the bench artifacts are. Defaults follow mk/bench.mk."""

    def __init__(self, build: Optional[Path] = None):
        self.build = Path(build or os.environ.get("COMPSC_BUILD", REPO / "build"))
        self.vmdir = self.build / "vm"
        self.kernel = Path(os.environ.get("COMPSC_VMLINUZ", self.vmdir / "vmlinuz"))
        self.initrd = Path(os.environ.get("COMPSC_INITRD", self.vmdir / "initrd.img"))
        # The host copy of the initrd's /lib/compsc (mk/bench.mk; mk/deb.mk
        # points it and COMPSC_INITRD at a tree with DKMS builds instead).
        self.modules = Path(os.environ.get("COMPSC_MODULES", self.vmdir / "lib-compsc"))
        self.qemu = os.environ.get("COMPSC_QEMU", "qemu-system-x86_64")
        self.runs = self.vmdir / "runs" / RUN_ID
        # The debug kernel (mk/debugkernel.mk sets this): KASAN's shadow
        # (1/8 of RAM), its quarantine and kmemleak's records need room.
        self.debug = os.environ.get("COMPSC_DEBUG_KERNEL") == "1"
        # The image carries testpmd (mk/bench.mk; not with BENCH_DPDK=no)
        self.dpdk = (self.build / "dpdk" / "build" / "app" / "dpdk-testpmd").exists()

    def check(self, nic: Nic = NICS["igb"]) -> None:
        """Raise BenchError naming the make target if an artifact is missing."""
        for p in (self.kernel, self.initrd):
            if not p.exists():
                raise BenchError(f"{p} missing: run `make initramfs` (or `make vm-test`)")
        qemu = self.qemu_for(nic)
        if shutil.which(qemu) is None:
            raise BenchError(f"{qemu} not found: run .ci/install-deps.sh"
                             + (" and `make qemu`" if nic.qemu_env else ""))

    def qemu_for(self, nic: Nic) -> str:
        """The QEMU binary that has @nic's model; BenchError if none is
        configured (mk/qemu.mk sets COMPSC_QEMU_82599 for make vm-test)."""
        if not nic.qemu_env:
            return self.qemu
        qemu = os.environ.get(nic.qemu_env)
        if not qemu:
            raise BenchError(f"{nic.qemu_env} is not set: no QEMU with the {nic.name} "
                             "model (make vm-test sets it; BENCH_82599=no does not)")
        return qemu

    def prune_runs(self, keep: int = 10) -> None:
        """Delete all but the newest `keep` run directories under
        build/vm/runs, never one whose test process is still alive."""
        root = self.vmdir / "runs"
        if not root.is_dir():
            return
        runs = sorted(root.iterdir(), key=lambda d: d.stat().st_mtime, reverse=True)
        for d in runs[keep:]:
            m = re.match(r"(\d+)-", d.name)
            if m and not _pid_alive(int(m.group(1))):
                shutil.rmtree(d, ignore_errors=True)

    @staticmethod
    def guest_module(*parts: str) -> str:
        """Guest path of a module the initramfs carries, e.g.
        guest_module("drivers", "igbvf-param", "igbvf.ko")."""
        return "/lib/compsc/" + "/".join(parts)

    def host_module(self, *parts: str) -> Path:
        """Host copy of the module the guest has at guest_module(*parts):
        compare its build_id() with VM.module_build_id()."""
        return self.modules.joinpath(*parts)


# ---------------------------------------------------------------- Peer

def paced(rate: str) -> list:
    """iperf3's arguments for a TCP stream of @rate bits/s ("2M"), paced by
    the kernel (SO_MAX_PACING_RATE), not by iperf3's -b: with -b, iperf3
    3.12 calls select() with a zero timeout for as long as its socket takes
    no data (esnet/iperf#1213). On the nested bench, where the receiver is
    a slow guest with its window nearly closed, that client took 75-100 %
    of one of this machine's two cores, beside the QEMUs being measured
    (2026-11-28, bench-shadow). Without -b it waits in select() instead."""
    return ["--fq-rate", rate]


class Peer:
    """The host-side peer: a network namespace with a bridge at 10.77.0.1/24.

    Each VM attached to the peer gets its own tap on the bridge, so several
    VMs (e.g. a migration source and destination) share one L2 segment.
    Nothing here routes outside the namespace.
    """

    _seq = 0

    def __init__(self, name: Optional[str] = None, addr: str = PEER_ADDR):
        Peer._seq += 1
        self.ns = name or f"compsc-{RUN_ID}-{Peer._seq}"
        self.addr = addr
        self.bridge = "cbr0"
        self._taps: list[str] = []
        self._procs: list[subprocess.Popen] = []
        self._started = False
        _live.add(self)
        self.start()

    # -- lifecycle
    def start(self) -> "Peer":
        self.reap_stale()
        ip = ["ip", "-n", self.ns]
        _sh(["ip", "netns", "add", self.ns])
        self._started = True
        _sh(ip + ["link", "set", "lo", "up"])
        _sh(ip + ["link", "add", self.bridge, "type", "bridge", "forward_delay", "0", "stp_state", "0"])
        _sh(ip + ["addr", "add", f"{self.addr}/{PREFIX}", "dev", self.bridge])
        _sh(ip + ["link", "set", self.bridge, "up"])
        return self

    def add_tap(self) -> str:
        """Create a tap on the bridge for one VM; returns its name (in the ns)."""
        tap = f"ctap{len(self._taps)}"
        ip = ["ip", "-n", self.ns]
        _sh(ip + ["tuntap", "add", "dev", tap, "mode", "tap"])
        _sh(ip + ["link", "set", tap, "master", self.bridge])
        _sh(ip + ["link", "set", tap, "up"])
        self._taps.append(tap)
        return tap

    def close(self) -> None:
        """Kill every process started in the namespace, then delete it."""
        for p in self._procs:
            if p.poll() is None:
                p.kill()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    pass
        self._procs.clear()
        if self._started:
            # Any process left inside (e.g. a daemonised iperf3) goes too.
            pids = _sh(["ip", "netns", "pids", self.ns], check=False).out.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            _sh(["ip", "netns", "del", self.ns], check=False)
            self._started = False
        _live.discard(self)

    @staticmethod
    def reap_stale() -> None:
        """Delete compsc-<pid>-* namespaces and /tmp socket dirs whose
        creating process is gone (left behind by a run that was SIGKILLed)."""
        out = _sh(["ip", "netns", "list"], check=False).out
        for line in out.splitlines():
            m = re.match(r"(compsc-(\d+)-\w+-\d+)", line)
            if m and not _pid_alive(int(m.group(2))):
                for pid in _sh(["ip", "netns", "pids", m.group(1)], check=False).out.split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass
                _sh(["ip", "netns", "del", m.group(1)], check=False)
        for d in Path("/tmp").glob("compsc-*-*"):  # VM socket dirs
            m = re.match(r"compsc-(\d+)-", d.name)
            if m and not _pid_alive(int(m.group(1))):
                shutil.rmtree(d, ignore_errors=True)

    def __enter__(self) -> "Peer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- running things in the namespace
    def wrap(self, argv: Sequence[str]) -> list[str]:
        """argv prefixed to run inside the namespace."""
        return ["ip", "netns", "exec", self.ns, *argv]

    def run(self, cmd: Union[str, Sequence[str]], timeout: float = 60,
            check: bool = True) -> Result:
        """Run a command in the namespace (a string goes through sh -c)."""
        argv = ["sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        return _sh(self.wrap(argv), timeout=timeout, check=check)

    def connect(self, addr: str, port: int, timeout: float = 10) -> socket.socket:
        """A TCP connection to @addr:@port made inside the namespace (e.g. to
        a port a VM's user netdev forwards there), usable from here: a
        socket keeps the namespace it was made in, so a short-lived thread
        joins the namespace just to make it, and this process stays out."""
        made: dict = {}

        def inside() -> None:
            try:
                with open(f"/run/netns/{self.ns}") as ns:
                    if _libc.setns(ns.fileno(), CLONE_NEWNET) != 0:
                        raise OSError(ctypes.get_errno(), f"setns {self.ns}")
                made["sock"] = socket.create_connection((addr, port), timeout)
            except OSError as e:
                made["err"] = e

        t = threading.Thread(target=inside, name=f"connect-{self.ns}")
        t.start()
        t.join()
        if "err" in made:
            raise made["err"]
        return made["sock"]

    def popen(self, argv: Sequence[str], **kw) -> subprocess.Popen:
        """Start a background process in the namespace; killed by close()."""
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("stderr", subprocess.PIPE)
        kw.setdefault("text", True)
        p = subprocess.Popen(_pdeath(self.wrap(argv)), **kw)
        self._procs.append(p)
        return p

    # -- measurements
    def ping(self, dst: str, count: int = 3, interval: float = 0.2,
             deadline: float = 30) -> PingTrace:
        """Blocking ping; returns the trace (check .received)."""
        r = self.run(["ping", "-n", "-c", str(count), "-i", str(interval),
                      "-w", str(int(deadline)), dst], timeout=deadline + 10, check=False)
        return self._parse_ping(r.out, interval)

    def ping_stream(self, dst: str, interval: float = 0.01) -> "PingStream":
        """Start a timestamped ping at a fixed interval; use as a context
        manager, the trace is in .trace after the block."""
        return PingStream(self, dst, interval)

    @staticmethod
    def _parse_ping(out: str, interval: float) -> PingTrace:
        tr = PingTrace(interval=interval, raw=out)
        for m in re.finditer(r"^(?:\[(\d+\.\d+)\] )?\d+ bytes from .*icmp_seq=(\d+)"
                             r"(?:.* time=([\d.]+) ms)?", out, re.M):
            t, seq = float(m.group(1) or 0), int(m.group(2))
            tr.replies.append((t, seq))
            if m.group(1) and m.group(3):
                tr.sent_at.setdefault(seq, t - float(m.group(3)) / 1000)
        m = re.search(r"(\d+) packets transmitted", out)
        tr.sent = int(m.group(1)) if m else 0
        return tr

    def iperf3(self, dst: str, seconds: int = 5, reverse: bool = False,
               extra: Sequence[str] = ()) -> dict:
        """iperf3 client in the namespace against a server at dst; returns
        iperf3's JSON (the guest must run `iperf3 -s`)."""
        argv = ["iperf3", "-c", dst, "-t", str(seconds), "-J", *extra]
        if reverse:
            argv.append("-R")
        r = self.run(argv, timeout=seconds + 60, check=False)
        try:
            data = json.loads(r.out)
        except json.JSONDecodeError:
            raise BenchError(f"iperf3 gave no JSON (rc={r.rc}): {r.out[-2000:]} {r.err[-2000:]}")
        if "error" in data:
            raise BenchError(f"iperf3: {data['error']}")
        return data


class PingStream:
    """Background `ping -D` from the peer; see Peer.ping_stream."""

    def __init__(self, peer: Peer, dst: str, interval: float):
        self.peer, self.dst, self.interval = peer, dst, interval
        self.trace: Optional[PingTrace] = None
        self._p: Optional[subprocess.Popen] = None

    def __enter__(self) -> "PingStream":
        # A file, not a pipe: nobody reads until the end, and a full pipe
        # (64 KiB, ~800 replies) would block ping and stop the stream.
        self._out = tempfile.TemporaryFile(mode="w+")
        self._p = self.peer.popen(["ping", "-n", "-D", "-i", str(self.interval),
                                   "-W", "1", self.dst],
                                  stdout=self._out, stderr=subprocess.STDOUT)
        return self

    def replies(self) -> list:
        """(time, icmp_seq) of each reply so far, while ping runs: read
        with pread, which leaves the offset ping writes at alone."""
        fd = self._out.fileno()
        text = os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")
        return Peer._parse_ping(text, self.interval).replies

    def __exit__(self, *exc) -> None:
        self._p.send_signal(signal.SIGINT)  # ping prints its summary on SIGINT
        try:
            self._p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._p.kill()
            self._p.wait()
        self._out.seek(0)
        self.trace = Peer._parse_ping(self._out.read(), self.interval)
        self._out.close()


# ---------------------------------------------------------------- the agent

class _Channel:
    """Host end of the compsc-agent protocol (see guest/agent.c)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self._lock = threading.Lock()       # serialises writes to sock
        self._cond = threading.Condition()  # guards _done, _hellos, _closed
        self._done: dict[int, tuple] = {}
        self._hellos = 0
        self._closed = False
        self.why_closed = ""                # once _closed: what ended the stream
        self._next = 1
        self._t = threading.Thread(target=self._reader, daemon=True)
        self._t.start()

    def _read_exact(self, f, n: int) -> bytes:
        b = f.read(n)
        if b is None or len(b) != n:
            raise EOFError
        return b

    def _reader(self) -> None:
        f = self.sock.makefile("rb")
        line = b""
        try:
            while True:
                line = f.readline()
                if not line:
                    self.why_closed = "end of stream"
                    break
                parts = line.decode(errors="replace").split()
                if parts[:1] == ["HELLO"]:
                    with self._cond:
                        self._hellos += 1
                        self._cond.notify_all()
                elif parts[:1] == ["END"] and len(parts) == 6:
                    rid, st, to, ol, el = map(int, parts[1:])
                    out = self._read_exact(f, ol)
                    err = self._read_exact(f, el)
                    with self._cond:
                        self._done[rid] = (st, bool(to), out, err)
                        self._cond.notify_all()
        except (OSError, EOFError, ValueError) as e:
            # a frame cut short or garbled on the way: say which, the
            # waiter's message carries it
            self.why_closed = f"{type(e).__name__} {e} after the line {line[:120]!r}"
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def wait_hello(self, count: int, timeout: float, alive) -> bool:
        end = time.monotonic() + timeout
        with self._cond:
            while self._hellos < count and not self._closed:
                left = end - time.monotonic()
                if left <= 0 or not alive():
                    return False
                self._cond.wait(min(left, 0.5))
            return self._hellos >= count

    def send(self, cmd: str, timeout: float, stdin: bytes = b"") -> int:
        c = cmd.encode()
        with self._lock:
            rid = self._next
            self._next += 1
            hdr = f"RUN {rid} {int(timeout * 1000)} {len(c)} {len(stdin)}\n".encode()
            self.sock.sendall(hdr + c + stdin)
        return rid

    def wait(self, rid: int, timeout: float, alive) -> Optional[tuple]:
        end = time.monotonic() + timeout
        with self._cond:
            while rid not in self._done:
                left = end - time.monotonic()
                if left <= 0 or self._closed or not alive():
                    return None
                self._cond.wait(min(left, 0.5))
            return self._done.pop(rid)


class Pending:
    """A guest command in flight (from VM.start); .wait() gives the Result."""

    def __init__(self, vm: "VM", rid: int, cmd: str, timeout: float):
        self.vm, self.rid, self.cmd, self.timeout = vm, rid, cmd, timeout
        self.t0 = time.monotonic()

    def wait(self, check: bool = True) -> Result:
        # The agent enforces `timeout`; the extra margin covers a slow guest.
        grace = self.timeout + 30 if self.timeout else 24 * 3600
        got = self.vm._chan.wait(self.rid, grace, self.vm.alive)
        dt = time.monotonic() - self.t0
        if got is None:
            if not self.vm.alive():
                raise BenchError(f"QEMU exited {dt:.0f}s into: {self.cmd}\n--- console tail\n"
                                 f"{self.vm.console()[-4000:]}")
            chan = self.vm._chan
            why = (f"the guest agent's channel closed {dt:.0f}s in ({chan.why_closed})"
                   if chan._closed else f"no reply from the guest agent after {dt:.0f}s")
            raise GuestStalled(self.vm.name, f"running `{_short(self.cmd)}`", why,
                               self.vm.console_path, self.vm.console()[-4000:])
        st, to, out, err = got
        r = Result(self.cmd, st, out.decode(errors="replace"),
                   err.decode(errors="replace"), dt, timed_out=to)
        return r.check() if check else r


# ---------------------------------------------------------------- VM

class VM:
    """One bench VM: boots in the constructor, powers off in close().

    Arguments:
      peer       Peer whose bridge the PF's port is attached to (None: the
                 port has no backend beyond a dummy user-less hub)
      nic        the PF's model, a key of NICS ("igb", "82599")
      name       label for logs (build/vm/runs/<run-id>/<name>/)
      mem, smp   guest memory (MiB) and CPUs
      append     extra kernel command line
      extra_files  {guest path: host path (str/Path) or bytes content} added as a second cpio
                 archive at boot, no initramfs rebuild needed
      qemu_args  extra QEMU arguments
      boot_timeout  seconds until the agent must have said HELLO
      interactive  console on stdio, no agent wait (make vm-shell)
    """

    def __init__(self, peer: Optional[Peer] = None, name: str = "vm",
                 mem: int = 768, smp: int = 1, append: str = "",
                 extra_files: Optional[dict] = None,
                 qemu_args: Iterable[str] = (), bench: Optional[Bench] = None,
                 boot_timeout: float = 240, interactive: bool = False,
                 nic: str = "igb"):
        self.bench = bench or Bench()
        self.nic = NICS[nic]
        self.bench.check(self.nic)
        self.peer, self.name = peer, name
        if self.bench.debug:
            mem += DEBUG_EXTRA_MEM
        self.dir = self.bench.runs / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.console_path = self.dir / "console.log"
        # Unix socket paths are limited to ~107 bytes: keep them short.
        self._sockdir = Path(f"/tmp/compsc-{RUN_ID}-{name}")
        shutil.rmtree(self._sockdir, ignore_errors=True)
        self._sockdir.mkdir()
        self.ctl_path = self._sockdir / "ctl"
        self.qmp_path = self._sockdir / "qmp"
        self._proc: Optional[subprocess.Popen] = None
        self._chan: Optional[_Channel] = None
        self._closed = False
        self._tap: Optional[str] = None
        self.boots = 0
        self.boot_seconds = float("nan")
        _live.add(self)
        self._boot_args = (mem, smp, append, extra_files or {}, list(qemu_args),
                           boot_timeout, interactive)
        try:
            self._boot(*self._boot_args)
        except GuestStalled as e:
            # Nothing ran in the guest yet: booting it again hides nothing.
            print(f"compsc_harness.vm: {e}; booting it once more", file=sys.stderr)
            self.reboot()
        except BaseException:
            self.close(check=False)
            raise

    def reboot(self) -> None:
        """Kill QEMU if it still runs and boot again with the same settings
        (same tap and peer). The previous console log is kept as
        console.log.<n>; the guest starts from scratch (no VFs set up)."""
        self._stop()
        if self.console_path.exists():
            self.console_path.rename(self.dir / f"console.log.{self.boots}")
        self._sockdir.mkdir(exist_ok=True)
        self._closed = False
        _live.add(self)
        try:
            self._boot(*self._boot_args)
        except BaseException:
            self.close(check=False)
            raise

    # -- boot
    def _initrd(self, extra_files: dict) -> Path:
        if not extra_files:
            return self.bench.initrd
        # Linux unpacks concatenated cpio archives in order: ours goes last.
        stage = self.dir / "extra"
        shutil.rmtree(stage, ignore_errors=True)
        for gpath, src in extra_files.items():
            dst = stage / gpath.lstrip("/")
            dst.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(src, bytes):
                dst.write_bytes(src)
            else:
                shutil.copy2(src, dst)  # a host path (str or Path)
        names = subprocess.run(["find", ".", "-mindepth", "1"], cwd=stage,
                               capture_output=True, check=True).stdout
        extra = subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"],
                               cwd=stage, input=names, capture_output=True,
                               check=True).stdout
        out = self.dir / "initrd.img"
        with open(out, "wb") as f:
            with open(self.bench.initrd, "rb") as base:
                shutil.copyfileobj(base, f)
            f.write(extra)
        return out

    # With DPDK in the image: TCG's default CPU (qemu64) stops at SSE3 and
    # DPDK's x86 baseline is SSE4.2 (testpmd dies on an SSE4.1 instruction
    # without it); every host an 82576 sits in has it. `make vm-test`
    # carries DPDK by default, so every test of the suite runs on this CPU;
    # an image built with BENCH_DPDK=no (the debug kernel's) keeps QEMU's
    # default. A subclass may set None: always QEMU's default.
    CPU: Optional[str] = "qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt"
    # A free PCIe root port (rp2) for hot-plugging a second NIC model.
    SPARE_PORT = True
    # An IOMMU in front of the guest's PCI devices (qemucmd.q35()): none.
    IOMMU: Optional[str] = None

    def cpu_model(self) -> Optional[str]:
        """The guest's CPU model (CPU, with DPDK in the image), or None
        for QEMU's default."""
        return self.CPU if self.CPU and self.bench.dpdk else None

    def qemu_argv(self, mem: int, smp: int, append: str, initrd: Path,
                  tap: Optional[str], interactive: bool) -> list[str]:
        """The full QEMU command line (also used by make vm-shell)."""
        netdev = (f"tap,id=n0,ifname={tap},script=no,downscript=no" if tap
                  else "hubport,id=n0,hubid=0")
        kappend = "console=ttyS0 panic=-1 loglevel=7 " + append
        argv = [self.bench.qemu_for(self.nic)] + qemucmd.q35(
            accel="tcg", mem=mem, smp=smp, cpu=self.cpu_model(), iommu=self.IOMMU,
            kernel=str(self.bench.kernel), initrd=str(initrd), append=kappend.strip()) + [
            "-netdev", netdev, "-device", f"{self.nic.device},bus=rp1,netdev=n0,id=pf0",
            "-device", "virtio-serial-pci,id=vser0",
            "-chardev", f"socket,id=ctl,path={self.ctl_path},server=off",
            "-device", "virtserialport,bus=vser0.0,chardev=ctl,name=compsc.ctl",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
        ]
        if self.SPARE_PORT:
            # empty, for a NIC hot-plugged later (test_shadow_e1000e.py);
            # after the others, so the guest numbers the PF's bus 1 as ever
            argv += ["-device", "pcie-root-port,id=rp2,slot=2,chassis=2"]
        if interactive:
            argv += ["-serial", "mon:stdio"]
        else:
            argv += ["-chardev", f"file,id=con0,path={self.console_path}",
                     "-serial", "chardev:con0"]
        return argv

    def _boot(self, mem, smp, append, extra_files, qemu_args, boot_timeout,
              interactive) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.ctl_path))
        listener.listen(1)
        if self.peer and self._tap is None:
            self._tap = self.peer.add_tap()
        tap = self._tap
        self.boots += 1
        if interactive:
            append = (append + " compsc.shell=1").strip()
        argv = self.qemu_argv(mem, smp, append, self._initrd(extra_files), tap,
                              interactive) + qemu_args
        if self.peer:
            argv = self.peer.wrap(argv)
        (self.dir / "qemu.cmdline").write_text(shlex.join(argv) + "\n")
        t0 = time.monotonic()
        self._qemu_err = open(self.dir / "qemu.stderr", "wb")
        self._proc = subprocess.Popen(
            _pdeath(argv), stdin=None if interactive else subprocess.DEVNULL,
            stdout=None if interactive else self._qemu_err, stderr=self._qemu_err)
        listener.settimeout(30)
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            raise BenchError(f"QEMU never connected the control socket\n{self._diag()}")
        finally:
            listener.close()
        self._chan = _Channel(conn)
        self._t0 = t0
        if not interactive:
            self.wait_agent(boot_timeout)
            # QEMU loaded the initrd at start; a per-VM copy is ~15 MB.
            (self.dir / "initrd.img").unlink(missing_ok=True)
            self.check_kernel_log()

    def wait_agent(self, timeout: float = 240) -> float:
        """Wait for the guest agent's HELLO; sets and returns boot_seconds
        (QEMU start to agent ready)."""
        if not self._chan.wait_hello(1, timeout, self.alive):
            dt = time.monotonic() - self._t0
            try:  # a guest that died: let QEMU finish exiting before we report
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            if self.alive():
                raise GuestStalled(self.name, "booting", f"no agent after {dt:.0f}s",
                                   self.console_path, self.console()[-6000:])
            why = "QEMU exited"
            raise BenchError(f"guest agent did not start ({why}, {dt:.1f}s after QEMU start)\n"
                             f"{self._diag()}")
        self.boot_seconds = time.monotonic() - self._t0
        return self.boot_seconds

    def wait_exit(self) -> int:
        """Block until QEMU exits (interactive use); returns its exit code."""
        return self._proc.wait()

    def _diag(self) -> str:
        rc = self._proc.poll() if self._proc else None
        err = (self.dir / "qemu.stderr").read_text(errors="replace")[-2000:]
        return (f"QEMU {'exited rc=%s' % rc if rc is not None else 'running'}; "
                f"stderr:\n{err}\n--- console ({self.console_path}):\n{self.console()[-6000:]}")

    # -- state
    def alive(self) -> bool:
        """True while QEMU runs."""
        return self._proc is not None and self._proc.poll() is None

    def console(self) -> str:
        """The whole guest console log so far (kernel messages included)."""
        try:
            return self.console_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_mark(self) -> int:
        """Position in the console log; pass to check_kernel_log(since=...)."""
        try:
            return self.console_path.stat().st_size
        except FileNotFoundError:
            return 0

    def kernel_problems(self, since: int = 0) -> list[str]:
        """Oops/BUG/WARNING excerpts in the console log after `since`."""
        try:
            with open(self.console_path, "rb") as f:
                f.seek(since)
                text = f.read().decode(errors="replace")
        except FileNotFoundError:
            return []
        return kernel_problems(text)

    def kmemleak_scan(self, timeout: float = 600) -> Optional[str]:
        """Have kmemleak scan now and return what it reports ("" when
        clean); None on a kernel without kmemleak (Debian's). Two scans:
        an object only a register or a list in flight pointed to during
        the first is referenced again in the second and not listed."""
        r = self.run(f"[ -e {KMEMLEAK} ] || exit 3; echo scan > {KMEMLEAK} && "
                     f"sleep 1 && echo scan > {KMEMLEAK} && cat {KMEMLEAK}",
                     timeout=timeout, check=False)
        if r.rc == 3:
            return None
        return r.check().out

    def check_kernel_log(self, since: int = 0) -> None:
        """Raise KernelProblem (with the excerpts and the log's path) if the
        guest kernel reported a problem after `since`."""
        probs = self.kernel_problems(since)
        if probs:
            raise KernelProblem(
                f"guest kernel problem in {self.console_path}:\n\n" + "\n\n...\n\n".join(probs))

    # -- commands
    def start(self, cmd: str, timeout: float = 60, stdin: bytes = b"") -> Pending:
        """Send a shell command to the guest without waiting; returns a
        Pending whose .wait() gives the Result. Several may be in flight."""
        if not self.alive():
            raise BenchError(f"VM {self.name} is not running\n{self._diag()}")
        rid = self._chan.send(cmd, timeout, stdin)
        return Pending(self, rid, cmd, timeout)

    def run(self, cmd: str, timeout: float = 60, check: bool = True,
            stdin: Union[bytes, str] = b"") -> Result:
        """Run a shell command (busybox sh -c) in the guest; wait for it.
        timeout is enforced in the guest (the command's process group is
        killed); check=True raises on non-zero exit or timeout."""
        if isinstance(stdin, str):
            stdin = stdin.encode()
        return self.start(cmd, timeout, stdin).wait(check=check)

    def put(self, guest_path: str, data: Union[bytes, str, Path]) -> None:
        """Write a file in the guest (host Path, or bytes/str content)."""
        if isinstance(data, Path):
            data = data.read_bytes()
        elif isinstance(data, str):
            data = data.encode()
        q = shlex.quote(guest_path)
        self.run(f"mkdir -p $(dirname {q}) && cat > {q}", stdin=data)

    def get(self, guest_path: str) -> str:
        """Read a (text) file from the guest."""
        return self.run(f"cat {shlex.quote(guest_path)}").out

    def dmesg(self) -> str:
        return self.run("dmesg").out

    # -- kernel modules
    def insmod(self, guest_path: str, **params) -> Result:
        """insmod a .ko that is in the guest, with module parameters; its
        dependencies are loaded first (guest/compsc-insmod)."""
        args = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in params.items())
        return self.run(f"compsc-insmod {shlex.quote(guest_path)} {args}")

    def rmmod(self, name: str, check: bool = True) -> Result:
        return self.run(f"rmmod {shlex.quote(name)}", check=check)

    def modprobe(self, name: str) -> Result:
        return self.run(f"modprobe {shlex.quote(name)}")

    def module_loaded(self, name: str) -> bool:
        return self.run(f"test -d /sys/module/{shlex.quote(name)}", check=False).rc == 0

    def module_build_id(self, name: str) -> str:
        """GNU build ID (hex) of the loaded module `name`; compare with
        build_id(<host .ko>) to prove which build is loaded."""
        hexdump = self.run(f"od -An -tx1 -v /sys/module/{shlex.quote(name)}"
                           "/notes/.note.gnu.build-id").out
        return _note_build_id(bytes.fromhex("".join(hexdump.split())))

    def module_param(self, module: str, param: str) -> str:
        return self.get(f"/sys/module/{module}/parameters/{param}").strip()

    # -- the SR-IOV setup
    def setup_vfs(self, numvfs: int = 2, igbvf: Optional[str] = None,
                  igb: Optional[str] = None, wait_link: float = 60) -> list[VF]:
        """Load the PF driver (igb), bring the PF up, create numvfs VFs
        with fixed MACs, bind the VF driver (igbvf), address them (see
        vf_ip) and wait for link on VF 0. igb/igbvf: guest paths of other
        builds of the NIC's PF and VF driver to insmod instead of the
        stock modules (e.g. Bench.guest_module("drivers", "igb", "igb.ko"));
        on the 82599 the project's ixgbe and ixgbevf are the default, and
        STOCK asks for Debian's there too.
        Idempotent; sets .vfs, .pf_bdf, .pf_if."""
        nic = self.nic
        igb = self._driver_ko(igb, nic.pf_driver)
        igbvf = self._driver_ko(igbvf, nic.vf_driver)
        cmd = self._bench_setup(f"-n {numvfs}")
        if igb:
            cmd += f" -p {shlex.quote(igb)}"
        if igbvf:
            cmd += f" -v {shlex.quote(igbvf)}"
        r = self.run(cmd, timeout=180)
        vfs = self._parse_vfs(r.out)
        if vfs and wait_link:
            self.wait_link(vfs[0].ifname, wait_link)
        return vfs

    def _driver_ko(self, ko: Optional[str], driver: str) -> Optional[str]:
        """The module setup_vfs() insmods for @driver (None: modprobe the
        image's stock one)."""
        if ko == STOCK:
            return None
        return ko or (self.nic.module(driver) if self.nic.patched else None)

    def vf_status(self) -> list[VF]:
        """The VFs as they are now (netdev names change when igbvf rebinds);
        also refreshes .vfs. Missing parts read "-"."""
        return self._parse_vfs(self.run(self._bench_setup("-s")).out)

    def _bench_setup(self, args: str) -> str:
        """guest/bench-setup with @args, for this VM's NIC's drivers."""
        return f"bench-setup -P {self.nic.pf_driver} -V {self.nic.vf_driver} {args}"

    def _parse_vfs(self, out: str) -> list[VF]:
        vfs = []
        for line in out.splitlines():
            kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
            if "vf" in kv:
                vfs.append(VF(int(kv["vf"]), kv["bdf"], kv["if"], kv["mac"], kv["ip"]))
            if "pf" in kv:
                self.pf_bdf, self.pf_if = kv["pf"], kv["pfif"]
        self.vfs = vfs
        return vfs

    def teardown_vfs(self) -> None:
        """Unload the VF driver, remove the VFs, unload the PF driver
        (bench-setup -d)."""
        self.run(self._bench_setup("-d"), timeout=120)
        self.vfs = []

    def restore_stock(self, numvfs: int = 2) -> list[VF]:
        """Back to the stock igb + igbvf with numvfs VFs (the 82599: the
        project's ixgbe + ixgbevf), whatever was loaded (compsc.ko is
        unloaded too if nothing uses it any more)."""
        self.teardown_vfs()
        self.run("rmmod compsc 2>/dev/null; true")
        return self.setup_vfs(numvfs)

    def wait_link(self, ifname: str, timeout: float = 60) -> float:
        """Wait until ifname reports carrier; returns seconds waited."""
        r = self.run(
            f"i=0; while [ \"$(cat /sys/class/net/{ifname}/carrier 2>/dev/null)\" != 1 ]; do "
            f"i=$((i+1)); [ $i -gt {int(timeout * 10)} ] && exit 1; sleep 0.1; done; echo $i",
            timeout=timeout + 10, check=False)
        if r.rc != 0:
            raise BenchError(f"{ifname}: no link after {timeout}s\n"
                             + self.run("ip -d link; dmesg | tail -30", check=False).out)
        return int(r.out.strip() or 0) / 10

    # -- QMP
    def qmp(self, command: str, **arguments) -> dict:
        """One QMP command on a fresh connection; returns "return" or
        raises QMPFailed (a BenchError). qemu.qmp is imported here: the
        shipped tools never talk QMP and do not depend on it."""
        from .qmp import execute
        return execute(str(self.qmp_path), command, arguments, 30, target=self.name)

    # -- shutdown
    def close(self, check: bool = True) -> None:
        """Power off (or kill) the guest and release everything. With
        check=True, raise KernelProblem if the log shows one or, on the
        debug kernel, if a kmemleak scan made just before finds a leak."""
        if self._closed:
            return
        self._closed = True
        _live.discard(self)
        leaks = None
        try:
            # Only on the debug kernel: nothing changes for Debian's.
            if check and self.bench.debug and self.alive() and self._chan is not None:
                leaks = self.kmemleak_scan()
        finally:
            self._stop()
        if check:
            if leaks:
                probs = self.kernel_problems()
                raise KernelProblem(
                    f"kmemleak in {self.name} ({self.console_path}):\n{leaks[:6000]}"
                    + ("\n\nand on the console:\n\n" + "\n\n...\n\n".join(probs)
                       if probs else ""))
            self.check_kernel_log()

    def _stop(self) -> None:
        """Power off (kill after 30 s) and release QEMU, channel, sockets."""
        try:
            if self.alive() and self._chan is not None:
                try:
                    self._chan.send("sync; poweroff -f", 10)
                    self._proc.wait(30)
                except (OSError, subprocess.TimeoutExpired):
                    pass
        finally:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()
                try:
                    self._proc.wait(10)
                except subprocess.TimeoutExpired:
                    pass
            if self._chan is not None:
                try:
                    self._chan.sock.close()
                except OSError:
                    pass
            if hasattr(self, "_qemu_err"):
                self._qemu_err.close()
            shutil.rmtree(self._sockdir, ignore_errors=True)

    def __enter__(self) -> "VM":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        # Do not mask the test's own exception with a log complaint.
        self.close(check=exc_type is None)
