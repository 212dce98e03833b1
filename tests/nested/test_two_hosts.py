"""Two hosts, each an L1 with its own emulated 82576 PF and VFs, both PFs'
ports on the peer's wire (its bridge), the migration stream on a link of
their own: QEMU moves an L2 from host 0's VF0 to host 1's VF0 and back under
a ping stream, each way restored through CompSC with its state carried.

What only two PFs show:
- the destination's PF applies the state the source's PF held for the
  guest (its MAC, VLAN filters, multicast list, receive size limit, and
  the administrator's spoof checking, trust and rate), where a free VF
  had none of it; traffic from the peer uses each of them after the move
  (a tagged ARP, a multicast ping, a jumbo ping);
- the source's PF releases the VF once its QEMU quits: no VLAN filter,
  no multicast address of the guest's is left there (the MAC and the
  administrator's settings stay: they are the host's, and an operator's
  stack gives a free VF its own);
- a destination that cannot take the state refuses it before the
  switch-over and the guest runs on at its source: a full VLAN filter
  table, or the guest's MAC already another VF's on the destination's
  PF (two VFs of one PF with one MAC would split the guest's frames);
- the wire learns that the guest moved. The guest announces itself after
  each restore (gratuitous ARP); without that the switch (the peer's
  bridge) goes on sending the guest's frames to the host it left until it
  forgets the MAC (300 s). The peer's ARP entry for the guest is
  permanent here, so that no ARP failure's broadcast finds the guest
  instead: the announcement is the only way the wire can learn the move.
"""
import errno
import time

import pytest

from compsc_harness.pf import vlan_arp
from compsc_harness.vm import vf_mac
from nested import (ALL_DIRTY, GUEST_VID, GUEST_VLAN_ADDR, L1, L2_IF, L2_IP, MIG_PORT, SRC_PORT,
                    answers, check_carried, check_vf0_migrated, configure_guest,
                    guest_config_unanswered, last_stat,
                    longest_quiet, migration_summary, two_hosts)

WATCH_S = 8
# what the administrator of the guest's first host set for its VF
ADMIN = "spoofchk off trust on max_tx_rate 200"
ADMIN_SHOWN = ("max_tx_rate 200Mbps", "spoof checking off", "trust on")


@pytest.fixture(scope="module")
def hosts(peer):
    with two_hosts(peer) as made:
        yield made


def _configure(host: L1, peer) -> None:
    """The guest's configuration, and its first host's settings for it."""
    configure_guest(host, "vm", peer)
    host.sh(f"ip link set $(l1_pf) vf 0 {ADMIN}")


def _check_traffic(peer, where: str) -> None:
    bad = guest_config_unanswered(peer)
    assert not bad, f"{where}: " + "; ".join(bad)


def _released(host: L1) -> None:
    """The guest's QEMU quit on @host: its PF holds nothing of the guest's
    for the VF but what the host's administrator set."""
    st = host.vfio_debugfs(host.vf0, "pf")
    assert st["nr_vlans"] == "0" and st["nr_mc"] == "0", (host.name, st)


def _move(peer, src: L1, dst: L1, restores0: int) -> list:
    """The guest "vm" from @src's VF0 to @dst's; the destination's l2stat
    lines up to one read WATCH_S s of guest time after its restore."""
    # a free VF: the MAC its administrator gave it, nothing of the guest's
    dst.l2_stop("vm")
    dst.vf_own_mac(0)
    assert dst.pf_vf_macs()[0] != vf_mac(0)
    dst.l2_start("vm", dst.vf0, SRC_PORT, f"-incoming tcp:{dst.link_ip}:{MIG_PORT}")
    dst.src.wait_incoming()
    held = src.vfio_debugfs(src.vf0, "pf")
    assert int(held["nr_vlans"]) > 0 and int(held["nr_mc"]) > 0, held
    with peer.ping_stream(L2_IP, interval=0.5) as ps:
        t0 = time.time()
        res = src.migrate(params=ALL_DIRTY, src=SRC_PORT, dst=SRC_PORT, dst_host=dst)
        t1 = time.time()
        assert res["status"] == "completed", res
        fresh = dst.l2("vm").wait_restores(restores0 + 1)
        t_r, up_r = time.time(), float(fresh["up"])
        time.sleep(WATCH_S)
        after = dst.l2("vm").wait_stat(pred=lambda s: float(s["up"]) >= up_r + WATCH_S)
    quiet = longest_quiet(ps.trace, t_r, t_r + WATCH_S)
    print(f"nested: host{src.host}->host{dst.host}: qemu {migration_summary(res)};"
          f" peer gap {ps.trace.max_gap(t0, t1 + 10):.2f} s (ping every 0.5 s),"
          f" longest quiet after the restore {quiet:.2f} s")
    assert dst.pf_vf_macs()[0] == vf_mac(0), "the destination's PF did not apply the MAC"
    assert dst.vfio_debugfs(dst.vf0, "pf") == held, "the destination's PF holds other state"
    shown = dst.pf_vfs()[0]
    assert all(a in shown for a in ADMIN_SHOWN), shown
    check_vf0_migrated(src, dst)
    assert quiet < 4, (f"no replies from host{dst.host} after the restore ({quiet:.1f} s);"
                       f" the peer's bridge:\n" + peer.run("bridge fdb show").out[-2000:] +
                       dst.l2("vm").log()[-2000:])
    src.l2_stop("vm")   # the source QEMU quits, as after any completed migration
    _released(src)
    _check_traffic(peer, f"on host{dst.host}")
    return after


def test_two_hosts(hosts, peer):
    a, b = hosts
    a.l2_start("vm", a.vf0, SRC_PORT)
    a.l2("vm").wait_up()
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    peer.run(f"ip neigh replace {L2_IP} lladdr {vf_mac(0)} dev {peer.bridge} nud permanent")
    _configure(a, peer)
    _check_traffic(peer, "before the first move")
    before = a.l2("vm").wait_stat("compsc_restores")
    rx0, restores0, resets0, announces0 = (
        last_stat(before, k) for k in
        ("rx_packets", "compsc_restores", "compsc_resets", "compsc_announces"))

    after = _move(peer, a, b, restores0)
    check_carried(after, rx0, restores0, resets0)
    back = _move(peer, b, a, restores0 + 1)
    check_carried(back, last_stat(after, "rx_packets"), restores0 + 1, resets0)
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    assert last_stat(back, "compsc_announces") == announces0 + 2, back[-1]
    for host in hosts:
        host.check_kernel_log()


def _guest_alone(hosts) -> dict:
    """The guest afresh on host 0's VF 0, none on host 1: its l2stat."""
    a, _ = hosts
    for host in hosts:
        host.l2_stop("vm")
    a.sh(f"l1_vf_mac 0 {vf_mac(0)}")
    a.l2_start("vm", a.vf0, SRC_PORT)
    a.l2("vm").wait_up()
    return a.l2("vm").stat_now()


def _refused_move(a, b, undo) -> tuple:
    """A migration from host @a to @b's VF 0, which @b was set up to refuse;
    @undo() puts @b back. QEMU's result, @b's kernel log of it, and its
    PF's VF MACs as they were before its QEMU quit."""
    try:
        b.l2_start("vm", b.vf0, SRC_PORT, f"-incoming tcp:{b.link_ip}:{MIG_PORT}")
        b.src.wait_incoming()
        mark = b.dmesg_mark()
        res = a.migrate(params=ALL_DIRTY, src=SRC_PORT, dst=SRC_PORT, dst_host=b)
        log = b.dmesg_since(mark)
        macs = b.pf_vf_macs()
    finally:
        b.l2_stop("vm")
        undo()
    return res, log, macs


def _stayed(a, peer, res, log, before) -> None:
    """The refused migration failed, and the guest runs on at host @a with
    its device, answering the peer, not reset."""
    assert res["status"] == "failed", res
    assert a.src.status() == "running"
    assert answers(peer) >= 3, a.l2("vm").log()[-3000:]
    after = a.l2("vm").stat_now()
    assert after["compsc_resets"] == before["compsc_resets"], (before, after)
    print(f"nested: refused at host1: {res.get('error-desc')!r}; host1's log:\n"
          + "\n".join(line for line in log.splitlines() if "compsc" in line or "igb" in line))


def test_two_hosts_refused(hosts, peer):
    """Host 1's PF has no VLAN filter left for the guest's VLAN: it refuses
    the pre-copy configuration, the migration fails before the
    switch-over, and the guest runs on at host 0 with its device."""
    a, b = hosts
    before = _guest_alone(hosts)
    a.l2("vm").run(f"ip link add link {L2_IF} name vl{GUEST_VID} type vlan id {GUEST_VID} && "
                   f"ip addr add {GUEST_VLAN_ADDR}/24 dev vl{GUEST_VID} && ip link set vl{GUEST_VID} up")
    b.vf_own_mac(0)
    b.fill_vlvf(b.vf1)
    res, log, _ = _refused_move(a, b, lambda: b.unfill_vlvf(b.vf1))
    assert "CompSC state refused: VLAN filter table full" in log, log[-3000:]
    assert "PF refused the VF's state" in log, log[-3000:]
    _stayed(a, peer, res, log, before)
    assert vlan_arp(peer, GUEST_VID, GUEST_VLAN_ADDR) >= 2, "the guest's VLAN on host 0"


def test_two_hosts_mac_in_use(hosts, peer):
    """Another VF of host 1's PF (VF 1, not the destination) has the
    guest's MAC already: host 1 refuses the guest's state, the migration
    fails before the switch-over, and the guest runs on at host 0 with its
    device; host 1's destination VF never got the MAC."""
    a, b = hosts
    before = _guest_alone(hosts)
    b.vf_own_mac(0)
    b.sh(f"l1_vf_mac 1 {vf_mac(0)}")
    res, log, macs = _refused_move(a, b, lambda: b.sh(f"l1_vf_mac 1 {b.vf_macs[1]}"))
    assert f"CompSC state refused: MAC {vf_mac(0)} already in use by VF 1" in log, log[-3000:]
    assert macs[0] != vf_mac(0), macs
    lm = b.last_migrations()[b.vf0]
    assert lm["status"] == "error" and lm["errno"] == -errno.EADDRINUSE, lm
    _stayed(a, peer, res, log, before)
    for host in hosts:
        host.check_kernel_log()
