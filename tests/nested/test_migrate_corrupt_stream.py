"""A device state spoilt on the way is refused by the destination's variant driver during QEMU's load; the migration fails and the source L2 keeps its device and its state (no restore, no reset). So is a spoilt pre-copy chunk (the VF's configuration, refused as it arrives, before the switch-over), and the destination VF does not keep the configuration of a migration that never came."""
import pytest

from compsc_harness.vm import NICS
from nested import Case


def _refused(l1, peer, fault, refusal, src_up=False):
    """Migrate with @fault spoiling one chunk: the migration fails on
    @refusal and the source L2 runs on with its device, untouched."""
    out = l1.run_case(peer, Case(expect="failed", src_up=src_up,
                                 start_hook=lambda l1: l1.vfio_fault("fault_corrupt", fault)))
    assert any(r in out.log for r in refusal), out.log[-3000:]
    return out.log


@pytest.mark.parametrize("nic", list(NICS), scope="module")
def test_migrate_corrupt_stream(l1, peer, nic):
    _refused(l1, peer, 1, ("stream refused", "foreign or corrupt"))
    # the same source to a fresh destination; this time the pre-copy chunk is spoilt
    dmesg = _refused(l1, peer, 2, ("pre-copy configuration refused",), src_up=True)
    assert "pre-copy configuration applied" not in dmesg, dmesg[-3000:]
    l1.check_kernel_log()
