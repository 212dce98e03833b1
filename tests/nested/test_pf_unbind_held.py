"""The PF driver (igb) unbound in L1 while compsc_vfio holds VF0 for a
migration and a PF operation is in flight: the unbind waits for the call,
the migration then fails cleanly (QEMU says failed, L1 says the VF's PF
driver is gone) and no kernel reports a problem.

vfio-pci does not mark its VFs assigned, so an ordinary unbind of igb waits
in pci_disable_sriov() until QEMU releases the VFs. igb's private data goes
away under live VFs when they are marked assigned (Xen's pciback does):
igb then keeps SR-IOV enabled and its remove goes on. The test marks both
VFs so through compsc_vfio's debugfs fault_assigned, takes the device in
pre-copy (L1.hold_open()), and delays the save's PF export
(compsc.ko's debugfs pf_call_delay_ms) so the unbind runs while that call
holds the PF's ops. Without a registry that makes the PF's unregister wait
for calls in flight, the export runs on igb's freed adapter. igb stays
unbound afterwards, so this is the only test in its file."""
import re
import time

from nested import ALL_DIRTY, QMPFailed, migration_summary
from compsc_harness.vm import kernel_problems

DELAY_MS = 30000
DEBUGFS = "/sys/kernel/debug"


def _unbind_state(l1) -> str:
    return l1.sh("cat /run/pf-unbind.rc 2>/dev/null; true").out.strip()


def _l1_problems(l1, mark: int) -> list:
    """L1's kernel reports since @mark; from its console if L1 no longer
    answers (an oops in L1 panics it)."""
    try:
        return kernel_problems(l1.sh("dmesg", timeout=30).out[mark:])
    except Exception as e:  # noqa: BLE001 - L1 gone: what its console says
        probs = kernel_problems(l1.console())
        return probs or [f"L1 does not answer ({e!r}), its console says nothing"]


def _wait_end(l1, mark: int, t0: float) -> dict:
    """query-migrate's answer once the migration ends; fails at once on a
    kernel report in L1. QEMU holds its lock while it saves the device,
    so query-migrate may not answer until the PF call returns."""
    while time.monotonic() - t0 < 240:
        probs = _l1_problems(l1, mark)
        assert not probs, "L1:\n" + "\n...\n".join(probs)
        try:
            info = l1.src.qmp("query-migrate", timeout=10)
        except QMPFailed:
            continue
        if info.get("status") in ("completed", "failed", "cancelled"):
            return info
        time.sleep(1)
    raise AssertionError("the migration did not end in 240 s")


def test_pf_unbind_while_held(l1, peer):
    l1.l2_pair(peer)
    pf = l1.sh(f"basename $(readlink /sys/bus/pci/devices/{l1.vf0}/physfn)").out.strip()
    assert re.fullmatch(r"[0-9a-f:.]+", pf), pf
    for vf in (l1.vf0, l1.vf1):
        l1.sh(f"echo 1 > {DEBUGFS}/compsc_vfio/{vf}/fault_assigned")
    with l1.hold_open() as mark:
        l1.migrate_start(params=ALL_DIRTY)
        l1.wait_taken(mark)
        l1.sh(f"echo {DELAY_MS} > {DEBUGFS}/compsc/pf_call_delay_ms")
        l1.release_hold()
        l1.wait_dmesg(mark, r"pf_call_delay_ms: PF call delayed")
        t0 = time.monotonic()
        l1.sh("rm -f /run/pf-unbind.rc; "
              f"setsid sh -c 'echo {pf} > /sys/bus/pci/drivers/igb/unbind; "
              "echo done $? > /run/pf-unbind.rc' </dev/null >/dev/null 2>&1 &")
    res = _wait_end(l1, mark, t0)
    took = time.monotonic() - t0
    print(f"nested: migration {migration_summary(res)} ({took:.0f} s after the unbind began)")
    print(f"nested: unbind {_unbind_state(l1) or 'still running'}")
    log = l1.dmesg_since(mark)
    print("nested: L1 after the unbind:\n" + "\n".join(
        line for line in log.splitlines()
        if "PF" in line or "igb" in line or "compsc" in line)[-3000:])
    try:
        print(f"nested: compsc devices: {l1.last_migrations()}")
    except Exception as e:  # the PF is unbound: the tool may see no PF
        print(f"nested: compsc devices: {e}")
    assert res["status"] == "failed", res
    assert "the VF's PF driver is gone" in log, log[-3000:]
    # (whether the remove waited for the export in flight is not asserted:
    # the log lines that would show the order do not come in every run)
    assert l1.last_migrations()[l1.vf0]["status"] == "aborted"
    t1 = time.monotonic()
    while _unbind_state(l1) == "" and time.monotonic() - t1 < 60:
        time.sleep(1)
    assert _unbind_state(l1).startswith("done"), "the unbind never returned"
    l1.assert_kernels_clean()
