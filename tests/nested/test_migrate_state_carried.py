"""QEMU migrates an L2 from VF0 to VF1 under ping traffic; the guest restores through CompSC (not its reset path), its counters continue and its rings were shifted."""
import re
import time

from nested import ALL_DIRTY, DST_PORT, L2_IP, SRC_PORT


def _last(stats, key):
    vals = [int(s[key]) for s in stats if key in s]
    return vals[-1] if vals else None


def test_migrate_state_carried(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, "-incoming tcp:127.0.0.1:4444")
    l1.wait_l2_up("src")
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    before = l1.wait_l2_stat("src", "compsc_restores")
    rx0 = _last(before, "rx_packets")
    restores0 = _last(before, "compsc_restores")
    resets0 = _last(before, "compsc_resets")
    with peer.ping_stream(L2_IP, interval=0.5) as ps:
        t0 = time.time()
        res = l1.migrate_retaking()
        t1 = time.time()
        assert res["status"] == "completed", res["info"]
        # the source host goes away: its VF no longer owns the guest's MAC
        l1.sh("ip link set $(bench-setup -s | sed -n 's/.*pfif=//p') vf 0 mac 02:00:00:00:00:99")
        l1.wait_l2_stat("dst", "compsc_restores")
        time.sleep(8)
        after = l1.l2_stats("dst")
    print(f"nested: attempts={res['attempts']} qemu {re.findall(r'downtime: [0-9]+ ms', res['info'])}"
          f" peer gap {ps.trace.max_gap(t0, t1 + 10):.2f} s (ping every 0.5 s)")
    assert after, l1.l2_log("dst")[-2000:]
    assert _last(after, "compsc_restores") == restores0 + 1, after[-1]
    assert _last(after, "compsc_resets") == resets0, after[-1]
    assert _last(after, "rx_packets") > rx0, (rx0, after[-1])
    assert min(int(s["rx_packets"]) for s in after) >= rx0, "rx counter went back"
    assert int(after[-1]["compsc_rx_shift_total"]) + int(after[-1]["compsc_tx_shift_total"]) > 0
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    l1.check_kernel_log()
