"""An L2 with Debian's unmodified igbvf under guest-shadow is live-migrated
VF0 -> VF1 -> VF0 by unmodified QEMU with hot-unplug/plug under a TCP and a
ping stream: TCP survives and MTU 9000, a VLAN, 30 multicast groups and
promiscuous mode hold on each new VF, checked by peer traffic
(shadow_nested.py). Each guest-shadow test has a file, and so an L1, of
its own: see shadow_nested.py, fresh_guest_moves()."""
import pytest

from nested import L2Silent, vf_nic
from shadow_nested import fresh_guest_moves

# conftest.py: this module's L1 has an uplink (bridge() puts it in br1)
L1_UPLINK = True


# Only the guest falling silent is expected to fail for now (2 of 9 runs
# on 2026-11-28, one in CI): a guest command stuck for minutes after a move
# while the guest ran on; any other failure (configuration lost, TCP
# broken, a replay error, a kernel warning) fails the test. A failure keeps
# what the harness could see of the guest (shadow_nested._keep_console).
@pytest.mark.xfail(raises=L2Silent, strict=False,
                   reason="a guest command stuck after a move in 2 of 9 runs; cause not "
                   "found yet: tests/nested/README.md, \"A guest that falls silent\"")
def test_shadow_vf_vf(bridged, peer):
    """VF0 -> VF1 -> VF0 with guest-shadow."""
    l1 = bridged
    fresh_guest_moves(l1, peer, [(vf_nic(l1.vf1, 1), "VF0 -> VF1"),
                                 (vf_nic(l1.vf0, 0), "VF1 -> VF0")], "shadow-vf-vf")
