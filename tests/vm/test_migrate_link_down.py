"""A VM whose VF interface is down migrates any number of times: the guest
restores each hand-back while down (its task looks once a second), so the
host never finds an unrestored device and refuses; brought up, the VF works
and the driver never took its own reset path."""

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate, wait_restores  # noqa: F401

HOPS = 3


def test_migrate_link_down(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    vm.run(f"ip link set {vf.ifname} down")
    try:
        for i in range(HOPS):
            res = migrate(vm, vf, blackout_ms=0, check=False)
            assert res["status"] == "ok", f"migration {i + 1} while down: {res}"
            n = wait_restores(vm, vf, before["compsc_restores"] + i + 1, timeout=15)
            assert n == before["compsc_restores"] + i + 1, f"hand-back {i + 1} not restored"
    finally:
        vm.run(f"ip link set {vf.ifname} up")
    vm.wait_link(vf.ifname, 30)
    tr = peer.ping(vf.ip, count=5, interval=0.2)
    assert tr.received == 5, f"ping after up: {tr.raw[-1500:]}"
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_resets"] == before["compsc_resets"], after
    assert after["compsc_host_restores"] == before["compsc_host_restores"] + HOPS, after
