"""A guest that rewrites its shared area while the host holds its device
(issue 16 item 3). The host judged the area once, at the take, on copies
(compsc_host_area_check()), and the source saves from those copies; what
the guest wrote since cannot reach the destination's device unchecked:

- the register count raised past the list's capacity: the source saves
  what it checked, the destination checks the area it finds in the
  guest's memory before it resumes, refuses it, and the migration fails;
- the replay log's record count raised past its capacity: the source
  copies the log at the save and checks the copy, refuses it, and the
  migration fails.

Either way the guest keeps its device (no restore, no driver reset) and
answers the peer; once it puts its area back, the next migration carries
its state. The guest itself writes, from its vCPUs (busybox devmem on
/dev/mem, the L2 kernel has no STRICT_DEVMEM), so QEMU's dirty log sees
the writes as it sees any guest store. L1.hold_open() keeps the device
taken for as long as the rewrite takes."""
import time

from nested import DST_PORT, L2_IP, MIG_PORT, SRC_PORT, answers, migration_summary

PF = "$(bench-setup -s | sed -n 's/.*pfif=//p')"
# struct compsc_area_hdr and struct compsc_replay_hdr (libcompsc abi.h)
REG_COUNT_OFF, REPLAY_OFF_OFF = 12, 44
REPLAY_COUNT_OFF = 8


def _restores(s):
    return int(s.get("compsc_restores", -1))


def _peek(l1, name, addr, width, cid):
    """The guest reads @width bits at guest-physical @addr."""
    l1.l2_cmd(name, cid, f"echo {cid}=$(devmem {addr:#x} {width})")
    return int(l1.wait_l2_line(name, rf"{cid}=(0x[0-9A-Fa-f]+)").group(1), 16)


def _poke(l1, name, addr, width, value, cid):
    """The guest writes @value (@width bits) at guest-physical @addr."""
    l1.l2_cmd(name, cid, f"devmem {addr:#x} {width} {value:#x}")
    m = l1.wait_l2_line(name, rf"l2ctl: {cid} rc=(\d+)")
    assert m.group(1) == "0", l1.l2_log(name)[-2000:]


def _rewrite_during_take(l1, peer, addr, width, value, cid):
    """Migrate src -> a fresh dst while the guest writes @value at @addr
    with its device held; the migration's result, the L1 log since the
    take and the peer's ping stream."""
    l1.l2_stop("dst")
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_incoming(DST_PORT)
    with l1.hold_open() as mark, peer.ping_stream(L2_IP, interval=0.2) as ps:
        l1.migrate_start()
        l1.wait_dmesg(mark, r"device taken on the size query")
        _poke(l1, "src", addr, width, value, cid)
        l1.release_hold()
        res = l1.migrate_wait(timeout=180, poll=0.5)
        t_end = time.time()
        time.sleep(6)
    log = l1.sh("dmesg").out[mark:]
    print(f"nested: {cid}: {migration_summary(res)}; compsc_vfio said:\n" +
          "\n".join(x for x in log.splitlines() if "compsc" in x)[-1500:])
    return res, log, ps, t_end


def _kept(l1, peer, before, ps, t_end):
    assert l1.l2_status(SRC_PORT) == "running"
    assert [t for t, _ in ps.trace.replies if t >= t_end], \
        "the source never answered after the failed migration"
    mark = len(l1.l2_stats("src"))
    assert answers(peer) >= 3, l1.l2_log("src")[-2000:]
    mid = l1.l2_stat_since("src", mark)
    assert _restores(mid) == _restores(before), (before, mid)
    assert mid["compsc_resets"] == before["compsc_resets"], (before, mid)


def test_area_rewritten_during_take(l1, peer):
    l1.l2_pair(peer)
    gpa = l1.areas()[0]
    before = [s for s in l1.wait_l2_stat("src", "compsc_restores")
              if "compsc_restores" in s][-1]
    reg_count = _peek(l1, "src", gpa + REG_COUNT_OFF, 16, "rc0")
    replay = gpa + _peek(l1, "src", gpa + REPLAY_OFF_OFF, 32, "ro0")
    rp_count = _peek(l1, "src", replay + REPLAY_COUNT_OFF, 32, "rp0")
    print(f"nested: area at {gpa:#x}: reg_count {reg_count}, replay log at "
          f"{replay:#x} with {rp_count} records")

    # the register list: saved from the take's copy, refused at the destination
    res, log, ps, t_end = _rewrite_during_take(
        l1, peer, gpa + REG_COUNT_OFF, 16, 0xffff, "regs")
    assert res["status"] == "failed", res
    assert "guest area refused" in log, log[-3000:]
    _kept(l1, peer, before, ps, t_end)
    _poke(l1, "src", gpa + REG_COUNT_OFF, 16, reg_count, "regs-back")

    # the replay log: copied at the save, refused there
    res, log, ps, t_end = _rewrite_during_take(
        l1, peer, replay + REPLAY_COUNT_OFF, 32, 0xffffffff, "replay")
    assert res["status"] == "failed", res
    assert "cannot save the device" in log, log[-3000:]
    _kept(l1, peer, before, ps, t_end)
    _poke(l1, "src", replay + REPLAY_COUNT_OFF, 32, rp_count, "replay-back")

    # its area put back, the guest migrates with its state
    l1.l2_stop("dst")
    l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_incoming(DST_PORT)
    res = l1.migrate()
    print(f"nested: area put back: {migration_summary(res)}")
    assert res["status"] == "completed", res
    l1.sh(f"ip link set {PF} vf 0 mac 02:00:00:00:00:90")
    stats = l1.wait_l2_stat("dst", "compsc_restores",
                            pred=lambda s: _restores(s) > _restores(before))
    after = [s for s in stats if _restores(s) > _restores(before)][0]
    assert _restores(after) == _restores(before) + 1, (before, after)
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    assert answers(peer) >= 3
    l1.assert_kernels_clean("src", "dst")
