"""guest-shadow moves an L2 with Debian's unmodified igbvf from a VF to
virtio-net (a destination with no free VF) and on to a VF again, under a
TCP and a ping stream, with the same checks as test_shadow_nested.py
(shadow_nested.py)."""
import pytest

from nested import L2Silent, vf_nic, virtio_nic
from shadow_nested import TAP, VM_MAC, fresh_guest_moves

# conftest.py: this module's L1 has an uplink (bridge() puts it in br1)
L1_UPLINK = True


# Not strict, and for L2Silent alone: in 3 of 8 runs by 2026-11-28 the L2
# fell silent, no console line and no ping answered for minutes: once
# locally, alone, in the move from virtio-net to VF1, and twice in
# fresh-clone CI runs beside another nested test file (the second in the
# move to virtio-net; the first printed nothing). See tests/nested/README.md,
# "A guest that falls silent". Until that is understood it must not block
# every landing; any other failure (no ping answered while the console
# runs commands, configuration lost, TCP broken, a replay error, a kernel
# warning) fails the test. A failure keeps all the L2s' consoles and the
# vCPU's registers (shadow_nested._keep_console).
@pytest.mark.xfail(raises=L2Silent, strict=False,
                   reason="the L2 fell silent in a move from or to virtio-net "
                   "in 3 of 8 runs; cause not found yet: tests/nested/README.md")
def test_shadow_vf_virtio_vf(bridged, peer):
    """VF0 -> virtio-net (its tap behind L1's uplink) -> VF1 with
    guest-shadow."""
    l1 = bridged
    fresh_guest_moves(l1, peer, [(virtio_nic(TAP, VM_MAC), "VF -> virtio-net"),
                                 (vf_nic(l1.vf1, 1), "virtio-net -> VF1")], "shadow-virtio")
