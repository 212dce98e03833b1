"""Migrating with non-zero ring heads shifts both rings, and no descriptor is lost or replayed."""

import time

from compsc_harness.vm import PEER_ADDR
from compsc_harness.mig import blackout_window, compsc_vfs, ethtool_stats, migrate, ping_loss, send_times  # noqa: F401


def test_migrate_ring_shift(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    # Move both heads off zero (and off any multiple of the ring size).
    # The guest's own pings leave through this VF whatever its routes say:
    # with both VFs on one subnet, the replies to the peer's pings take the
    # first connected route, which is the other VF's once an earlier test
    # took this one down and up again.
    peer.ping(vf.ip, count=37, interval=0.01)
    vm.run(f"ping -q -I {vf.ifname} -c 23 -i 0.05 -W 2 {PEER_ADDR}", check=False)
    before = ethtool_stats(vm, vf.ifname)
    with peer.ping_stream(vf.ip, interval=0.01) as ps:
        time.sleep(1)
        res = migrate(vm, vf, blackout_ms=50)
        time.sleep(2)
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_rx_shift_total"] != before["compsc_rx_shift_total"], (before, after)
    assert after["compsc_tx_shift_total"] != before["compsc_tx_shift_total"], \
        (before, after, vm.run("ip route; ip -s link show " + vf.ifname).out)
    window = blackout_window(res)
    loss = ping_loss(ps.trace, [window])
    sent_at = send_times(ps.trace)
    # Frames that reached the ring before the device was taken must all
    # reach the stack after the shift: nothing sent before the blackout
    # may go unanswered. Drops after the hand-back, while the restore
    # runs, are restore latency (the benchmark's loss), reported only.
    in_ring = [q for q in loss.lost_seqs if sent_at[q] < window[0]]
    measure("lost outside blackout", loss.lost, "pkts")
    measure("lost after hand-back (restore latency)", loss.lost - len(in_ring), "pkts")
    assert loss.dup == 0, "a descriptor was sent twice"
    assert not in_ring, f"pings sent before the blackout never answered: seqs {in_ring}"
