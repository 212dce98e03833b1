"""Every word of a patterned UDP stream from the host peer survives QEMU
migrations of an L2 (VF0 -> VF1 -> VF0 ...) with DMA logging on, checked in
the L2 by `compsc integrity recv` (no corrupt, stale or duplicate datagram,
and datagrams arrive after each migration); with DMA logging off
(x-device-dirty-page-tracking=off, on a guest that itself arrived by
CompSC) every migration is refused, and the stream on the source stays
intact. COMPSC_INTEGRITY_MIGRATIONS (default 4) migrations with logging on,
COMPSC_INTEGRITY_REFUSALS (default: as many) attempts with it off."""
import errno
import os
import re
import time

from compsc_harness.vm import Bench
from nested import ALL_DIRTY, L2_IP, migration_summary

MIGRATIONS = int(os.environ.get("COMPSC_INTEGRITY_MIGRATIONS", "4"))
REFUSALS = int(os.environ.get("COMPSC_INTEGRITY_REFUSALS", str(MIGRATIONS)))
PORT = 7070
# The L2 takes ~170 packets/s through its VF (TCG in TCG): a stream well
# below that leaves it time to run its restore and the migrations.
RATE = 50
SIZE = 1024           # bytes per datagram: 126 checked words
# After a migration, this many more intact datagrams than the source had
# counted when it stopped prove the stream reaches the destination.
AFTER = 2 * RATE
APPEND = f"L2APPEND=l2integ={PORT}"
NO_LOG = "VFIOOPTS=x-device-dirty-page-tracking=off"
INTEG_RE = re.compile(r"integrity: blocks=(\d+) corrupt=(\d+) stale=(\d+) "
                      r"dup=(\d+) missing=(\d+) last_seq=(\d+)")
KEYS = ("blocks", "corrupt", "stale", "dup", "missing", "last_seq")


def _lines(guest) -> list:
    """The receiver's lines on the L2 @guest's console so far, as dicts (a
    line cut in two by the switch-over matches on neither side)."""
    out = []
    for line in guest.log().splitlines():
        m = INTEG_RE.fullmatch(line.strip())
        if m:
            out.append(dict(zip(KEYS, map(int, m.groups()))))
    return out


def _clean(lines, where):
    bad = [x for x in lines if x["corrupt"] or x["stale"] or x["dup"]]
    assert not bad, f"{where}: the receiver saw damage: {bad[0]}"


def _wait_blocks(guest, more_than, timeout=180) -> dict:
    """The first line of the L2 @guest's receiver counting more than
    @more_than intact datagrams; every line so far must be clean."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        lines = _lines(guest)
        _clean(lines, guest.name)
        hit = [x for x in lines if x["blocks"] > more_than]
        if hit:
            return hit[0]
        time.sleep(2)
    raise AssertionError(f"no more than {more_than} datagrams in {guest.name} after "
                         f"{timeout} s:\n{guest.log()[-2000:]}")


def _start(guest, incoming=True, env=""):
    """A fresh QEMU for the L2 @guest, with the receiver's kernel command
    line: waiting for a migration (@incoming) or booting."""
    if incoming:
        guest.start_incoming(env=f"{APPEND} {env}")
    else:
        guest.stop()
        guest.start(env=f"{APPEND} {env}")


class Hops:
    """The guest and where it runs: two L2 slots, "src" on VF0 and "dst"
    on VF1; the guest sits in one, a fresh -incoming QEMU waits in the
    other."""

    def __init__(self, l1):
        self.l1 = l1
        self.slots = [l1.src, l1.dst]
        self.at = 0     # the slot the guest runs in

    @property
    def here(self):
        return self.slots[self.at]

    @property
    def there(self):
        return self.slots[1 - self.at]

    def migrate(self, timeout=300) -> tuple:
        """One attempt; (result, the kernel log meanwhile, the source's last count)."""
        mark = self.l1.dmesg_mark()
        res = self.l1.migrate(params=ALL_DIRTY, timeout=timeout,
                              src=self.here.port, dst=self.there.port)
        lines = _lines(self.here)
        _clean(lines, self.here.name)
        return res, self.l1.dmesg_since(mark), lines[-1]["blocks"] if lines else 0

    def moved(self, next_env=""):
        """After a completed migration: the old source goes away (its VF
        gives up the guest's MAC), a fresh destination waits there."""
        left = self.at
        self.at = 1 - self.at
        self.l1.vf_own_mac(left)
        _start(self.slots[left], env=next_env)


def _dst_env(k: int) -> str:
    """The destination of migration @k (from 0) that is the last with DMA
    logging runs without it: the refused attempts start from there, from a
    guest that arrived by CompSC."""
    return NO_LOG if k == MIGRATIONS - 1 else ""


def _counts(stat) -> str:
    return " ".join(f"{k}={stat.get(k)}" for k in ("up", "compsc_restores", "compsc_resets"))


def _logging_on(l1, hops, restores: int) -> list:
    """MIGRATIONS migrations with DMA logging (the guest had @restores
    before); per migration the datagrams the source had counted and the
    destination's first count past AFTER more; each migration shows in the
    guest's restore count."""
    seen = []
    for i in range(MIGRATIONS):
        src, dst = hops.here, hops.there
        res, log, before = hops.migrate()
        assert res["status"] == "completed", f"migration {i + 1}: {migration_summary(res)}"
        assert "device taken on the size query" in log, log[-2000:]
        hops.moved(next_env=_dst_env(i + 1))
        after = _wait_blocks(dst, before + AFTER)
        stat = dst.wait_restores(restores + i + 1, timeout=180)
        print(f"nested: integrity migration {i + 1} {src.name}->{dst.name}: "
              f"{before} datagrams before, {after['blocks']} after; "
              f"qemu: {migration_summary(res)}; guest: {_counts(stat)}")
        seen.append((before, after["blocks"]))
    return seen


def _logging_off(l1, hops) -> int:
    """REFUSALS attempts without DMA logging: each refused, the source runs
    on, the stream keeps arriving intact there. Returns the refusals."""
    refused = 0
    guest = hops.here
    for i in range(REFUSALS):
        res, log, before = hops.migrate(timeout=240)
        assert res["status"] == "failed", f"attempt {i + 1}: {migration_summary(res)}"
        assert "not reading this device's DMA log" in log, log[-2000:]
        assert "device taken" not in log, "the area was pinned without a DMA log"
        assert guest.status() == "running"
        lm = l1.last_migrations()[guest.vf]
        assert lm["status"] == "error" and lm["errno"] == -errno.EOPNOTSUPP, lm
        refused += 1
        after = _wait_blocks(guest, before + AFTER)
        print(f"nested: integrity attempt {i + 1} without DMA logging refused; "
              f"{before} datagrams before, {after['blocks']} after, on the source")
        # the destination gave up with the migration: a fresh one
        _start(hops.there)
    return refused


def test_migrate_integrity(l1, peer):
    hops = Hops(l1)
    _start(hops.here, incoming=False, env=NO_LOG if not MIGRATIONS else "")
    _start(hops.there, env=_dst_env(0))
    l1.src.wait_up()
    before = l1.src.stat_now()
    cli = str(Bench().build / "compsc")
    send = peer.popen([cli, "integrity", "send", L2_IP, str(PORT), "--rate", str(RATE),
                       "--size", str(SIZE), "--seconds", "86400"])
    try:
        _wait_blocks(l1.src, AFTER)
        seen = _logging_on(l1, hops, int(before["compsc_restores"]))
        on = _lines(hops.here)[-1]
        refused = _logging_off(l1, hops)
    finally:
        send.terminate()
        send.wait(timeout=30)
    time.sleep(5)   # a line after the last datagram
    final = _lines(hops.here)[-1]
    # a status line the guest printed after the refusals, not an older one
    stat = hops.here.stat_next()
    print(f"nested: integrity receiver at the end: {final}")
    print(f"nested dma_log=on: integrity: migrations={MIGRATIONS} blocks={on['blocks']} "
          f"corrupt={on['corrupt']} stale={on['stale']} dup={on['dup']}")
    print(f"nested dma_log=off, refused {refused} of {REFUSALS}: integrity: migrations=0 "
          f"blocks={final['blocks'] - on['blocks']} corrupt={final['corrupt'] - on['corrupt']} "
          f"stale={final['stale'] - on['stale']} dup={final['dup'] - on['dup']}")
    assert (final["corrupt"], final["stale"], final["dup"]) == (0, 0, 0), final
    assert all(a > b for b, a in seen), seen
    assert refused == REFUSALS
    # each migration restored through CompSC, none through the reset path
    assert int(stat["compsc_restores"]) - int(before["compsc_restores"]) == MIGRATIONS, \
        (before, stat, hops.here.log()[-3000:])
    assert stat["compsc_resets"] == before["compsc_resets"], (before, stat)
    l1.check_kernel_log()
