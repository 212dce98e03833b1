"""The guest withdraws and frees its area between compsc_vfio's look-up of
it and the take (rmmod igbvf during a size-query take, widened by the
test-only fault_take_delay_ms), round after round with igbvf loaded again:
the take writes nothing into the freed pages (its claim of the writer
word is its first write, made only while the area is still registered,
and L1 says so), the guest's rmmod returns at once, the reloaded driver
answers the peer, and no kernel reports a problem. Before the claim came
first, the host held, drained and aborted the writer word in pages the
guest had already given back ("withdrew its area during the take")."""
import re

from nested import (ALL_DIRTY, answers)

IGBVF = "/lib/compsc/drivers/igbvf/igbvf.ko"
DELAY_MS = 8000     # look-up to claim: time for the L2 to rmmod
ROUNDS = 2
DELAYED = r"fault_take_delay_ms: \d+ ms between the area's look-up and the take"
OUTCOME = re.compile(r"withdrew its area (before|during) the take|"
                     r"cannot take the device|device taken")


def test_take_withdrawn(l1, peer):
    l1.l2_pair(peer)
    l1.vfio_fault("fault_take_delay_ms", DELAY_MS)
    try:
        for rnd in range(ROUNDS):
            if rnd:
                l1.dst.start_incoming()
            one_round(l1, peer, rnd)
    finally:
        l1.vfio_fault("fault_take_delay_ms", 0)
    l1.assert_kernels_clean("src")


def one_round(l1, peer, rnd):
    assert 0 in l1.areas(), "the guest registered no area"
    with l1.hold_open() as mark:
        l1.migrate_start(params=ALL_DIRTY)
        l1.wait_dmesg(mark, DELAYED)
        l1.src.cmd(f"rm{rnd}", "rmmod igbvf")
        m = l1.src.wait_line(rf"l2ctl: rm{rnd} rc=(\d+)", timeout=60)
        assert m.group(1) == "0", l1.src.log()[-2000:]
        assert 0 not in l1.areas(), "rmmod left the area registered"
        log = l1.wait_dmesg(mark, OUTCOME.pattern, timeout=120)
        l1.src.qmp("migrate_cancel")
        res = l1.migrate_wait(timeout=120)
    outcome = OUTCOME.search(log).group(0)
    print(f"nested: round {rnd}: host after the guest's withdrawal: {outcome}; "
          f"migration {res['status']}")
    assert "withdrew its area before the take: nothing written" in log, log[-3000:]
    assert "withdrew its area during the take" not in log, log[-3000:]
    assert "device taken" not in log, log[-3000:]

    l1.src.cmd(f"ld{rnd}", f"compsc-insmod {IGBVF}")
    m = l1.src.wait_line(rf"l2ctl: ld{rnd} rc=(\d+)", timeout=120)
    assert m.group(1) == "0", l1.src.log()[-2000:]
    l1.src.wait_line(rf"l2ctl: ld{rnd} start(?:.|\n)*l2: up", timeout=120)
    assert 0 in l1.areas(), "the reloaded driver registered no area"
    assert answers(peer) >= 3, l1.src.log()[-2000:]
