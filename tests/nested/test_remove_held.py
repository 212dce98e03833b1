"""rmmod igbvf in the L2 while compsc_vfio holds its device: the driver's
remove waits for the host instead of touching the device (rmmod has not
returned, the area is still registered, while the device is held), the
migration then completes, the remove finishes on the destination within
a bounded time and withdraws the area there (the host sees it gone and
takes nothing more), no kernel reports a problem, and loading igbvf again
where the L2 now runs gives a VF that answers the peer (#12 item 5, #16
item 3). The hold is kept open with L1.hold_open()."""
import time


from nested import ALL_DIRTY, answers

IGBVF = "/lib/compsc/drivers/igbvf/igbvf.ko"


def test_remove_while_held(l1, peer):
    l1.l2_pair(peer)
    assert 0 in l1.areas(), "the source guest registered no area"
    with l1.hold_open() as mark:
        l1.migrate_start(params=ALL_DIRTY)
        l1.wait_taken(mark)
        l1.src.cmd("rm", "rmmod igbvf")
        l1.src.wait_line(r"l2ctl: rm start", timeout=60)
        time.sleep(8)
        # held: the remove waits for the host, nothing withdrawn yet
        assert "l2ctl: rm rc=" not in l1.src.log(), \
            "rmmod returned while the host held the device"
        assert 0 in l1.areas(), "area withdrawn while the host held the device"
        l1.release_hold()
        t_release = time.monotonic()
        res = l1.migrate_wait(timeout=300)
    print(f"nested: migration {res['status']}")
    assert res["status"] in ("completed", "failed"), res
    side, vf = ("dst", 1) if res["status"] == "completed" else ("src", 0)
    m = l1.l2(side).wait_line(r"l2ctl: rm rc=(\d+)", timeout=120)
    took = time.monotonic() - t_release
    print(f"nested: rmmod returned on {side} {took:.1f} s after the hold could end")
    assert m.group(1) == "0", l1.l2(side).log()[-2000:]
    assert took < 200, took
    # withdrawn inside the read side, and the host sees it
    assert vf not in l1.areas(), l1.areas()
    mark_w = l1.dmesg_mark()
    time.sleep(5)
    log = l1.dmesg_since(mark_w)
    assert "device taken" not in log and "handed to the guest" not in log, log

    # igbvf again, on the side the L2 runs on: a working VF
    l1.l2(side).cmd("ld", f"compsc-insmod {IGBVF}")
    m = l1.l2(side).wait_line(r"l2ctl: ld rc=(\d+)", timeout=120)
    assert m.group(1) == "0", l1.l2(side).log()[-2000:]
    l1.l2(side).wait_line(r"l2ctl: ld start(?:.|\n)*l2: up", timeout=120)
    assert vf in l1.areas(), "the reloaded driver registered no area"
    assert answers(peer) >= 3, l1.l2(side).log()[-2000:]
    l1.assert_kernels_clean("src", "dst")
