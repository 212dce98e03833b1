"""VF trust set by the administrator survives a migration onto a PF that forgot it (a fresh PF trusts no VF)."""

from compsc_harness.mig import compsc_vfs  # noqa: F401
from compsc_harness.pf import migrate_forgotten, pf_vf_line


def test_pf_trust(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    pf = vm.pf_if
    try:
        vm.run(f"ip link set {pf} vf {vf.index} trust on")
        assert "trust on" in pf_vf_line(vm, vf.index)
        migrate_forgotten(vm, vf)
        assert "trust on" in pf_vf_line(vm, vf.index)
    finally:
        vm.run(f"ip link set {pf} vf {vf.index} trust off", check=False)
    assert peer.ping(vf.ip, count=3).received == 3
