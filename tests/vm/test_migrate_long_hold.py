"""A hold longer than the stack's transmit watchdog (12 s against igbvf's 5 s) while the guest transmits: the queue stopped for the host is not taken for a hung one, so the VF is not reset; the restore carries on and the guest's traffic resumes."""

import time

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate  # noqa: F401
from compsc_harness.vm import PEER_ADDR

HOLD_MS = 12000


def test_migrate_long_hold(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    before = ethtool_stats(vm, vf.ifname)
    mark = vm.log_mark()
    pinger = vm.start(f"ping -I {vf.ifname} -i 0.2 -w {HOLD_MS // 1000 + 12} {PEER_ADDR}",
                      timeout=HOLD_MS / 1000 + 60)
    time.sleep(2)
    res = migrate(vm, vf, blackout_ms=HOLD_MS)
    assert res["hold_ns"] >= HOLD_MS * 1e6, res
    got = pinger.wait(check=False)
    deadline = time.time() + 15
    while True:
        after = ethtool_stats(vm, vf.ifname)
        if after["compsc_restores"] > before["compsc_restores"] or time.time() > deadline:
            break
        time.sleep(0.2)
    log = vm.dmesg()
    assert after["compsc_restores"] == before["compsc_restores"] + 1, (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], \
        "the VF was reset over the hold:\n" + "\n".join(
            ln for ln in log.splitlines() if "WATCHDOG" in ln or "timed out" in ln)
    # the guest's own pings went on after the hand-back
    replies = got.out.count("bytes from")
    assert replies >= 10, got.out[-1500:]
    assert peer.ping(vf.ip, count=5, interval=0.2).received == 5
    vm.check_kernel_log(mark)
