"""guest-shadow moves an L2 with Debian's unmodified igbvf from a VF to
virtio-net (a destination with no free VF) and on to a VF again, under a
TCP and a ping stream, with the same checks as test_shadow_nested.py
(shadow_nested.py)."""
from nested import vf_nic, virtio_nic
from shadow_nested import TAP, VM_MAC, fresh_guest_moves

# conftest.py: this module's L1 has an uplink (bridge() puts it in br1)
L1_UPLINK = True


def test_shadow_vf_virtio_vf(bridged, peer):
    """VF0 -> virtio-net (its tap behind L1's uplink) -> VF1 with
    guest-shadow."""
    l1 = bridged
    fresh_guest_moves(l1, peer, [(virtio_nic(TAP, VM_MAC), "VF -> virtio-net"),
                                 (vf_nic(l1.vf1, 1), "virtio-net -> VF1")], "shadow-virtio")
