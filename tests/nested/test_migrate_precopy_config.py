"""The VF's configuration travels as pre-copy data: in a
migration slowed (a low max-bandwidth) and held in pre-copy (compsc_vfio's
test-only fault_size, as in test_take_bounded.py, so that the checks below
never race the switch-over), the destination VF
carries the guest's configuration (MAC, receive size limit) while the L2
still runs on the source; the guest then changes its MTU (a new receive
size limit at its PF), still in pre-copy, and the stop-copy state carries
the configuration again, so after the switch-over the destination VF has
the new limit, the guest restores through the host (no reset, no mailbox
message) and frames of the new MTU reach it from the peer. compsc_vfio's
debugfs timeline gives the chunk sizes and when the device was taken
against the vCPUs' stop."""
import re
import time


from nested import L2_IP, restores

SLOW = {"max-bandwidth": 2 << 20}       # bytes/s: pre-copy lasts many seconds
FAST = {"max-bandwidth": 1 << 30}
MTU = 1400
IF = "$(ls /sys/class/net | grep -v '^lo$' | head -1)"


def _in_precopy(l1, src_bdf, dst_bdf, mark):
    """While the migration is still in pre-copy: the destination VF was
    configured from the pre-copy chunk, as the source's PF holds it."""
    l1.wait_dmesg(mark, r"pre-copy configuration applied", timeout=120)
    assert l1.src.qmp("query-migrate")["status"] == "active"
    src_pf, dst_pf = l1.vfio_debugfs(src_bdf, "pf"), l1.vfio_debugfs(dst_bdf, "pf")
    assert dst_pf["mac"] == src_pf["mac"], (src_pf, dst_pf)
    assert dst_pf["max_frame"] == src_pf["max_frame"], (src_pf, dst_pf)
    assert l1.pf_vf_macs()[1] == src_pf["mac"], l1.pf_vf_macs()
    return src_pf


def _change_mtu(l1, src_bdf, old_frame):
    """The guest sets a new MTU: its PF gets a new receive size limit."""
    l1.src.cmd("mtu", f"ip link set {IF} mtu {MTU}")
    l1.src.wait_line(r"l2ctl: mtu rc=0")
    t0 = time.monotonic()
    while l1.vfio_debugfs(src_bdf, "pf")["max_frame"] == old_frame:
        assert time.monotonic() - t0 < 60, "the PF never saw the new MTU"
        time.sleep(1)
    assert l1.src.qmp("query-migrate")["status"] == "active", \
        "the switch-over came before the change"
    return l1.vfio_debugfs(src_bdf, "pf")["max_frame"]


def test_migrate_precopy_config(l1, peer):
    l1.l2_pair(peer)
    before = l1.src.stat_now()
    # the destination VF starts with another MAC than the guest's
    l1.vf_own_mac(1)
    assert l1.pf_vf_macs()[1] != l1.pf_vf_macs()[0]
    mark = l1.dmesg_mark()
    l1.vfio_fault("fault_size", 1 << 40)
    try:
        l1.migrate_start(params=SLOW)
        src_pf = _in_precopy(l1, l1.vf0, l1.vf1, mark)
        new_frame = _change_mtu(l1, l1.vf0, src_pf["max_frame"])
        # the destination still has what came in pre-copy
        assert l1.vfio_debugfs(l1.vf1, "pf")["max_frame"] == src_pf["max_frame"]
    finally:
        l1.vfio_fault("fault_size", 0)
    l1.src.qmp("migrate-set-parameters", **FAST)
    res = l1.migrate_wait()
    assert res["status"] == "completed", res
    log = l1.dmesg_since(mark)
    src_tl, dst_tl = l1.vfio_debugfs(l1.vf0, "timeline"), l1.vfio_debugfs(l1.vf1, "timeline")
    dst_pf = l1.vfio_debugfs(l1.vf1, "pf")
    # the source's VF no longer owns the guest's MAC once it has gone
    l1.vf_own_mac(0)
    after = l1.dst.wait_restores(restores(before) + 1)
    ns = {k: int(v) for k, v in src_tl.items() if k.endswith("_ns")}
    print(f"nested: pre-copy chunk {src_tl['pre_bytes']} bytes, stop-copy"
          f" {src_tl['stop_bytes']} bytes (configuration resent:"
          f" {src_tl['config_resent']}); taken"
          f" {(ns['stop_ns'] - ns['take_ns']) / 1e6:.1f} ms before the vCPUs"
          f" stopped; max_frame {src_pf['max_frame']} -> {new_frame};"
          f" destination {dst_tl}; guest after: {after}")
    # the change travelled at stop-copy and is what the destination VF has
    assert src_tl["config_resent"] == "1" and dst_tl["config_early"] == "0", (src_tl, dst_tl)
    assert int(src_tl["pre_bytes"]) > 0 and int(dst_tl["pre_bytes"]) == int(src_tl["pre_bytes"])
    assert 0 < ns["take_ns"] < ns["stop_ns"], src_tl
    assert dst_pf["max_frame"] == new_frame and dst_pf["mac"] == src_pf["mac"], dst_pf
    assert "device handed to the guest (configured by the host" in log, log[-3000:]
    assert restores(after) == restores(before) + 1, (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert int(after["compsc_restore_msgs"]) == 0, after
    # frames of the new MTU (1400-byte IP packets) reach the guest
    r = peer.run(["ping", "-n", "-c", "5", "-i", "0.5", "-s", str(MTU - 28), "-M", "do",
                  "-w", "30", L2_IP], timeout=40, check=False)
    assert re.search(r" [1-5] received", r.out), r.out
    l1.check_kernel_log()
