"""An administrator-set VF MAC survives a migration onto a PF that forgot it: the PF shows it again, the VF's reset after the move gets it from the PF, traffic flows."""

from compsc_harness.mig import compsc_vfs  # noqa: F401
from compsc_harness.pf import migrate_forgotten, pf_section_ok, pf_vf_line


def test_pf_admin_mac(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    assert f"link/ether {vf.mac}" in pf_vf_line(vm, vf.index)
    res = migrate_forgotten(vm, vf)
    measure("PF section", res["pf_bytes"], "B")
    measure("state bytes (driver + PF)", res["state_bytes"], "B")
    assert pf_section_ok(res["pf_bytes"]), res
    # a forgotten PF holds no MAC for the VF: this one is the import's
    assert f"link/ether {vf.mac}" in pf_vf_line(vm, vf.index)
    assert vm.get(f"/sys/class/net/{vf.ifname}/address").strip() == vf.mac
    assert peer.ping(vf.ip, count=3).received == 3
