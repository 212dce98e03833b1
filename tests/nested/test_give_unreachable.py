"""A hand-over whose destination cannot map the guest's area at all
(compsc_vfio's debugfs fault_give 3: every mapping fails) leaves no host
that can release the hold the source's take left in guest memory. The
guest's own bound ends it: once the writer has been held for
COMPSC_HOLD_MAX_MS of its running time the driver takes its device
back, resets and replays, and answers the peer; `rmmod igbvf` returns.
The bound is 120 s; igbvf's debugfs compsc_hold_max_ms shortens it here
(the give-up path is the same, the wait is not)."""
import re
import time

from nested import ALL_DIRTY, DST_PORT, MOUNT_DEBUGFS, SRC_PORT, answers

DEBUGFS = "/sys/kernel/debug/compsc_vfio"
FAULT_NOMAP = 3
HOLD_MAX_S = 12
# the L2's one VF (a glob: the shell does not expand it in a redirection)
HOLD_MAX = "/sys/kernel/debug/igbvf/*/compsc_hold_max_ms"


def test_give_unreachable(l1, peer):
    before = l1.l2_pair(peer)
    # in the guest: it carries the value with it to the destination
    l1.src.run(f"{MOUNT_DEBUGFS}; "
               f"for f in {HOLD_MAX}; do echo {HOLD_MAX_S * 1000} > $f; done")
    l1.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
          f"echo {FAULT_NOMAP} > {DEBUGFS}/{l1.vf1}/fault_give")
    mark = l1.dmesg_mark()
    res = l1.migrate(params=ALL_DIRTY, src=SRC_PORT, dst=DST_PORT)
    print(f"nested: migration {res['status']}")
    log = l1.wait_dmesg(mark, r"hand-over failed", timeout=120)
    assert "out of reach" in log, log[-3000:]
    t0 = time.monotonic()
    l1.vf_own_mac(0)
    lost = int(before["compsc_state_lost"]) + 1
    stats = l1.dst.wait_stat("compsc_state_lost", timeout=HOLD_MAX_S + 120,
                             pred=lambda s: int(s.get("compsc_state_lost", 0)) >= lost)
    print(f"nested: the guest took its device back within {time.monotonic() - t0:.0f} s"
          " of the failed hand-over")
    after = next(s for s in stats if int(s.get("compsc_state_lost", 0)) >= lost)
    assert int(after["compsc_state_lost"]) == lost, (before, after)
    assert int(after["compsc_restores"]) == int(before["compsc_restores"]) + 1, (before, after)
    assert answers(peer) >= 3, l1.dst.log()[-3000:]
    # (warnings do not reach the L2's quiet console)
    dmesg = l1.dst.run("dmesg")
    assert re.search(r"CompSC: the host held the device for \d+ s: taken back", dmesg), \
        dmesg[-3000:]
    assert "hand-over without state (held too long), resetting" in dmesg, dmesg[-3000:]
    l1.dst.run("rmmod igbvf", timeout=120)
    l1.assert_kernels_clean("src", "dst")
