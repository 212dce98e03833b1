"""Every word of a patterned UDP stream from the peer survives 20 CompSC migrations (half told that memory moved), each with frames left completed in the ring at the take: no stale word, no corrupt word, no duplicate; those frames are kept when memory stayed and dropped when it moved, with no reset, on both NICs."""

import re
import time

import pytest

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate  # noqa: F401
from compsc_harness.vm import NICS

MIGRATIONS = 20
PORT = 7070
RATE = 1000          # datagrams per second from the peer
SIZE = 1024          # bytes per datagram: 126 checked words
# The stand-in stops the VF's queues this long after it took the device:
# the frames received meanwhile sit completed where the driver, backing
# off, cannot clean them (a take under load finds a few; this makes it
# ~STOP_LATE_MS of the stream every time), and the ring shift, or with
# moved memory the drop, must get them right.
STOP_LATE_MS = 20
INTEG_RE = re.compile(r"^integrity: blocks=(\d+) corrupt=(\d+) stale=(\d+) "
                      r"dup=(\d+) missing=(\d+) last_seq=(\d+)$", re.M)


def _migrate_all(vm, vf) -> list[int]:
    """The migrations; returns the descriptors each one dropped as stale."""
    drops = []
    last = ethtool_stats(vm, vf.ifname)["compsc_rx_stale_dropped"]
    for i in range(MIGRATIONS):
        copied = i % 2
        res = migrate(vm, vf, blackout_ms=50, copied=copied,
                      stop_late_ms=STOP_LATE_MS)
        assert res["mem_copied"] == ("yes" if copied else "no"), res
        time.sleep(0.7)
        now = ethtool_stats(vm, vf.ifname)["compsc_rx_stale_dropped"]
        drops.append(now - last)
        last = now
    return drops




@pytest.mark.parametrize("nic", list(NICS))
def test_migrate_integrity(vm, compsc_vfs, peer, bench, measure, nic):
    vf = compsc_vfs[0]
    cli = str(bench.build / "compsc")
    before = ethtool_stats(vm, vf.ifname)
    recv = vm.start(f"compsc integrity recv {PORT} --idle 10 --seconds 600",
                    timeout=660)
    time.sleep(1)
    seconds = MIGRATIONS * 2.5 + 10
    send = peer.popen([cli, "integrity", "send", vf.ip, str(PORT),
                       "--rate", str(RATE), "--size", str(SIZE),
                       "--seconds", str(seconds)])
    time.sleep(3)
    drops = _migrate_all(vm, vf)
    sent_out, sent_err = send.communicate(timeout=seconds + 60)
    got = recv.wait(check=False)
    after = ethtool_stats(vm, vf.ifname)
    m = INTEG_RE.search(got.out)
    assert m, f"no integrity line from the guest (rc={got.rc}): {got.out} {got.err}"
    blocks, corrupt, stale, dup, missing, last = map(int, m.groups())
    print(f"integrity: migrations={MIGRATIONS} blocks={blocks} corrupt={corrupt} "
          f"stale={stale} dup={dup}")
    measure("datagrams checked intact", blocks, "")
    measure("datagrams missing (loss, not corruption)", missing, "")
    measure("descriptors dropped as stale (memory moved)", sum(drops), "")
    assert send.returncode == 0, f"sender failed: {sent_out} {sent_err}"
    assert (corrupt, stale, dup) == (0, 0, 0), m.group(0)
    assert blocks > RATE * MIGRATIONS, f"too little of the stream arrived: {m.group(0)}"
    assert after["compsc_restores"] - before["compsc_restores"] == MIGRATIONS
    # Memory that did not move keeps every completed frame; each move
    # drops the ones the late stop left completed (~STOP_LATE_MS worth).
    assert all(d == 0 for d in drops[0::2]), f"dropped without a move: {drops}"
    # Both drivers drop them (their rx_drop op, drivers/PORTING.md).
    assert after["compsc_resets"] == before["compsc_resets"], "a restore reset the VF"
    assert all(d > 0 for d in drops[1::2]), f"a move found nothing to drop: {drops}"
