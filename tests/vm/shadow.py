"""shadow: guest-shadow (gshadow.ko) on the bench VM, over Debian's stock igbvf.

The upper `gsh0` takes VF 0's MAC and address; VF 0 is its first lower
(MAC match), VF 1 the explicitly named one (lower_pci). A swap unbinds the
lower's driver (the device is gone for the guest), waits, and binds
another VF or the same one again: what a guest sees when its VF is
hot-unplugged and another plugged in around a migration.
"""

from __future__ import annotations

import re
import time
from typing import Optional

from compsc_harness.pf import vlan_arp
from compsc_harness.vm import BenchError, VM, VF, Bench, Peer, vf_ip, vf_mac

UPPER = "gsh0"
SYSFS = f"/sys/class/net/{UPPER}/gshadow"
KO = Bench.guest_module("kmod", "gshadow.ko")
IGBVF = "/sys/bus/pci/drivers/igbvf"
# Where VF 0's address goes while VF 1 carries the VM's MAC: the stand-in
# for "the source VF is on another host now" (the PF would otherwise match
# the MAC to VF 0's pool first).
AWAY_MAC = "52:54:00:77:00:2f"


def stats(vm: VM) -> dict:
    """ethtool -S of the upper as a dict of ints."""
    out = vm.run(f"ethtool -S {UPPER}").out
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(\w+): (\d+)$", out, re.M)}


def load(vm: VM, vfs: list[VF], hold_qlen: Optional[int] = None) -> None:
    """VF 1 unbound (the device a later swap brings), gshadow over VF 0 with
    VF 0's address moved to the upper; VF 1 named as a lower too."""
    vm.run(f"echo {vfs[1].bdf} > {IGBVF}/unbind")
    params = {"mac": vf_mac(0), "lower_pci": vfs[1].bdf}
    if hold_qlen is not None:
        params["hold_qlen"] = hold_qlen
    vm.insmod(KO, **params)
    wait_lower(vm, vfs[0].bdf, notified=1)
    vm.run(f"ip addr flush dev {vfs[0].ifname} && "
           f"ip addr add {vf_ip(0)}/24 dev {UPPER} && ip link set {UPPER} up")


def lower(vm: VM) -> str:
    """The upper's lower netdev now, or "none"."""
    return vm.run(f"cat {SYSFS}/lower").out.strip()


def rings(vm: VM, dev: str) -> tuple:
    """(rx, tx) ring sizes @dev's driver reports now (ethtool -g)."""
    cur = vm.run(f"ethtool -g {dev}").out.split("Current hardware settings:")[1]
    return tuple(int(re.search(rf"^{q}:\s+(\d+)", cur, re.M).group(1)) for q in ("RX", "TX"))


def rx_usecs(vm: VM, dev: str) -> int:
    """@dev's receive interrupt coalescing in microseconds (ethtool -c)."""
    return int(re.search(r"^rx-usecs:\s+(\d+)", vm.run(f"ethtool -c {dev}").out, re.M).group(1))


def lower_bdf(vm: VM) -> str:
    """Bus device of the upper's lower now, or "" when it has none."""
    r = vm.run(f"l=$(cat {SYSFS}/lower); [ \"$l\" = none ] || "
               "basename $(readlink /sys/class/net/$l/device)", check=False)
    return r.out.strip()


def wait_lower(vm: VM, bdf: str, notified: int, timeout: float = 30) -> float:
    """Wait until the upper's lower is the netdev on @bdf, nothing is held
    any more and the shadow has announced it (peer_notify reached
    @notified: the flush comes first in the same work); returns seconds."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if lower_bdf(vm) == bdf:
            s = stats(vm)
            if s["peer_notify"] >= notified and s["tx_hold_qlen"] == 0:
                return time.time() - t0
        time.sleep(0.1)
    raise BenchError(f"{UPPER} has no usable lower on {bdf} after {timeout}s\n"
                     + vm.run(f"cat {SYSFS}/lower; ethtool -S {UPPER}; dmesg | tail -30",
                              check=False).out)


def unplug(vm: VM, vf: VF) -> None:
    """The lower's device goes away: its driver is unbound."""
    vm.run(f"echo {vf.bdf} > {IGBVF}/unbind")


def plug(vm: VM, vf: VF) -> None:
    """A device appears: Debian's igbvf binds to it."""
    vm.run(f"echo {vf.bdf} > {IGBVF}/bind")


def host_moves(vm: VM, old: VF, new: VF) -> None:
    """What the hosts do around the move, on the bench's one PF: @old is on
    "the source host" now, so its MAC leaves the PF's pool (else the PF
    would still match the VM's MAC to @old first); VF 0 gets the VM's MAC
    from its host (a MAC match), another VF may take it from the guest
    (trust: the upper replays its MAC into it)."""
    pf = vm.pf_if
    away = AWAY_MAC if old.index == 0 else vf_mac(old.index)
    vm.run(f"ip link set {pf} vf {old.index} mac {away} trust off")
    if new.index == 0:
        vm.run(f"ip link set {pf} vf 0 mac {vf_mac(0)}")
    else:
        vm.run(f"ip link set {pf} vf {new.index} trust on")


def unload(vm: VM, vfs: list[VF]) -> None:
    """Remove gshadow and give the PF's VF MACs and trust back; the caller
    then restores the stock stack (vm.restore_stock)."""
    vm.run(f"ip link del {UPPER}.100 2>/dev/null; rmmod gshadow", check=False)
    pf = getattr(vm, "pf_if", None)
    if pf:
        for vf in vfs:
            vm.run(f"ip link set {pf} vf {vf.index} mac {vf_mac(vf.index)} trust off",
                   check=False)


VID = 100
VLAN_ADDR = f"10.77.{VID}.10"
GROUPS = [f"239.1.2.{n}" for n in range(1, 5)]
MTU = 9000  # the 82576 VF takes up to 9216 (igbvf's max_mtu)


def _jumbo_ok(peer) -> bool:
    r = peer.run(["ping", "-n", "-c", "3", "-i", "0.2", "-s", str(MTU - 28), "-M", "do",
                  "-w", "20", vf_ip(0)], timeout=30, check=False)
    return Peer._parse_ping(r.out, 0.2).received == 3


def _groups_answering(peer) -> int:
    n = 0
    for g in GROUPS:
        r = peer.run(f"ping -n -c 2 -i 0.2 -w 10 -I {peer.bridge} {g}", check=False)
        n += "bytes from" in r.out
    return n


def configure(vm, peer) -> None:
    """Everything goes through the upper, the way an application sets it."""
    for dev in (*peer._taps, peer.bridge):
        peer.run(["ip", "link", "set", "dev", dev, "mtu", str(MTU)])
    vm.run("modprobe 8021q && sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0")
    vm.run(f"ip link set {UPPER} mtu {MTU} && "
           f"ip link add link {UPPER} name {UPPER}.{VID} type vlan id {VID} && "
           f"ip addr add {VLAN_ADDR}/24 dev {UPPER}.{VID} && ip link set {UPPER}.{VID} up")
    for g in GROUPS:
        vm.run(f"ip addr add {g}/32 dev {UPPER} autojoin")


def unconfigure(vm, peer) -> None:
    """What configure() changed outside the upper, back as it was."""
    vm.run("sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1", check=False)
    for dev in (*peer._taps, peer.bridge):
        peer.run(["ip", "link", "set", "dev", dev, "mtu", "1500"], check=False)


def check_config(vm, peer, where: str) -> str:
    """Peer traffic proves each setting on the lower now; returns the
    offloads the upper masked for it (checked against the lower's own)."""
    dev = lower(vm)
    masked = vm.run(f"cat {SYSFS}/features_masked").out.strip()
    if "tso-ecn" in masked:
        assert "tx-tcp-ecn-segmentation: off" in vm.run(f"ethtool -k {dev}").out
        assert "tx-tcp-ecn-segmentation: off" in vm.run(f"ethtool -k {UPPER}").out
    assert vm.run(f"cat /sys/class/net/{dev}/mtu").out.strip() == str(MTU), where
    assert f" {vf_ip(0)}/24" in vm.run(f"ip -4 -br addr show dev {UPPER}").out, where
    assert peer.ping(vf_ip(0), count=3).received == 3, f"unicast ping {where}"
    assert _jumbo_ok(peer), f"MTU {MTU} jumbo ping {where}"
    assert vlan_arp(peer, VID, VLAN_ADDR) == 3, f"VLAN {VID} {where}"
    assert _groups_answering(peer) == len(GROUPS), f"multicast groups {where}"
    return masked
