"""libvirt on the nested bench: two L1 hosts on the root filesystem where
apt installed the project's packages and libvirt (l1root.sh), libvirtd
running on both (l1lib.sh l1_libvirt), and a guest defined from the XML
tools/libvirt/compsc-domxml writes. Used by test_virsh_migrate.py and
bench_libvirt.py."""
import contextlib
import lzma
import os
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from compsc_harness.vm import build_id
from l2guest import VIRTIO_MAC
from nested import KREL, L1, L2_IP, two_hosts

ROOTFS = os.environ.get("COMPSC_L1ROOT", "")
DOMXML = Path(__file__).resolve().parents[2] / "tools/libvirt/compsc-domxml"
NAME = "vm"
MIG_URI_PORT = 49152
# the hostdev network of each host's VFs (define_pool), and the MAC libvirt
# gives the VF it takes from it for the guest (the one L1's setup gives VF0)
POOL = "compsc"
GUEST_MAC = "52:54:00:77:00:10"


@contextlib.contextmanager
def libvirt_hosts(peer):
    """Two L1 hosts (host 0 and host 1) running the packages' modules and
    libvirtd, VF0 and VF1 of each bound to compsc_vfio."""
    assert ROOTFS and Path(ROOTFS, "usr/sbin/libvirtd").exists(), \
        f"no L1 root filesystem with libvirt at {ROOTFS!r} (make l1root)"

    def ready(host: L1) -> None:
        runs_packages(host)
        host.sh(f"l1_libvirt {host.host}", timeout=300)

    with two_hosts(peer, name="lv", ready=ready, rootfs=ROOTFS) as made:
        yield made


def runs_packages(host: L1) -> None:
    """@host runs the modules the packages' DKMS built, not the bench's."""
    for m in ("vfio", "compsc", "igb", "compsc_vfio"):
        ko = Path(ROOTFS, f"lib/modules/{KREL}/updates/dkms/{m}.ko.xz")
        with tempfile.NamedTemporaryFile(suffix=".ko") as f:
            f.write(lzma.decompress(ko.read_bytes()))
            f.flush()
            assert host.module_build_id(m) == build_id(f.name), f"{host.name}: {m} is not {ko}"


def domxml(vf: str = "", virtio: bool = False, network: str = "") -> str:
    """compsc-domxml's domain for @vf (or, @network, a VF libvirt takes
    from that hostdev network, with GUEST_MAC), booting the L2 kernel as
    L2.start() does, its first serial port in the file the harness reads and
    its second the command pipe (l2_cmd). @virtio: the paravirtual baseline
    instead, a virtio-net NIC on L1's bridge with the PF (l1_bridge)."""
    nic = ["--network", network, "--mac", GUEST_MAC] if network else ["--vf", vf]
    out = subprocess.run([str(DOMXML), *nic, "--name", NAME, "--memory", "256",
                          "--vcpus", "1", "--type", "kvm",
                          "--kernel", "/mnt/share/l2/vmlinuz",
                          "--initrd", "/mnt/share/l2/initrd.img",
                          "--cmdline", f"console=ttyS0 quiet panic=-1 no_timer_check l2ip={L2_IP}"],
                         capture_output=True, text=True, check=True).stdout
    ET.register_namespace("qemu", "http://libvirt.org/schemas/domain/qemu/1.0")
    root = ET.fromstring(out)
    devices = root.find("devices")
    for tag in ("serial", "console") + (("hostdev",) if virtio else ()):
        for e in devices.findall(tag):
            devices.remove(e)
    if virtio:
        root.remove(root.find("{http://libvirt.org/schemas/domain/qemu/1.0}override"))
        nic = ET.SubElement(devices, "interface", type="bridge")
        ET.SubElement(nic, "source", bridge="br0")
        ET.SubElement(nic, "mac", address=VIRTIO_MAC)
        ET.SubElement(nic, "model", type="virtio")
    for port, kind, path in ((0, "file", f"/run/{NAME}.log"), (1, "pipe", f"/run/{NAME}.ctl")):
        serial = ET.SubElement(devices, "serial", type=kind)
        ET.SubElement(serial, "source", path=path)
        ET.SubElement(serial, "target", port=str(port))
    return ET.tostring(root, encoding="unicode")


def define_pool(host: L1) -> None:
    """POOL on @host, a hostdev network over its PF's VFs as the packaged
    compsc-domxml writes it (once per host)."""
    if host.sh(f"l1_virsh net-info {POOL}", check=False).rc == 0:
        return
    pf = host.sh("l1_pf").out.strip()
    host.sh(f"chroot /sysroot compsc-domxml --pool-xml {pf} --network {POOL} > /sysroot/tmp/{POOL}.net.xml"
            f" && l1_virsh net-define /tmp/{POOL}.net.xml && l1_virsh net-start {POOL}")


def guest_vf(host: L1):
    """The index of @host's VF whose MAC is GUEST_MAC (the one libvirt took
    for the guest), or None."""
    pf = host.sh("l1_pf").out.strip()
    for m in re.finditer(r"vf (\d+)\s+link/ether (\S+)", host.sh(f"ip link show {pf}").out):
        if m[2].lower() == GUEST_MAC:
            return int(m[1])
    return None


def prepare(host: L1) -> None:
    """The command pipe's two FIFOs, and no console of an earlier guest."""
    host.sh(f"rm -f /run/{NAME}.log /run/{NAME}.ctl.in /run/{NAME}.ctl.out; "
            f"mkfifo /run/{NAME}.ctl.in /run/{NAME}.ctl.out")


def ready_destination(host: L1, vf: bool = True) -> None:
    """@host ready to take the guest: prepare(), and with @vf each of its
    VFs with a MAC of its own (the guest's VF free, and no other VF with
    the guest's MAC, which the destination would refuse)."""
    prepare(host)
    if vf:
        for i in (0, 1):
            host.vf_own_mac(i)


def start(host: L1, xml: str) -> None:
    """Define the guest from @xml on @host and start it."""
    prepare(host)
    host.sh(f"cat > /sysroot/tmp/{NAME}.xml <<'EOF'\n{xml}\nEOF\n"
            f"l1_virsh define /tmp/{NAME}.xml && l1_virsh start {NAME}")
    host.l2(NAME).wait_up()


def state(host: L1) -> str:
    """The guest's state on @host ("running", "paused", ...), or "absent"."""
    r = host.sh(f"l1_virsh domstate {NAME}", check=False)
    return r.out.strip() if r.rc == 0 else "absent"


def virsh_migrate(src: L1, dst: L1, extra: str = "", budget: bool = True, undefine: bool = True,
                  timeout: float = 600):
    """virsh migrate from @src to @dst (@extra: more options): peer to peer,
    so that the source's libvirtd drives it all; the stream on the hosts'
    link; @budget: the nested tests' 1 s downtime budget, else libvirt's
    and QEMU's defaults; @undefine: the source forgets the guest (else it
    keeps it defined, and with it the completed job's statistics). Its
    result."""
    opts = f"--migrateuri tcp://{dst.link_ip}:{MIG_URI_PORT} {extra}"
    if budget:
        src.sh(f"l1_virsh migrate-setmaxdowntime {NAME} 1000")
        opts += " --available-switchover-bandwidth 1000"
    if undefine:
        opts += " --undefinesource"
    return src.sh(f"l1_virsh migrate --live --p2p --persistent --verbose "
                  f"{NAME} qemu+tcp://{dst.link_ip}/system {opts}", timeout=timeout, check=False)
