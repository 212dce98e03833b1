"""A multicast group the VF joined survives a migration onto a PF that forgot it: the peer's pings to the group are answered by the VF."""

from compsc_harness.mig import compsc_vfs  # noqa: F401
from compsc_harness.pf import migrate_forgotten

GROUP = "239.1.2.3"


def group_answers(peer, count=3) -> int:
    r = peer.run(f"ping -n -c {count} -i 0.2 -w 10 -I {peer.bridge} {GROUP}", check=False)
    return r.out.count("bytes from")


def test_pf_vf_multicast(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    vm.run("sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0")
    try:
        # autojoin: the kernel joins the group, igbvf sends the hash to the PF
        vm.run(f"ip addr add {GROUP}/32 dev {vf.ifname} autojoin")
        assert group_answers(peer) >= 3, "group not reachable before migration"
        migrate_forgotten(vm, vf)
        assert group_answers(peer) >= 3, "group not reachable after migration"
    finally:
        vm.run(f"ip addr del {GROUP}/32 dev {vf.ifname}; "
               "sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1", check=False)
