"""A MAC change the PF refused (administrator-set MAC) is not replayed after migrations: the VF keeps working."""

from compsc_harness.mig import DBG, compsc_vfs, ethtool_stats, migrate, wait_restores  # noqa: F401

REFUSED = "52:54:00:77:99:99"


def test_migrate_refused_mac(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]  # bench-setup gave VF 0 an administrator MAC
    r = vm.run(f"ip link set {vf.ifname} address {REFUSED}", check=False)
    assert r.rc != 0, "the PF accepted a MAC change under an administrator MAC"
    # The replay log (in the area) holds only what the PF accepted.
    hexdump = vm.run(f"od -An -tx1 -v {DBG}/{vf.bdf}/area | tr -d ' \\n'").out
    assert REFUSED.replace(":", "") not in hexdump, "refused MAC recorded for replay"
    assert vm.get(f"/sys/class/net/{vf.ifname}/address").strip() == vf.mac
    for i in range(3):
        before = ethtool_stats(vm, vf.ifname)["compsc_restores"]
        migrate(vm, vf, blackout_ms=20)
        wait_restores(vm, vf, before + 1)
        assert vm.get(f"/sys/class/net/{vf.ifname}/address").strip() == vf.mac
        tr = peer.ping(vf.ip, count=3)
        assert tr.received == 3, f"VF unreachable after migration {i + 1}"
