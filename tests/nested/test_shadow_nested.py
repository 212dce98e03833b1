"""An L2 with Debian's unmodified igbvf under guest-shadow is live-migrated
VF0 -> VF1 -> VF0 by unmodified QEMU with hot-unplug/plug under a TCP and a
ping stream: TCP survives and MTU 9000, a VLAN, 30 multicast groups and
promiscuous mode hold on each new VF, checked by peer traffic
(shadow_nested.py). Each guest-shadow test has a file, and so an L1, of
its own: see shadow_nested.py, fresh_guest_moves()."""
from nested import vf_nic
from shadow_nested import fresh_guest_moves

# conftest.py: this module's L1 has an uplink (bridge() puts it in br1)
L1_UPLINK = True


def test_shadow_vf_vf(bridged, peer):
    """VF0 -> VF1 -> VF0 with guest-shadow."""
    l1 = bridged
    fresh_guest_moves(l1, peer, [(vf_nic(l1.vf1, 1), "VF0 -> VF1"),
                                 (vf_nic(l1.vf0, 0), "VF1 -> VF0")], "shadow-vf-vf")
