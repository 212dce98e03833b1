"""compsc_harness.mig: CompSC migrations on the bench, on top of .vm.

The CompSC stack in the guest is compsc.ko (libcompsc), the patched igb PF
(drivers/igb), the patched igbvf (drivers/igbvf) and the stand-in hypervisor
compsc_standin.ko (hypervisor-glue/standin), driven through its debugfs files.
On a VM(nic="82599") the PF and VF drivers are the patched ixgbe and ixgbevf
(drivers/ixgbe, drivers/ixgbevf) instead.

    vfs = load_compsc(vm)                 # patched stack, 2 VFs, stand-in
    res = migrate(vm, vfs[0], blackout_ms=50)
    st = ethtool_stats(vm, vfs[0].ifname)   # compsc_restores, ...

Loss and duplicates are computed from the peer's timestamped ping stream
against the blackout windows the stand-in reports (see `ping_loss`).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

try:
    import pytest
except ImportError:
    # compsc-bench (the compsc-tools package) uses the helpers here on a
    # host without pytest; only the tests need the fixture below.
    pytest = None

from .vm import VF, VM, Bench, BenchError, PingTrace, build_id

DBG = "/sys/kernel/debug/compsc_standin"
# What writes the stand-in's control files. Not the shell's echo: the
# guest's /bin/sh is dash, whose builtin reports every failed write as
# "echo: I/O error"; busybox's echo names the errno the write returned
# (ENOENT: no area, EAGAIN: not restored yet, ETIMEDOUT, ...).
ECHO = "/bin/busybox echo"


def dirty_log(vm: VM, vf: VF, value: int | None = None) -> int:
    """The stand-in's dirty_log switch for @vf: set to @value when given;
    what it reads afterwards."""
    path = f"{DBG}/{vf.bdf}/dirty_log"
    if value is not None:
        vm.run(f"echo {value} > {path}")
    return int(vm.get(path).strip())


def _mod(*parts: str) -> str:
    return Bench.guest_module(*parts)


def load_compsc(vm: VM, numvfs: int = 2) -> list[VF]:
    """Patched igb + patched igbvf (the VM's NIC's PF and VF drivers) on
    numvfs VFs, plus the stand-in."""
    nic = vm.nic
    vm.teardown_vfs()
    vfs = vm.setup_vfs(numvfs, igb=nic.module(nic.pf_driver),
                       igbvf=nic.module(nic.vf_driver))
    _load_standin(vm)
    return vfs


def _load_standin(vm: VM) -> None:
    vm.run("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug")
    if not vm.module_loaded("compsc_standin"):
        vm.run(f"compsc-insmod {_mod('kmod', 'compsc_standin.ko')}")
    # Quiet wire: no IPv6 chatter, so counters see only what tests send.
    vm.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
           "net.ipv6.conf.default.disable_ipv6=1")


def _compsc_drivers(vm: VM) -> bool:
    """The loaded PF and VF drivers (igb and igbvf) are our CompSC builds."""
    drivers = (vm.nic.pf_driver, vm.nic.vf_driver)
    if not all(map(vm.module_loaded, drivers)):
        return False
    return all(vm.module_build_id(m) == build_id(vm.bench.host_module("drivers", m, f"{m}.ko"))
               for m in drivers)


def compsc_loaded(vm: VM) -> bool:
    """The loaded PF and VF drivers are our CompSC builds and the stand-in
    is in."""
    return vm.module_loaded("compsc_standin") and _compsc_drivers(vm)


def unload_compsc(vm: VM) -> None:
    """Back to the stock stack for the tests that expect it."""
    vm.run("rmmod compsc_standin 2>/dev/null; true")
    vm.restore_stock(2)


def kv(text: str) -> dict:
    """key=value lines (the stand-in's `result`) as a dict, ints where possible."""
    out = {}
    for line in text.splitlines():
        if "=" not in line:
            continue
        k, v = line.split("=", 1)
        k, v = k.strip(), v.strip()
        try:
            out[k] = int(v)
        except ValueError:
            out[k] = v
    return out


def result(vm: VM, vf: VF) -> dict:
    return kv(vm.get(f"{DBG}/{vf.bdf}/result"))


class MigrationFailed(AssertionError):
    pass


def migrate(vm: VM, vf: VF, check: bool = True, **opts) -> dict:
    """One migration through the stand-in; returns its `result` plus the
    host times around the command (t_start, t_end) and the write's rc."""
    args = " ".join(f"{k}={v}" for k, v in opts.items())
    t0 = time.time()
    r = vm.run(f"{ECHO} '{args}' > {DBG}/{vf.bdf}/migrate", check=False,
               timeout=120)
    t1 = time.time()
    res = result(vm, vf)
    res.update(rc=r.rc, err=r.err.strip(), t_start=t0, t_end=t1)
    if check and (r.rc != 0 or res.get("status") not in ("ok", "aborted")):
        raise MigrationFailed(f"migration of {vf.bdf} failed: rc={r.rc} {r.err.strip()} {res}")
    return res


def migrate_restored(vm: VM, vf: VF, restores: int, timeout: float = 60,
                     **opts) -> dict:
    """One migration as soon as the guest restored the last one (it has
    made @restores): a write the host refuses because the hand-back is not
    restored yet is retried (it ran nothing); any other outcome is the
    migration's, returned unchecked."""
    deadline = time.time() + timeout
    while True:
        res = migrate(vm, vf, check=False, **opts)
        if res["rc"] == 0 or "not restored" not in str(res.get("error")) \
                or time.time() > deadline:
            return res
        wait_restores(vm, vf, restores, timeout=5)


@contextlib.contextmanager
def static_neighbours(vm: VM, vf: VF, peer):
    """Permanent ARP entries on the peer and in the guest for the block.
    A test that holds the VF most of the time (back-to-back migrations)
    loses the neighbours' unicast probes; an entry that fails takes seconds
    to resolve again, a gap that measures ARP, not the migration."""
    peer_mac = peer.run(f"cat /sys/class/net/{peer.bridge}/address").out.strip()
    peer.run(f"ip neigh replace {vf.ip} lladdr {vf.mac} dev {peer.bridge} nud permanent")
    vm.run(f"ip neigh replace {peer.addr} lladdr {peer_mac} dev {vf.ifname} nud permanent")
    try:
        yield
    finally:
        peer.run(f"ip neigh del {vf.ip} dev {peer.bridge}", check=False)
        vm.run(f"ip neigh del {peer.addr} dev {vf.ifname}", check=False)


def ethtool_stats(vm: VM, ifname: str, timeout: float = 10) -> dict:
    """`ethtool -S` as a dict of ints. While the host holds the device the
    CompSC driver answers -EBUSY at once (it must not sit on RTNL, which
    its restart after the restore needs): try again until @timeout."""
    deadline = time.time() + timeout
    while True:
        r = vm.run(f"ethtool -S {ifname}", check=False)
        if r.rc == 0 or time.time() > deadline:
            break
        time.sleep(0.05)
    if r.rc:
        raise BenchError(f"ethtool -S {ifname} failed: {r.out}{r.err}")
    out = {}
    for line in r.out.splitlines():
        if ":" in line:
            k, v = line.rsplit(":", 1)
            try:
                out[k.strip()] = int(v)
            except ValueError:
                pass
    return out


def link_stats(vm: VM, ifname: str) -> dict:
    """The kernel's interface counters (what `ip -s link` shows)."""
    names = "rx_packets tx_packets rx_bytes tx_bytes multicast rx_dropped tx_dropped"
    r = vm.run(f"cd /sys/class/net/{ifname}/statistics && for f in {names}; do "
               "echo $f=$(cat $f); done")
    return kv(r.out)


@dataclass
class Loss:
    """Ping accounting across migrations (see the issue's definitions)."""
    sent: int = 0
    lost: int = 0          # sent outside any blackout and never answered
    excused: int = 0       # unanswered, but sent while the device was held
    dup: int = 0
    lost_seqs: list = field(default_factory=list)


def send_times(tr: PingTrace) -> dict:
    """Best estimate of the host time each icmp_seq was sent. An answered
    one was sent at its reply's time minus ping's RTT (a reply can come
    long after its request, held in the ring while the device was taken).
    An unanswered one lies between its answered neighbours, placed by
    linear interpolation: the rate ping really achieved, not the interval
    it was asked for (iputils, asked for 10 ms, sends every ~16 ms here).
    Before the first or after the last answer, the mean spacing
    extrapolates."""
    got = sorted({seq: tr.sent_at.get(seq, t) for t, seq in tr.replies}.items())
    if not got:
        return {}
    (s_first, t_first), (s_last, t_last) = got[0], got[-1]
    step = ((t_last - t_first) / (s_last - s_first)) if s_last > s_first else tr.interval
    est = dict(got)
    for (s0, t0), (s1, t1) in zip(got, got[1:]):
        for seq in range(s0 + 1, s1):
            est[seq] = t0 + (seq - s0) * (t1 - t0) / (s1 - s0)
    for seq in range(1, s_first):
        est[seq] = t_first - (s_first - seq) * step
    for seq in range(s_last + 1, tr.sent + 1):
        est[seq] = t_last + (seq - s_last) * step
    return est


def max_wait(tr: PingTrace, start: float, end: float, est: dict = None) -> float:
    """The longest a request sent in [start, end] (host clock) waited for
    the peer to hear the guest again: from its send time to the first
    reply, to it or to any later request. This is the outage as the peer
    lives it: a reply that was already late before the switch-over cannot
    shorten it (a gap between reply arrivals can come out shorter than
    QEMU's own downtime that way), and a request held in the ring and
    answered late counts its whole wait. NaN when no request qualifies."""
    est = send_times(tr) if est is None else est
    first_reply: dict = {}      # seq -> when a reply to it arrived first
    for t, seq in tr.replies:
        first_reply[seq] = min(t, first_reply.get(seq, t))
    waits, soonest = [], float("inf")
    for seq in sorted(est, reverse=True):   # soonest reply to seq or later
        soonest = min(soonest, first_reply.get(seq, soonest))
        if start <= est[seq] <= end and soonest != float("inf"):
            waits.append(soonest - est[seq])
    return max(waits, default=float("nan"))


def ping_loss(tr: PingTrace, windows: list[tuple[float, float]],
              margin: float = 0.05, est: dict = None) -> Loss:
    """Classify unanswered pings: inside a blackout window (widened by
    margin for the guest command's own latency) is excused; anything else
    is loss. windows are host-clock (start, end) of each blackout."""
    answered = {seq for _, seq in tr.replies}
    res = Loss(sent=tr.sent, dup=tr.raw.count("(DUP!)"))
    est = send_times(tr) if est is None else est   # a caller may have them
    for seq in range(1, tr.sent):  # the last one may still be in flight
        if seq in answered:
            continue
        t = est.get(seq, 0.0)
        if any(a - margin <= t <= b + margin for a, b in windows):
            res.excused += 1
        else:
            res.lost += 1
            res.lost_seqs.append(seq)
    return res


def blackout_s(res: dict) -> float:
    """How long one stand-in migration kept the device from the guest:
    from the fence, after which new readers already wait (wait_ns, the
    take waiting for the readers inside), to the release (hold_ns)."""
    return (res.get("wait_ns", 0) + res.get("hold_ns", 0)) / 1e9


def take_window(t_end: float, blackout: float) -> tuple[float, float]:
    """Host-clock window of a blackout of @blackout s that ended at the
    release, just before the stand-in's command returned at @t_end; 20 ms
    more before it for that command's own latency."""
    return (t_end - blackout - 0.02, t_end)


def blackout_window(res: dict) -> tuple[float, float]:
    """Host-clock blackout of one stand-in migration (its result @res)."""
    return take_window(res["t_end"], blackout_s(res))


def compsc_vfs(vm):
    """The session VM with the CompSC stack loaded (patched igb + igbvf,
    or ixgbe + ixgbevf, + stand-in). Left loaded for the next CompSC test;
    `vfs` (stock) tests reload the stock stack themselves."""
    if not _compsc_drivers(vm) or len(vm.vfs) != 2:
        load_compsc(vm)
    else:   # the 82599's session VM starts with our drivers
        _load_standin(vm)
    for vf in vm.vfs:
        vm.wait_link(vf.ifname, 60)
    return vm.vfs


if pytest is not None:
    compsc_vfs = pytest.fixture(compsc_vfs)


def wait_stats(vm: VM, vf: VF, pred, timeout: float = 10) -> dict:
    """`ethtool -S` of @vf once @pred(stats) holds, or the last read after
    @timeout s (the caller's assertion says what was missing)."""
    deadline = time.time() + timeout
    while True:
        s = ethtool_stats(vm, vf.ifname)
        if pred(s) or time.time() > deadline:
            return s
        time.sleep(0.05)


def wait_restores(vm: VM, vf: VF, at_least: int, timeout: float = 10) -> int:
    """Wait until the driver has restored at_least times (the guest runs
    between migrations, as it does between real ones); returns the count."""
    return wait_stats(vm, vf, lambda s: s.get("compsc_restores", 0) >= at_least,
                      timeout).get("compsc_restores", 0)


# The loops of test_migrate_{mtu,cfg,updown}_loop: back-to-back migrations
# with a short blackout while the guest changes its configuration.
LOOP_MIGRATIONS = 10
LOOP_BLACKOUT_MS = 20
# A hold is the blackout plus the take, save, FLR, PF forget/import and
# hand-over: ~0.1-0.3 s under TCG here. A guest that waits for the device
# under RTNL, which the PF's operations then wait for, turns it into the
# guest's wait (COMPSC_VF_WAIT_MS, 5 s) or more. 1 s sits well between.
LOOP_HOLD_MAX_NS = 1_000_000_000


def migrate_under_loop(vm: VM, vf: VF, loop_cmd: str, stop: str, what: str,
                       min_changes: int, after_loop: str = "") -> tuple:
    """LOOP_MIGRATIONS back-to-back migrations of @vf while @loop_cmd runs
    in the guest (it stops once @stop exists, printing "changes=N
    failed=F"): every migration ok, no change refused and at least
    @min_changes made, no hold past LOOP_HOLD_MAX_NS, every migration
    restored without a reset, and at least one change deferred to the
    driver's task (else the deferred path went untested). @after_loop runs
    in the guest before the restores are counted. Returns (the loop's
    output, `ethtool -S` at the end)."""
    before = ethtool_stats(vm, vf.ifname)
    loop = vm.start(loop_cmd, timeout=600)
    holds = []
    try:
        time.sleep(1)  # the loop is running
        for i in range(LOOP_MIGRATIONS):
            res = migrate_restored(vm, vf, before["compsc_restores"] + i,
                                   blackout_ms=LOOP_BLACKOUT_MS)
            holds.append(res.get("hold_ns", 0))
            assert res["rc"] == 0 and res["status"] == "ok", f"migration {i + 1}: {res}"
    finally:
        vm.run(f"touch {stop}")
        out = loop.wait(check=False).out
    print(f"holds (ms): {[round(h / 1e6) for h in holds]}")
    lines = [ln for ln in out.strip().splitlines() if ln.startswith("changes=")]
    assert lines, f"the loop did not finish:\n{out[-2000:]}"
    print(f"{what} loop: {lines[-1]}")
    counts = dict(kv.split("=") for kv in lines[-1].split())
    assert int(counts["failed"]) == 0, f"{what} refused during migrations:\n{out[-2000:]}"
    assert int(counts["changes"]) >= min_changes, out
    slow = [(i + 1, h) for i, h in enumerate(holds) if h >= LOOP_HOLD_MAX_NS]
    assert not slow, f"holds of {LOOP_BLACKOUT_MS} ms asked grew to (migration, ns): {slow}"

    if after_loop:
        vm.run(after_loop)
    want = before["compsc_restores"] + LOOP_MIGRATIONS
    n = wait_restores(vm, vf, want, timeout=30)
    assert n == want, f"{LOOP_MIGRATIONS} migrations, {n - before['compsc_restores']} restores"
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_resets"] == before["compsc_resets"], after
    deferred = after["compsc_cfg_deferred"] - before["compsc_cfg_deferred"]
    print(f"{what} deferred to the task: {deferred}")
    assert deferred >= 1, f"no {what} met a hold: {out[-2000:]}"
    return out, after
