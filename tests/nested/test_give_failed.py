"""A hand-over that fails at the destination after the source took the
device never strands the guest: compsc_vfio's debugfs fault_give makes the
destination's give fail (the PF's import refused with ENOSPC; then the
area's mapping, which the fallback maps again). QEMU resets the VF and
starts the guest anyway; the guest finds its device released with a
version bump and no state, resets and replays its configuration, answers
the peer, and the next migration (with nothing injected) carries its
state as usual. Last, `rmmod igbvf` returns: no path of the driver waits
for a host that is gone."""
from nested import ALL_DIRTY, answers

DEBUGFS = "/sys/kernel/debug/compsc_vfio"
# compsc_vfio.h CVF_FAULT_GIVE_*
FAULT_PF = 1
FAULT_MAP = 2


def _stat(s, key):
    return int(s.get(key, -1))


def _fault_give(l1, bdf, what):
    l1.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
          f"echo {what} > {DEBUGFS}/{bdf}/fault_give")


def _migrate_give_fails(l1, peer, src, dst, left, fault, before):
    """One migration from the L2 @src to @dst whose hand-over fails with
    @fault at @dst's VF: the guest restores by a reset and answers again."""
    _fault_give(l1, dst.vf, fault)
    mark = l1.dmesg_mark()
    res = l1.migrate(params=ALL_DIRTY, src=src.port, dst=dst.port)
    print(f"nested: hand-over fault {fault}: migration {res['status']}")
    l1.vf_own_mac(left)
    got = answers(peer)
    log = l1.dmesg_since(mark)
    assert got >= 3, "the destination L2 never answered: its device stayed held\n" + \
        log[-2000:] + dst.log()[-3000:]
    assert "the guest gets its device back to reset" in log, log[-3000:]
    after = dst.wait_restores(_stat(before, "compsc_restores") + 1)
    assert _stat(after, "compsc_state_lost") == _stat(before, "compsc_state_lost") + 1, \
        (before, after)
    assert _stat(after, "compsc_host_restores") == _stat(before, "compsc_host_restores"), \
        (before, after)
    return after


def test_give_failed(l1, peer):
    before = l1.l2_pair(peer)

    # VF0 -> VF1: the destination PF refuses the import
    mid = _migrate_give_fails(l1, peer, l1.src, l1.dst, 0, FAULT_PF, before)
    lm = l1.last_migrations()[l1.vf1]
    assert lm["status"] == "error", lm

    # VF1 -> VF0: the area cannot be mapped at the give; the fallback can
    l1.src.start_incoming()
    mid = _migrate_give_fails(l1, peer, l1.dst, l1.src, 1, FAULT_MAP, mid)

    # VF0 -> VF1 with nothing injected: the recovered guest migrates as usual
    l1.dst.start_incoming()
    res = l1.migrate(params=ALL_DIRTY)
    assert res["status"] == "completed", res
    l1.vf_own_mac(0)
    after = l1.dst.wait_restores(_stat(mid, "compsc_restores") + 1)
    assert _stat(after, "compsc_host_restores") == _stat(mid, "compsc_host_restores") + 1, \
        (mid, after)
    assert _stat(after, "compsc_state_lost") == _stat(mid, "compsc_state_lost"), (mid, after)
    assert answers(peer) >= 3, l1.dst.log()[-3000:]
    assert l1.last_migrations()[l1.vf1]["status"] == "ok"

    # and the driver unloads: nothing waits for a host without a bound
    l1.dst.run("rmmod igbvf", timeout=120)
    l1.assert_kernels_clean("src", "dst")
