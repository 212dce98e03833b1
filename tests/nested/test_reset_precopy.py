"""A function reset of the VF in the L2 (its sysfs reset file) during
pre-copy, before any take (a bandwidth limit keeps QEMU from asking the
size that takes the device): QEMU resets the VF (VFIO_DEVICE_RESET),
which ends the migration session, and the VFIO uAPI puts the device back
in RUNNING. The migration must not go on as if nothing happened:
compsc_vfio says so in L1's log, its data fd fails, QEMU fails the
migration and `compsc devices` says aborted. The guest's own reset
returns and it keeps answering on its VF; a second migration carries
the state (a CompSC restore, no further reset)."""
import time

from nested import (ALL_DIRTY, answers,
                    migration_summary, restores)

RESET = "for d in /sys/class/net/e*/device; do echo 1 > $d/reset; done"
SLOW = {"max-bandwidth": 1 << 20}


def test_reset_in_precopy_no_take(l1, peer):
    l1.l2_pair(peer)
    mark = l1.dmesg_mark()
    l1.migrate_start(params=SLOW)
    t0 = time.monotonic()
    while l1.src.qmp("query-migrate").get("status") != "active":
        assert time.monotonic() - t0 < 120, l1.src.qmp("query-migrate")
        time.sleep(1)
    l1.src.cmd("rst", RESET)
    m = l1.src.wait_line(r"l2ctl: rst rc=(\d+)", timeout=120)
    assert m.group(1) == "0", l1.src.log()[-2000:]
    log = l1.dmesg_since(mark)
    assert "device taken" not in log, "the device was taken before the reset:\n" + log
    # let it end: at full speed QEMU reads the fd or asks for the switch-over
    l1.src.qmp("migrate-set-parameters", **ALL_DIRTY, **{"max-bandwidth": 1 << 30})
    res = l1.migrate_wait(timeout=300)
    print(f"nested: migration {migration_summary(res)}")
    log = l1.dmesg_since(mark)
    assert res["status"] == "failed", (res, log[-3000:])
    assert "VF reset in PRE_COPY: the migration is void" in log, log[-3000:]
    assert "handed to the guest" not in log, log[-3000:]
    lm = l1.last_migrations()[l1.vf0]
    assert lm and lm["status"] == "aborted", lm
    assert l1.src.status() == "running"
    assert answers(peer, tries=12) >= 3, l1.src.log()[-2000:]

    # a second migration, to a fresh destination, carries the state
    before = l1.src.stat_now()
    l1.dst.start_incoming()
    res = l1.migrate(params={**ALL_DIRTY, "max-bandwidth": 1 << 30})
    print(f"nested: second migration {migration_summary(res)}")
    assert res["status"] == "completed", res
    l1.vf_own_mac(0)
    after = l1.dst.wait_restores(restores(before) + 1)
    assert restores(after) == restores(before) + 1, (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert answers(peer, tries=12) >= 3, l1.dst.log()[-2000:]
    l1.assert_kernels_clean("src", "dst")
