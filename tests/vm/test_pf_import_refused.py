"""A PF state the destination cannot take (more VLAN filters than the VLVF holds) is refused before the reset: the migration fails cleanly and the source keeps its device and its PF state."""

from compsc_harness.mig import compsc_vfs, migrate  # noqa: F401
from compsc_harness.pf import pf_vf_line


def test_pf_import_refused(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    before = pf_vf_line(vm, vf.index)
    v0 = migrate(vm, vf, reset="none")["version"]
    res = migrate(vm, vf, check=False, pf_import="unfit")
    assert res["rc"] != 0 and res["status"] == "error", res
    assert res["pf_import"] == "refused" and res["aborted"] == 1, res
    assert "refused" in res["error"] and res["errno"] == -28, res  # -ENOSPC
    assert "No space left on device" in res["err"], res  # the write's errno
    assert res["version"] == v0, "refused migration bumped the version"
    assert res["pf_forget"] == "no", "the source's VF was reset"
    assert "VLAN filter table full" in vm.dmesg()
    assert pf_vf_line(vm, vf.index) == before
    tr = peer.ping(vf.ip, count=5)
    assert tr.received == 5, f"source after the refusal: {tr.raw[-800:]}"
