"""A migration that breaks off after the source's device was taken leaves
the guest on the source with its device (no restore, no driver reset),
answering the peer, and the next migration to a fresh destination carries
the state:

- the destination QEMU killed at switch-over (the source paused in
  `pre-switchover`, vCPUs stopped, the device saved): `compsc devices`
  then says the migration was aborted after STOP_COPY and does not count
  the save as a migration;
- the migration stream cut mid-stream (a TCP relay in L1 between the two
  QEMUs killed while the device is held in pre-copy);
- the guest rewriting its shared area while the host holds its device.
  The host judged the area once, at the take, on copies
  (compsc_host_area_check()), and the source saves from those copies, so
  what the guest wrote since cannot reach the destination's device
  unchecked: a register count raised past the list's capacity is refused
  by the destination, which checks the area it finds in the guest's
  memory before it resumes; a replay log whose record count is raised
  past its capacity is refused by the source, which copies the log at the
  save and checks the copy. The guest itself writes, from its vCPUs
  (busybox devmem on /dev/mem, the L2 kernel has no STRICT_DEVMEM), so
  QEMU's dirty log sees the writes as it sees any guest store.

The tests move one L2 along, in file order; each starts a fresh pair
where the one before left none running."""
import time

from nested import DST_PORT, L2_IP, MIG_PORT, SRC_PORT, QMPFailed, answers, \
    migration_summary, restores

RELAY_PORT = 4445
PAUSE = [{"capability": "pause-before-switchover", "state": True}]
NO_PAUSE = [{"capability": "pause-before-switchover", "state": False}]


def _wait_status(l1, port, status, timeout=120):
    t0 = time.monotonic()
    while True:
        info = l1.qmp(port, "query-migrate")
        if info.get("status") == status:
            return info
        assert info.get("status") not in ("completed", "failed", "cancelled") and \
            time.monotonic() - t0 < timeout, f"never reached {status}: {info}"
        time.sleep(0.5)


def _kept_device(peer, guest, before, ps, t_cut):
    """After the failed migration: the source L2 @guest runs, answered
    the peer again after @t_cut (ping stream @ps), and its driver neither
    restored nor reset."""
    assert guest.status() == "running"
    back = [t for t, _ in ps.trace.replies if t >= t_cut]
    assert back, "the source never answered again: its device stayed taken"
    print(f"nested: first reply {back[0] - t_cut:.2f} s after the cut, "
          f"{len(back)} replies in the {time.time() - t_cut:.0f} s since")
    mark = len(guest.stats())
    assert answers(peer) >= 3, guest.log()[-2000:]
    mid = guest.stat_since(mark)
    assert restores(mid) == restores(before), (before, mid)
    assert mid["compsc_resets"] == before["compsc_resets"], (before, mid)


def _carried(l1, peer, guest, left_vf, before):
    """After a completed migration into the L2 @guest: exactly one CompSC
    restore, no reset, and the peer reaches it (the VF it left gets
    another MAC, as a source host that went away would leave it)."""
    after = l1.arrived(peer, before, guest, left_vf)
    assert restores(after) == restores(before) + 1, (before, after)
    return after


def _then_carried(l1, peer, before, what):
    """A guest on VF0 ("src") that kept its device migrates to a fresh
    destination on VF1 with its state carried; no kernel problem."""
    l1.dst.start_incoming()
    res = l1.migrate()
    print(f"nested: {what}: {migration_summary(res)}")
    assert res["status"] == "completed", res
    _carried(l1, peer, l1.dst, 0, before)
    l1.assert_kernels_clean("src", "dst")


def _migrations(lm):
    """The count in a `compsc devices` last_migration record (0 for none)."""
    return lm["migrations"] if lm else 0


def test_dst_killed_at_switchover(l1, peer):
    before = l1.l2_pair(peer)
    done = _migrations(l1.last_migrations()[l1.vf0])
    mark = l1.dmesg_mark()
    l1.src.qmp("migrate-set-capabilities", capabilities=PAUSE)
    l1.migrate_start()
    with peer.ping_stream(L2_IP, interval=0.2) as ps:
        _wait_status(l1, SRC_PORT, "pre-switchover")
        # paused at switch-over: vCPUs stopped, the device taken and saved
        assert l1.src.status() != "running"
        assert "device taken on the size query" in l1.dmesg_since(mark)
        t_cut = time.time()
        l1.sh("kill -9 $(cat /run/dst.pid)")
        try:
            l1.src.qmp("migrate-continue", state="pre-switchover")
        except QMPFailed as e:      # the return path may have failed it first
            print(f"nested: migrate-continue: {e}")
        res = l1.migrate_wait(timeout=120, poll=0.5)
        print(f"nested: killed at switch-over: {migration_summary(res)}")
        assert res["status"] == "failed", res
        time.sleep(6)
    l1.src.qmp("migrate-set-capabilities", capabilities=NO_PAUSE)
    _kept_device(peer, l1.src, before, ps, t_cut)
    assert 0 in l1.areas(), "the source guest's area is gone"
    # what an operator sees: the state was saved, but the device came back
    # to RUNNING held, so the migration did not happen; no count for it
    lm = l1.last_migrations()[l1.vf0]
    print(f"nested: last migration after the failure: {lm}")
    assert lm and lm["status"] == "aborted", lm
    assert _migrations(lm) == done, (done, lm)
    assert "after STOP_COPY" in (lm.get("reason") or ""), lm

    _then_carried(l1, peer, before, "next migration")
    lm = l1.last_migrations()[l1.vf0]
    assert lm["status"] == "ok" and _migrations(lm) == done + 1, (done, lm)
    assert lm.get("reason") is None, lm


def test_stream_cut(l1, peer):
    """Runs where the first test left the guest: "dst" on VF1."""
    assert l1.dst.status() == "running"
    before = l1.dst.stat_now()
    relay = (f"nc -l -p {RELAY_PORT} -e nc 127.0.0.1 {MIG_PORT} >/dev/null 2>&1 & "
             "echo $! > /run/relay.pid")
    l1.src.start_incoming()
    l1.sh(relay)
    with l1.hold_open() as mark:
        l1.migrate_start(src=DST_PORT, dst=SRC_PORT, to=RELAY_PORT)
        l1.wait_taken(mark, src=DST_PORT)
        with peer.ping_stream(L2_IP, interval=0.2) as ps:
            info = l1.dst.qmp("query-migrate")
            assert info["status"] == "active", info
            sent = info["ram"]["transferred"]
            time.sleep(1)
            t_cut = time.time()
            l1.sh("kill -9 $(cat /run/relay.pid)")
            res = l1.migrate_wait(timeout=120, poll=0.5, src=DST_PORT)
            print(f"nested: stream cut after {sent} bytes: {migration_summary(res)}")
            assert res["status"] == "failed", res
            time.sleep(6)
        assert "given back to the guest" not in l1.dmesg_since(mark), \
            "the hold's bound ended it, not the cut"
    _kept_device(peer, l1.dst, before, ps, t_cut)
    assert 1 in l1.areas(), "the source guest's area is gone"

    # the same relay, not cut, carries a whole migration
    l1.src.start_incoming()
    l1.sh(relay)
    l1.migrate_start(src=DST_PORT, dst=SRC_PORT, to=RELAY_PORT)
    res = l1.migrate_wait(src=DST_PORT)
    print(f"nested: next migration, through the relay: {migration_summary(res)}")
    assert res["status"] == "completed", res
    _carried(l1, peer, l1.src, 1, before)
    l1.sh("kill $(cat /run/relay.pid) 2>/dev/null; true")
    l1.assert_kernels_clean("src", "dst")


# struct compsc_area_hdr and struct compsc_replay_hdr (libcompsc abi.h)
REG_COUNT_OFF, REPLAY_OFF_OFF = 12, 44
REPLAY_COUNT_OFF = 8


def _peek(guest, addr, width, cid):
    """The L2 @guest reads @width bits at guest-physical @addr."""
    guest.cmd(cid, f"echo {cid}=$(devmem {addr:#x} {width})")
    return int(guest.wait_line(rf"{cid}=(0x[0-9A-Fa-f]+)").group(1), 16)


def _poke(guest, addr, width, value, cid):
    """The L2 @guest writes @value (@width bits) at guest-physical @addr."""
    guest.cmd(cid, f"devmem {addr:#x} {width} {value:#x}")
    m = guest.wait_line(rf"l2ctl: {cid} rc=(\d+)")
    assert m.group(1) == "0", guest.log()[-2000:]


def _rewrite_during_take(l1, peer, addr, width, value, cid):
    """Migrate src -> a fresh dst while the guest writes @value at @addr
    with its device held; the migration's result, the L1 log since the
    take and the peer's ping stream."""
    l1.dst.start_incoming()
    with l1.hold_open() as mark, peer.ping_stream(L2_IP, interval=0.2) as ps:
        l1.migrate_start()
        l1.wait_taken(mark)
        _poke(l1.src, addr, width, value, cid)
        l1.release_hold()
        res = l1.migrate_wait(timeout=180, poll=0.5)
        t_end = time.time()
        time.sleep(6)
    log = l1.dmesg_since(mark)
    print(f"nested: {cid}: {migration_summary(res)}; compsc_vfio said:\n" +
          "\n".join(x for x in log.splitlines() if "compsc" in x)[-1500:])
    return res, log, ps, t_end


def _guest_on_vf0(l1, peer):
    """The L2 running as "src" on VF0 (where test_stream_cut leaves it),
    or a fresh pair."""
    try:
        running = l1.src.status(timeout=10) == "running"
    except QMPFailed:
        running = False
    if not running:
        l1.l2_stop("src", "dst")
        l1.l2_pair(peer)


def test_area_rewritten_during_take(l1, peer):
    _guest_on_vf0(l1, peer)
    gpa = l1.areas()[0]
    before = l1.src.stat_now()
    reg_count = _peek(l1.src, gpa + REG_COUNT_OFF, 16, "rc0")
    replay = gpa + _peek(l1.src, gpa + REPLAY_OFF_OFF, 32, "ro0")
    rp_count = _peek(l1.src, replay + REPLAY_COUNT_OFF, 32, "rp0")
    print(f"nested: area at {gpa:#x}: reg_count {reg_count}, replay log at "
          f"{replay:#x} with {rp_count} records")

    # the register list: saved from the take's copy, refused at the destination
    res, log, ps, t_end = _rewrite_during_take(
        l1, peer, gpa + REG_COUNT_OFF, 16, 0xffff, "regs")
    assert res["status"] == "failed", res
    assert f"{l1.vf1}: guest area refused" in log, log[-3000:]
    _kept_device(peer, l1.src, before, ps, t_end)
    _poke(l1.src, gpa + REG_COUNT_OFF, 16, reg_count, "regs-back")

    # the replay log: copied at the save, refused there
    res, log, ps, t_end = _rewrite_during_take(
        l1, peer, replay + REPLAY_COUNT_OFF, 32, 0xffffffff, "replay")
    assert res["status"] == "failed", res
    assert f"{l1.vf0}: cannot save the device" in log, log[-3000:]
    _kept_device(peer, l1.src, before, ps, t_end)
    _poke(l1.src, replay + REPLAY_COUNT_OFF, 32, rp_count, "replay-back")

    # its area put back, the guest migrates with its state
    _then_carried(l1, peer, before, "area put back")
