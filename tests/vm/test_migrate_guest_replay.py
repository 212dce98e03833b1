"""The fallback: a destination whose PF did not take the VF's PF-side state
(pf_import=skip, as a stock PF or an older host) does not tell the guest it
configured the VF, and the guest resets the VF and replays its own log:
one restore, no driver reset, the MAC and reachability back, and the host
path taken again on the next migration."""

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate, wait_restores  # noqa: F401


def test_migrate_guest_replay(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    try:
        _replay_then_host(vm, vf, peer)
    finally:
        # the skipped import dropped bench-setup's administrator MAC with
        # the rest of the PF state; later tests expect it
        vm.run(f"ip link set {vm.pf_if} vf {vf.index} mac {vf.mac}")


def _replay_then_host(vm, vf, peer):
    before = ethtool_stats(vm, vf.ifname)
    res = migrate(vm, vf, blackout_ms=0, pf_import="skip")
    assert res["status"] == "ok" and res["pf_import"] == "skipped", res
    assert res["host_config"] == "no", res
    wait_restores(vm, vf, before["compsc_restores"] + 1)
    vm.wait_link(vf.ifname, 30)
    tr = peer.ping(vf.ip, count=5, interval=0.2)
    assert tr.received == 5, f"ping after a guest-replayed restore: {tr.raw[-1500:]}"
    mid = ethtool_stats(vm, vf.ifname)
    assert mid["compsc_resets"] == before["compsc_resets"], "driver took its own reset path"
    assert mid["compsc_host_restores"] == before["compsc_host_restores"], mid
    # the reset handshake, the area and at least one replayed message
    assert mid["compsc_restore_msgs"] >= 3, mid
    assert vm.get(f"/sys/class/net/{vf.ifname}/address").strip() == vf.mac

    res = migrate(vm, vf, blackout_ms=0)
    assert res["host_config"] == "yes", res
    wait_restores(vm, vf, mid["compsc_restores"] + 1)
    after = ethtool_stats(vm, vf.ifname)
    assert after["compsc_restore_msgs"] == 0, after
    tr = peer.ping(vf.ip, count=5, interval=0.2)
    assert tr.received == 5, f"ping after the host-configured restore: {tr.raw[-1500:]}"
