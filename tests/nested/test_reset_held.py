"""A function reset of the VF in the L2 (its sysfs reset file) while
compsc_vfio holds the device: igbvf's reset_prepare waits inside the read
side for the host, so neither the driver's register writes nor the FLR
land in the middle of the take (the reset has not returned while the
device is held). The migration then completes, the reset finishes on the
destination within a bounded time (counted as one of the driver's
resets), no kernel reports a problem, and the VF answers the peer again.

The hold is kept open with compsc_vfio's test-only fault_size, as in
test_remove_held.py."""
import time

from compscvm import kernel_problems
from nested import ALL_DIRTY, DST_PORT, L2_IP, MIG_PORT, SRC_PORT

PARAMS = "/sys/module/compsc_vfio/parameters"
RESET = "for d in /sys/class/net/e*/device; do echo 1 > $d/reset; done"


def test_reset_while_held(l1, peer):
    l1.l2_start("src", l1.vf0, SRC_PORT)
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_l2_up("src")
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    before = [s for s in l1.wait_l2_stat("src", "compsc_resets")
              if "compsc_resets" in s][-1]
    hold0 = l1.sh(f"cat {PARAMS}/hold_ms").out.strip()
    l1.sh(f"echo 600000 > {PARAMS}/hold_ms; echo {1 << 40} > {PARAMS}/fault_size")
    mark = len(l1.sh("dmesg").out)
    try:
        l1.migrate_start(params=ALL_DIRTY)
        l1.wait_dmesg(mark, r"device taken on the size query")
        l1.l2_cmd("src", "rst", RESET)
        l1.wait_l2_line("src", r"l2ctl: rst start", timeout=60)
        time.sleep(8)
        assert "l2ctl: rst rc=" not in l1.l2_log("src"), \
            "the reset ran while the host held the device"
        log = l1.sh("dmesg").out[mark:]
        assert "given back" not in log, log
        l1.sh(f"echo 0 > {PARAMS}/fault_size")
        t_release = time.monotonic()
        res = l1.migrate_wait(timeout=300)
    finally:
        l1.sh(f"echo 0 > {PARAMS}/fault_size; echo {hold0} > {PARAMS}/hold_ms")
    print(f"nested: migration {res['status']}")
    assert res["status"] in ("completed", "failed"), res
    side = "dst" if res["status"] == "completed" else "src"
    m = l1.wait_l2_line(side, r"l2ctl: rst rc=(\d+)", timeout=120)
    took = time.monotonic() - t_release
    print(f"nested: reset returned on {side} {took:.1f} s after the hold could end")
    assert m.group(1) == "0", l1.l2_log(side)[-2000:]
    assert took < 200, took

    got = 0
    for _ in range(12):
        got = peer.ping(L2_IP, count=5, interval=0.5).received
        if got >= 3:
            break
        time.sleep(5)
    assert got >= 3, l1.l2_log(side)[-2000:]
    after = l1.wait_l2_stat(side, "compsc_resets")[-1]
    print(f"nested: compsc_resets {before['compsc_resets']} -> {after.get('compsc_resets')}")
    assert int(after["compsc_resets"]) > int(before["compsc_resets"]), (before, after)
    for n in ("src", "dst"):
        probs = kernel_problems(l1.l2_log(n))
        assert not probs, f"L2 {n}:\n" + "\n...\n".join(probs)
    probs = kernel_problems(l1.sh("dmesg").out)
    assert not probs, "L1:\n" + "\n...\n".join(probs)
    l1.check_kernel_log()
