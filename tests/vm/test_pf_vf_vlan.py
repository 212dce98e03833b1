"""A VLAN filter the VF asked for survives a migration onto a PF that forgot it: tagged frames from the peer reach the VF's VLAN interface."""

from compsc_harness.mig import compsc_vfs  # noqa: F401
from compsc_harness.pf import migrate_forgotten, vlan_arp

VID = 100


def test_pf_vf_vlan(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    dev, addr = f"v{VID}", f"10.77.{VID}.{10 + vf.index}"
    vm.run("modprobe 8021q")
    try:
        vm.run(f"ip link add link {vf.ifname} name {dev} type vlan id {VID} && "
               f"ip addr add {addr}/24 dev {dev} && ip link set {dev} up")
        assert vlan_arp(peer, VID, addr) == 3, "VLAN before migration"
        migrate_forgotten(vm, vf)
        assert vlan_arp(peer, VID, addr) == 3, "tagged frames after migration"
    finally:
        vm.run(f"ip link del {dev}", check=False)
    assert peer.ping(vf.ip, count=3).received == 3
