"""The VF's link state (auto: igb cannot force one) survives a migration onto a PF that forgot the VF, and the VF's link stays up."""

from compsc_harness.mig import compsc_vfs  # noqa: F401
from compsc_harness.pf import migrate_forgotten, pf_vf_line


def test_pf_link_state(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    # igb has no ndo_set_vf_link_state: a forced state is refused, so the
    # only state a VF can have (and migrate) is auto.
    r = vm.run(f"ip link set {vm.pf_if} vf {vf.index} state disable", check=False)
    assert r.rc != 0, "igb accepted a forced VF link state"
    line = pf_vf_line(vm, vf.index)
    assert "link-state" not in line or "link-state auto" in line, line
    migrate_forgotten(vm, vf)
    line = pf_vf_line(vm, vf.index)
    assert "link-state" not in line or "link-state auto" in line, line
    assert vm.get(f"/sys/class/net/{vf.ifname}/carrier").strip() == "1"
    assert peer.ping(vf.ip, count=3).received == 3
