"""A function reset of the VF in the L2 (its sysfs reset file) while
compsc_vfio holds the device: igbvf's reset_prepare waits inside the read
side for the host, so neither the driver's register writes nor the FLR
land in the middle of the take (the reset has not returned while the
device is held). The migration then completes, the reset finishes on the
destination within a bounded time (counted as one of the driver's
resets), no kernel reports a problem, and the VF answers the peer again.
The hold is kept open with L1.hold_open()."""
import time


from nested import ALL_DIRTY, answers

RESET = "for d in /sys/class/net/e*/device; do echo 1 > $d/reset; done"


def test_reset_while_held(l1, peer):
    l1.l2_pair(peer)
    before = [s for s in l1.src.wait_stat("compsc_resets")
              if "compsc_resets" in s][-1]
    with l1.hold_open() as mark:
        l1.migrate_start(params=ALL_DIRTY)
        l1.wait_taken(mark)
        l1.src.cmd("rst", RESET)
        l1.src.wait_line(r"l2ctl: rst start", timeout=60)
        time.sleep(8)
        assert "l2ctl: rst rc=" not in l1.src.log(), \
            "the reset ran while the host held the device"
        log = l1.dmesg_since(mark)
        assert "given back" not in log, log
        l1.release_hold()
        t_release = time.monotonic()
        res = l1.migrate_wait(timeout=300)
    print(f"nested: migration {res['status']}")
    assert res["status"] in ("completed", "failed"), res
    side = "dst" if res["status"] == "completed" else "src"
    m = l1.l2(side).wait_line(r"l2ctl: rst rc=(\d+)", timeout=120)
    took = time.monotonic() - t_release
    print(f"nested: reset returned on {side} {took:.1f} s after the hold could end")
    assert m.group(1) == "0", l1.l2(side).log()[-2000:]
    assert took < 200, took
    assert answers(peer, tries=12) >= 3, l1.l2(side).log()[-2000:]
    after = l1.l2(side).wait_stat("compsc_resets")[-1]
    print(f"nested: compsc_resets {before['compsc_resets']} -> {after.get('compsc_resets')}")
    assert int(after["compsc_resets"]) > int(before["compsc_resets"]), (before, after)
    l1.assert_kernels_clean("src", "dst")
