"""What testpmd asks the PF through the CompSC igb VF PMD (a new MAC, a VLAN filter, a multicast address) is in effect after a stand-in migration onto a PF that forgot the VF: traffic from the peer proves each, first with the host importing the PF's record (no mailbox message), then with the host skipping it and the PMD replaying its own log (reset, area, log)."""

import time

from compsc_harness.mig import compsc_vfs, load_compsc, migrate  # noqa: F401
from compsc_harness.pf import vlan_arp
from compsc_harness.dpdk import TestPmd, require_testpmd

NEW_MAC = "02:77:00:00:00:99"
VID = 100
GROUP_MAC = "01:00:5e:01:02:03"  # 239.1.2.3
TRIES = 3


def mac_answers(peer, ip: str) -> int:
    """Pings to ip, which the peer's static neighbour entry sends to NEW_MAC
    (testpmd's icmpecho answers any address)."""
    return peer.ping(ip, count=TRIES, interval=0.2, deadline=10).received


def group_answers(peer, vf) -> int:
    """ARP requests sent to the group's MAC: only a VF whose multicast
    filter takes the group receives them (icmpecho answers any ARP). Not
    pings to the group: icmpecho would answer from the group's MAC, a
    source the peer's bridge drops."""
    return vlan_arp(peer, 0, f"10.77.0.{95 + vf.index}", TRIES, dst=GROUP_MAC)


def vlan_answers(peer, vf) -> int:
    # testpmd answers the tagged ARP untagged when the PF strips the tag
    # (it does once the VF has a VLAN): the answer proves the request came in
    return vlan_arp(peer, VID, f"10.77.{VID}.{10 + vf.index}", TRIES, any_tag=True)


def commands(tp, *lines: str, timeout: float = 10) -> None:
    """Interactive testpmd lines, returning once it prompted after each."""
    n = tp.log().count("testpmd> ")
    for line in lines:
        tp.command(line)
    deadline = time.time() + timeout
    while tp.log().count("testpmd> ") < n + len(lines):
        assert time.time() < deadline, f"testpmd did not take {lines}: {tp.log()[-2000:]}"
        time.sleep(0.2)


def in_effect(peer, vf, ip: str) -> dict:
    return {"mac": mac_answers(peer, ip), "vlan": vlan_answers(peer, vf),
            "multicast": group_answers(peer, vf)}


def test_dpdk_replay(vm, compsc_vfs, peer, measure):
    require_testpmd(vm)
    vf = compsc_vfs[0]
    ip = f"10.77.0.{90 + vf.index}"
    tp = None
    try:
        # bench-setup gave the VF an administrator's MAC: the PF refuses
        # the VF's own unless it is trusted
        vm.run(f"ip link set {vm.pf_if} vf {vf.index} trust on")
        peer.run(f"ip neigh replace {ip} lladdr {NEW_MAC} dev {peer.bridge} nud permanent")
        tp = TestPmd.start(vm, vf, interactive=True, app="--enable-hw-vlan-filter")
        # testpmd turns promiscuous mode on at start: the PF refuses the
        # unicast half (NACK), after setting the multicast half, which
        # would let any group in. Off, the PF acknowledges it (logged).
        commands(tp, "set promisc 0 off")
        assert peer.ping(vf.ip, count=5, interval=0.1).received == 5
        # none of it works before testpmd asks: the checks can fail
        before = in_effect(peer, vf, ip)
        assert before == {"mac": 0, "vlan": 0, "multicast": 0}, before
        commands(tp, f"mac_addr set 0 {NEW_MAC}", f"rx_vlan add {VID} 0",
                 f"mcast_addr add 0 {GROUP_MAC}")
        asked = in_effect(peer, vf, ip)
        assert asked == {"mac": TRIES, "vlan": TRIES, "multicast": TRIES}, (
            asked, tp.log()[-2000:])
        x0 = tp.xstats()

        # the host's path: the PF forgot the VF, then imported its record
        res = migrate(vm, vf, reset="both", blackout_ms=20)
        assert res["pf_forget"] == "done" and res["host_config"] == "yes", res
        assert len(tp.wait_restores(1)) == 1, tp.log()[-3000:]
        host = in_effect(peer, vf, ip)
        x1 = tp.xstats()
        assert host == asked, f"after the host-configured migration: {host}"
        assert x1["compsc_host_restores"] == x0["compsc_host_restores"] + 1, x1
        assert x1["compsc_restore_msgs"] == 0, x1

        # the fallback: the PF forgot the VF and the host imported nothing
        res = migrate(vm, vf, reset="both", pf_import="skip", blackout_ms=20)
        assert res["pf_import"] == "skipped" and res["host_config"] == "no", res
        assert len(tp.wait_restores(2)) == 2, tp.log()[-3000:]
        replayed = in_effect(peer, vf, ip)
        x2 = tp.xstats()
        measure("dpdk replay: messages of the fallback restore",
                x2["compsc_restore_msgs"], "msgs")
        assert replayed == asked, f"after the PMD's own replay: {replayed}"
        assert x2["compsc_host_restores"] == x1["compsc_host_restores"], x2
        # the reset, the area, and at least the MAC, VLAN and multicast
        assert x2["compsc_restore_msgs"] >= 5, x2
        assert x2["compsc_replay_nacks"] == 0, x2
        assert x2["compsc_replay_lost"] == 0, x2
        assert x2["compsc_restores"] == 2 and x2["compsc_restores_refused"] == 0, x2
        log = tp.log()
        assert "restore refused" not in log and "reset event" not in log, log[-3000:]
        assert log.count("Configuring Port 0") == 1, log[-3000:]
        out = tp.stop()
        assert "Bye" in out, out[-2000:]
    finally:
        if tp is not None:
            tp.stop()
        peer.run(f"ip neigh del {ip} dev {peer.bridge}", check=False)
        # the PF forgot the VF: bench-setup's MACs and trust come back
        load_compsc(vm)
