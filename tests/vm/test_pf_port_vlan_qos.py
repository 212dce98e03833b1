"""A port VLAN with QoS set by the administrator survives a migration onto a PF that forgot it: the PF shows it and tagged frames from the peer reach the VF."""

from compsc_harness.mig import compsc_vfs  # noqa: F401
from compsc_harness.pf import migrate_forgotten, pf_vf_line, vlan_arp

VID, QOS = 200, 3


def test_pf_port_vlan_qos(vm, compsc_vfs, peer):
    vf = compsc_vfs[0]
    addr = f"10.77.{VID}.{10 + vf.index}"
    pf = vm.pf_if
    try:
        vm.run(f"ip link set {pf} vf {vf.index} vlan {VID} qos {QOS} && "
               f"ip addr add {addr}/24 dev {vf.ifname}")
        assert vlan_arp(peer, VID, addr) == 3, "port VLAN before migration"
        migrate_forgotten(vm, vf)
        assert f"vlan {VID}, qos {QOS}" in pf_vf_line(vm, vf.index)
        assert vlan_arp(peer, VID, addr) == 3, "tagged frames after migration"
    finally:
        vm.run(f"ip link set {pf} vf {vf.index} vlan 0; "
               f"ip addr del {addr}/24 dev {vf.ifname}", check=False)
    assert peer.ping(vf.ip, count=3).received == 3
