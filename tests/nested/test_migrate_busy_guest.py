"""Migrations while the guest does something to its VF:
with the interface down (it restores while down, and works once brought
up), during a loop of MTU changes (every change succeeds), and back to
back VF0 -> VF1 -> VF0 -> VF1 with no pause (the guest answers between
hops). Each time: restores == migrations, no driver reset, the peer's
traffic goes on. The three tests move one L2 along, in file order."""
import re
import time

import pytest

from nested import L2_IP, answers, migration_summary

STOP = "/tmp/mtu-loop.stop"


class Chain:
    """One guest hopping between the L2s "src" (VF0) and "dst" (VF1);
    each hop goes into a fresh QEMU on the other VF. @guest: the L2 it
    runs in now."""

    def __init__(self, l1, peer):
        self.l1, self.peer = l1, peer
        self.guest, self.other = l1.src, l1.dst
        l1.src.start()
        l1.src.wait_up()
        assert answers(peer) >= 3
        self.ifname = re.search(r"l2: up if=(\S+)", l1.src.log()).group(1)

    def stat(self, pred=None) -> dict:
        """The last l2stat line of the guest (one satisfying @pred)."""
        stats = self.guest.wait_stat("compsc_restores", pred=pred)
        return {k: int(v) if k.startswith("compsc_") else v
                for k, v in [s for s in stats if "compsc_restores" in s
                             and (pred is None or pred(s))][-1].items()}

    def hop(self) -> dict:
        """Migrate into a fresh QEMU on the other VF; completed, and the
        VF left behind gets another MAC (its host went away)."""
        self.other.start_incoming()
        res = self.l1.migrate(src=self.guest.port, dst=self.other.port, poll=0.5)
        print(f"nested: {self.guest.name} -> {self.other.name}: {migration_summary(res)}")
        assert res["status"] == "completed", res
        self.l1.vf_own_mac(0 if self.guest is self.l1.src else 1)
        self.guest, self.other = self.other, self.guest
        return res

    def restored(self, base: dict, n: int) -> dict:
        """Once the guest counts @n restores more than in @base (a stat()):
        that line; exactly @n, and no reset since @base."""
        want = base["compsc_restores"] + n
        s = self.stat(pred=lambda s: int(s["compsc_restores"]) >= want)
        assert s["compsc_restores"] == want, (want, s)
        if s["compsc_resets"] != base["compsc_resets"]:
            # (the console is quiet: the driver's warnings are in dmesg)
            why = self.cmd(f"why{want}", "dmesg | tail -40")
            raise AssertionError(f"a driver reset: {base} -> {s}; the guest's log:\n{why}")
        return s

    def cmd(self, cid: str, cmd: str, timeout: float = 120) -> str:
        """@cmd in the guest, waited for; its console output."""
        log0 = len(self.guest.log())
        self.guest.cmd(cid, cmd)
        m = self.guest.wait_line(rf"l2ctl: {cid} rc=(\d+)", timeout)
        assert m.group(1) == "0", self.guest.log()[-2000:]
        return self.guest.log()[log0:]


@pytest.fixture(scope="module")
def chain(l1, peer):
    return Chain(l1, peer)


def test_migrate_link_down(chain, peer):
    base = chain.stat()
    chain.cmd("down", f"ip link set dev {chain.ifname} down")
    assert peer.ping(L2_IP, count=3, interval=0.5, deadline=3).received == 0, \
        "the guest answered with its link down"
    for i in (1, 2):
        chain.hop()
        # restored while down (the driver's task looks once a second)
        chain.restored(base, i)
    chain.cmd("up", f"ip link set dev {chain.ifname} up")
    assert answers(peer) >= 3, chain.guest.log()[-2000:]
    chain.restored(base, 2)


def _mtu_loop(ifname: str) -> str:
    """Alternate 9000/1500 until STOP exists; count changes and failures."""
    return (f"rm -f {STOP}; n=0; f=0; while [ ! -e {STOP} ]; do "
            f"for m in 9000 1500; do n=$((n+1)); "
            f"ip link set dev {ifname} mtu $m 2>/tmp/mtu-loop.err || "
            "{ f=$((f+1)); cat /tmp/mtu-loop.err; }; done; done; "
            'echo "mtu-loop: changes=$n failed=$f"')


# A failure prints the guest's dmesg: a driver reset after a hop (once
# seen under TCG L2s, compsc_resets 0 -> 1, never explained) shows there.
def test_migrate_mtu_loop(chain, peer):
    try:
        _mtu_loop_hops(chain, peer)
    finally:    # the next test must not run beside a loop still going
        chain.guest.cmd("stopmtu", f"touch {STOP}")


def _mtu_loop_hops(chain, peer):
    base = chain.stat()
    chain.guest.cmd("mtu", _mtu_loop(chain.ifname))
    chain.guest.wait_line(r"l2ctl: mtu start", timeout=60)
    with peer.ping_stream(L2_IP, interval=0.2) as ps:
        # the loop alone, before any migration, costs no driver reset
        mark = len(chain.guest.stats())
        time.sleep(8)
        alone = chain.guest.stat_since(mark)
        print(f"nested: MTU loop alone: {alone}")
        assert int(alone["compsc_resets"]) == base["compsc_resets"], \
            (base, alone, chain.guest.log()[-3000:])
        for i in (1, 2):
            chain.hop()
            chain.restored(base, i)
            time.sleep(3)   # a few changes on this VF
        chain.cmd("stop", f"touch {STOP}")
        m = chain.guest.wait_line(r"mtu-loop: changes=(\d+) failed=(\d+)", 120)
        time.sleep(2)
    out = chain.cmd("stats", f"ethtool -S {chain.ifname} | grep -E 'cfg_deferred|restores'")
    print(f"nested: {m.group(0)}; {' '.join(out.split())[:300]}; "
          f"{ps.trace.received} of {ps.trace.sent} pings answered, longest gap "
          f"{ps.trace.max_gap():.2f} s")
    assert int(m.group(2)) == 0, chain.guest.log()[-3000:]
    assert int(m.group(1)) >= 4, m.group(0)
    assert answers(peer) >= 3, chain.guest.log()[-2000:]
    chain.restored(base, 2)


def test_migrate_back_to_back(chain, peer):
    base = chain.stat()
    ends = []
    with peer.ping_stream(L2_IP, interval=0.2) as ps:
        for _ in range(3):
            chain.hop()
            ends.append(time.time())
        chain.restored(base, 3)
        time.sleep(3)
        ends.append(time.time())
    # the guest answered on every VF it passed through, before it moved on
    for i, (a, b) in enumerate(zip(ends, ends[1:])):
        got = [t for t, _ in ps.trace.replies if a <= t <= b]
        assert got, f"no reply between hop {i + 1} and what followed ({b - a:.1f} s)"
    print(f"nested: back to back: {ps.trace.received} of {ps.trace.sent} pings answered, "
          f"longest gap {ps.trace.max_gap():.2f} s")
    assert answers(peer) >= 3
    chain.l1.assert_kernels_clean("src", "dst")
