"""guest-shadow with a virtio-net standby (Guest(standby=True),
shadow_nested.py) moves an L2 with Debian's unmodified igbvf VF0 -> VF1.
`make bench-shadow`'s shadow mode migrates with the standby five times."""

from nested import vf_nic
from shadow_nested import Guest, check, configure, moves

# conftest.py: this module's L1 has an uplink (bridge() puts it in br1)
L1_UPLINK = True


def test_shadow_standby(bridged, peer):
    """VF0 -> VF1 with guest-shadow and a virtio-net standby (guest-shadow's
    answer to the hold: the guest always has a NIC). The VF gives up the
    VM's MAC before its unplug, the standby carries the guest's traffic
    through the migration, and VF1 gets the MAC from guest-shadow only once
    it is ready; on VF1 every setting holds (peer traffic), the TCP stream
    survives, the standby sent frames and nothing was dropped."""
    l1 = bridged
    guest = Guest(l1, "shadow", standby=True)
    try:
        guest.boot()
        l1.src.wait_stat("standby_adopted", timeout=120,
                         pred=lambda s: int(s["standby_adopted"]) == 1)
        configure(guest, l1, peer)
        check(guest, l1, peer, "on VF0 at boot", promisc_traffic=False)
        before = l1.src.wait_stat("tx_standby")[-1]
        moves(guest, peer, [(vf_nic(l1.vf1, 1), "VF0 -> VF1 (standby)")], "shadow-standby")
        after = l1.l2(guest.name).wait_stat("mac_deferred", timeout=60,
                                            pred=lambda s: int(s["mac_deferred"]) >= 1)[-1]
        assert int(after["tx_standby"]) > int(before["tx_standby"]), \
            f"the standby sent nothing during the move: {after.line}"
        assert after["standby"] != "none" and int(after["has_standby"]) == 1, after.line
        print("shadow nested: standby: the guest's log:\n" + guest.run(
            "dmesg | grep -E 'gsh0|igbvf|virtio_net|eth[0-9]' | tail -40"), flush=True)
    finally:
        guest.untrust()
        l1.l2_stop("src", "dst")
