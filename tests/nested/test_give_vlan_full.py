"""A real refusal at the hand-over: the guest adds a VLAN during pre-copy,
so the stop-copy state carries its configuration again, and after the
destination checked it (the destination QEMU waits with -S) the VF's PF
runs out of VLAN filters (L1's own igbvf on the VF the guest left takes
every free VLVF entry). The PF's import at the hand-over then refuses
(ENOSPC); the guest gets its device back to reset and replay, answers the
peer, migrates again once the table has room, and `rmmod igbvf` returns."""
import time

from nested import DST_PORT, MIG_PORT, SRC_PORT, answers

DEBUGFS = "/sys/kernel/debug/compsc_vfio"
IF = "$(ls /sys/class/net | grep -v '^lo$' | head -1)"
SLOW = {"max-bandwidth": 2 << 20}       # bytes/s: pre-copy lasts many seconds
FAST = {"max-bandwidth": 1 << 30}


def _wait_vlans(l1, bdf, n):
    t0 = time.monotonic()
    while int((pf := l1.vfio_debugfs(bdf, "pf")).get("nr_vlans", 0)) < n:
        assert time.monotonic() - t0 < 90, f"{bdf}'s PF never held {n} VLANs: {pf}"
        time.sleep(1)


def _vlan(l1, name, vid):
    l1.l2(name).run(f"ip link add link {IF} name vl{vid} type vlan id {vid}")


def test_give_vlan_full(l1, peer):
    l1.src.start()
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-S -incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.src.wait_up()
    assert answers(peer) >= 3
    for vid in (300, 301):
        _vlan(l1, "src", vid)
    _wait_vlans(l1, l1.vf0, 2)
    before = l1.src.stat_now()
    mark = l1.dmesg_mark()
    l1.vfio_fault("fault_size", 1 << 40)
    try:
        l1.migrate_start(params=SLOW)
        l1.wait_dmesg(mark, r"pre-copy configuration applied", timeout=120)
        # a change after the pre-copy chunk: the state carries it again
        _vlan(l1, "src", 302)
        _wait_vlans(l1, l1.vf0, 3)
        assert l1.src.qmp("query-migrate")["status"] == "active"
    finally:
        l1.vfio_fault("fault_size", 0)
    l1.src.qmp("migrate-set-parameters", **FAST)
    res = l1.migrate_wait()
    assert res["status"] == "completed", res
    tl = l1.sh(f"cat {DEBUGFS}/{l1.vf0}/timeline").out
    assert "config_resent=1" in tl, tl

    # checked at the destination; now the VLVF table fills, then the guest starts
    l1.l2_stop("src")
    l1.vf_own_mac(0)
    l1.fill_vlvf(l1.vf0)
    l1.dst.qmp("cont")
    got = answers(peer)
    log = l1.dmesg_since(mark)
    assert got >= 3, "the guest never answered after the refused import\n" + \
        log[-1500:] + l1.dst.log()[-1500:]
    assert "hand-over failed (-28)" in log, log[-3000:]
    mid = l1.dst.wait_restores(int(before["compsc_restores"]) + 1)
    assert int(mid["compsc_state_lost"]) == int(before["compsc_state_lost"]) + 1, (before, mid)

    # with room again, the next migration carries the state as usual
    l1.unfill_vlvf(l1.vf0)
    l1.src.start_incoming()
    res = l1.migrate(src=DST_PORT, dst=SRC_PORT)
    assert res["status"] == "completed", res
    l1.vf_own_mac(1)
    after = l1.src.wait_restores(int(mid["compsc_restores"]) + 1)
    assert int(after["compsc_state_lost"]) == int(mid["compsc_state_lost"]), (mid, after)
    assert answers(peer) >= 3, l1.src.log()[-3000:]
    l1.src.run("rmmod igbvf", timeout=120)
    l1.assert_kernels_clean("src", "dst")
