#!/usr/bin/env python3
"""make libvirt-check: the libvirt domain XML for a guest on a CompSC VF
(tools/libvirt/compsc-guest.xml, made by tools/libvirt/compsc-domxml).

- libvirt's own schema checker (virt-xml-validate, libvirt-clients >= 10)
  accepts it and the generator's other outputs, and refuses broken copies;
- it is what its generator makes today (the command is in <description>);
- the QEMU it asks for is the nested bench's: the vfio-pci properties
  and the machine type of tests/nested/l2guest.py's L2 command line, and the
  migration parameters of nested.ALL_DIRTY against the generator's
  `virsh migrate` command; a changed copy is caught.

No libvirtd and no VM: nothing here starts or migrates a guest.
Ends with "libvirt-check: N passed, N failed".
"""

import copy
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from l2guest import l2_argv, l2_vars
from nested import ALL_DIRTY

REPO = Path(__file__).resolve().parents[2]
GEN = REPO / "tools/libvirt/compsc-domxml"
XML = REPO / "tools/libvirt/compsc-guest.xml"

Q = "{http://libvirt.org/schemas/domain/qemu/1.0}"
# bookworm's 9.0 lacks <hostdev><driver model=...>, backports' 11.3 has it;
# 10 is the floor install-deps.sh asks for (versions between are unchecked)
MIN_LIBVIRT = 10
passed = failed = 0


def check(name, ok, why=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}")


def run(*argv, stdin=None):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=30)


def validate(text: str):
    """virt-xml-validate on @text (from stdin): (accepted, its output)."""
    r = run("virt-xml-validate", "-", "domain", stdin=text)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def generate(*argv) -> str:
    r = run(sys.executable, str(GEN), *argv)
    if r.returncode:
        raise RuntimeError(f"compsc-domxml {' '.join(argv)}: {r.stderr.strip()}")
    return r.stdout


def xml_qemu(root) -> dict:
    """What the XML asks of QEMU for the VF: host BDF, -device properties
    (in QEMU's spelling), machine type."""
    hd = root.find("devices/hostdev[@type='pci']")
    a = hd.find("source/address").attrib
    bdf = "%04x:%02x:%02x.%x" % tuple(int(a[k], 16) for k in ("domain", "bus", "slot",
                                                              "function"))
    alias = hd.find("alias").get("name")
    props = {}
    for p in root.findall(f"{Q}override/{Q}device[@alias='{alias}']/{Q}frontend/{Q}property"):
        v = p.get("value")
        props[p.get("name")] = {"true": "on", "false": "off"}.get(v, v) \
            if p.get("type") == "bool" else v
    return {"host": bdf, "props": props, "machine": root.find("os/type").get("machine")}


def nested_qemu(bdf: str) -> dict:
    """What the nested bench starts its L2 with on VF @bdf, by default: the
    QEMU arguments l2guest.py builds (its vfio-pci device, its machine)."""
    argv = l2_argv("l2", bdf, 5551, "10.0.2.15", l2_vars(""))
    vf = next(argv[i + 1] for i, a in enumerate(argv)
              if a == "-device" and argv[i + 1].startswith("vfio-pci,"))
    dev = dict(kv.split("=", 1) for kv in vf.split(",")[1:])
    # id and bus are the bench's plumbing: libvirt names and places the device
    return {"host": dev.pop("host"), "props": {k: v for k, v in dev.items()
                                               if k not in ("id", "bus")},
            "machine": argv[argv.index("-M") + 1]}


def test_schema():
    if not shutil.which("virt-xml-validate"):
        raise RuntimeError("virt-xml-validate missing: run .ci/install-deps.sh "
                           "(libvirt-clients from bookworm-backports)")
    r = run("virt-xml-validate", "--version")
    ver = re.search(r"(\d+)\.\d+", r.stdout)
    check("virt-xml-validate is libvirt >= 10", ver and int(ver.group(1)) >= MIN_LIBVIRT,
          f"{r.stdout.strip()!r}: bookworm's 9.0 lacks <driver model>; "
          "run .ci/install-deps.sh (libvirt-clients from bookworm-backports)")
    ok, out = validate(XML.read_text())
    check("schema: compsc-guest.xml validates", ok, out)
    for argv in (["--vf", "0000:3b:1f.7", "--type", "qemu", "--kernel", "/boot/vmlinuz",
                  "--initrd", "/boot/initrd.img", "--cmdline", "console=ttyS0"],
                 ["--vf", "0001:00:02.1", "--bar-mmap", "--disk", "/srv/g.raw",
                  "--disk-format", "raw", "--memory", "256", "--vcpus", "1"]):
        ok, out = validate(generate(*argv))
        check(f"schema: generated {' '.join(argv[:4])} ... validates", ok, out)


def broken(root):
    """(name, mutated copy) pairs the schema must refuse."""
    def mut(name, fn):
        r = copy.deepcopy(root)
        fn(r)
        return name, r
    hd = "devices/hostdev"
    return [
        mut("hostdev slot 0x20 (past 0x1f)",
            lambda r: r.find(f"{hd}/source/address").set("slot", "0x20")),
        mut("hostdev function 8", lambda r: r.find(f"{hd}/source/address").set("function", "8")),
        mut("hostdev managed='perhaps'", lambda r: r.find(hd).set("managed", "perhaps")),
        mut("hostdev without source", lambda r: r.find(hd).remove(r.find(f"{hd}/source"))),
        mut("override property type 'boolean'",
            lambda r: r.find(f".//{Q}property").set("type", "boolean")),
        mut("hostdev bus 0x100 (past 0xff)",
            lambda r: r.find(f"{hd}/source/address").set("bus", "0x100")),
    ]


def test_schema_refuses():
    for name, r in broken(ET.parse(XML).getroot()):
        ok, out = validate(ET.tostring(r, encoding="unicode"))
        check(f"schema refuses: {name}", not ok and "fail" in out,
              "virt-xml-validate accepted it")


def test_generated():
    root = ET.parse(XML).getroot()
    cmd = shlex.split(root.findtext("description").removeprefix("generated by: "))
    check("compsc-guest.xml is what its <description> command makes",
          generate(*cmd[1:]) == XML.read_text(), f"regenerate: {' '.join(cmd)} > {XML}")
    for argv, why in ((["--vf", "01:10.0"], "not a PCI address"),
                      (["--vf", "0000:01:10.0", "--initrd", "x"], "need --kernel"),
                      ([], "one of --vf and --network is required")):
        r = run(sys.executable, str(GEN), *argv)
        check(f"generator refuses {argv}", r.returncode == 2 and why in r.stderr
              and not r.stdout, f"exit {r.returncode}: {r.stderr.strip()[-200:]}")


def test_matches_nested():
    root = ET.parse(XML).getroot()
    want = xml_qemu(root)
    have = nested_qemu(want["host"])
    check("XML's VF -device = the nested bench's l2_nic (properties, host)",
          want == have, f"XML {want} != nested {have}")
    # the comparison can fail: a copy with the BAR mapped must not match
    off = copy.deepcopy(root)
    off.find(f".//{Q}property[@name='x-no-mmap']").set("value", "false")
    check("a copy with x-no-mmap false does not match", xml_qemu(off) != have,
          "comparison blind to x-no-mmap")
    gone = copy.deepcopy(root)
    gone.find(f".//{Q}frontend").remove(gone.find(f".//{Q}property[@name='enable-migration']"))
    check("a copy without enable-migration does not match", xml_qemu(gone) != have,
          "comparison blind to enable-migration")


def test_migrate_command():
    cmd = generate("--migrate-command", "qemu+ssh://dst/system", "--bench-params")
    got = {}
    m = re.search(r"virsh migrate-setmaxdowntime \S+ (\d+)", cmd)
    if m:
        got["downtime-limit"] = int(m.group(1))
    m = re.search(r"--available-switchover-bandwidth (\d+)", cmd)
    if m:
        got["avail-switchover-bandwidth"] = int(m.group(1))
    # virsh takes the switch-over bandwidth in MiB/s, QMP in bytes/s
    want = {"downtime-limit": ALL_DIRTY["downtime-limit"],
            "avail-switchover-bandwidth": ALL_DIRTY["avail-switchover-bandwidth"] >> 20}
    check("--bench-params virsh flags = nested.ALL_DIRTY", got == want, f"{got} != {want}")
    plain = generate("--migrate-command", "qemu+ssh://dst/system")
    live = [ln for ln in plain.splitlines() if ln.startswith("virsh migrate ")]
    check("migrate command: one virsh migrate --live, not --tunnelled (return-path)",
          len(live) == 1 == len(plain.splitlines()) and " --live " in live[0]
          and "--tunnelled" not in plain, plain)


def test_retarget():
    """--retarget moves the CompSC VF of a running domain's XML (libvirt's
    dumpxml adds a uuid and the guest-side address) to another host
    address and changes nothing else; it refuses a domain without one."""
    root = ET.parse(XML).getroot()
    ET.SubElement(root, "uuid").text = "8f0e5a3c-6c1e-4d9a-9a57-0123456789ab"
    ET.SubElement(root.find("devices/hostdev"), "address", type="pci", domain="0x0000",
                  bus="0x00", slot="0x05", function="0x0")
    running = ET.tostring(root, encoding="unicode")
    r = run(sys.executable, str(GEN), "--retarget", "-", "--vf", "0000:03:11.4", stdin=running)
    moved = ET.fromstring(r.stdout) if r.returncode == 0 else None
    check("--retarget exits 0", moved is not None, r.stderr.strip())
    if moved is None:
        return
    check("--retarget: the VF's host address is the new one",
          xml_qemu(moved)["host"] == "0000:03:11.4", xml_qemu(moved))
    for tree in (root, moved):      # all but that address, compared
        src = tree.find("devices/hostdev/source")
        src.remove(src.find("address"))
        ET.indent(tree)
    check("--retarget: nothing else changed (uuid, guest-side address, overrides)",
          ET.tostring(root) == ET.tostring(moved), r.stdout)
    ok, out = validate(r.stdout)
    check("schema accepts --retarget's output", ok, out)
    for text, why in (("<domain type='kvm'><devices/></domain>", "0 CompSC hostdevs"),
                      ("<domain", "compsc-domxml: -:")):
        r = run(sys.executable, str(GEN), "--retarget", "-", "--vf", "0000:03:11.4", stdin=text)
        check(f"--retarget refuses {text!r}", r.returncode == 2 and why in r.stderr
              and not r.stdout, f"exit {r.returncode}: {r.stderr.strip()[-200:]}")
    cmd = generate("--migrate-command", "qemu+ssh://dst/system", "--dest-vf", "0000:03:11.4")
    check("migrate command with --dest-vf: dumpxml | --retarget, then --xml and "
          "--persistent-xml", "--retarget - --vf 0000:03:11.4 > " in cmd
          and " --xml compsc-guest.dst.xml --persistent-xml compsc-guest.dst.xml" in cmd, cmd)


def test_network():
    """--network: the VF from a libvirt hostdev network (--pool-xml writes
    it for a PF), with the same vfio-pci properties on its alias."""
    dom = generate("--network", "compsc", "--mac", "52:54:00:12:34:56")
    ok, out = validate(dom)
    check("schema: --network domain validates", ok, out)
    root = ET.fromstring(dom)
    nic = root.find("devices/interface[@type='network']")
    check("--network: an interface on the network with the MAC, no hostdev",
          nic is not None and root.find("devices/hostdev") is None
          and nic.find("source").get("network") == "compsc"
          and nic.find("mac").get("address") == "52:54:00:12:34:56", dom)
    alias = nic.find("alias").get("name") if nic is not None else None
    props = {p.get("name") for p in root.findall(
        f"{Q}override/{Q}device[@alias='{alias}']/{Q}frontend/{Q}property")}
    check("--network: the vfio-pci properties on the interface's alias",
          props == {"enable-migration", "x-no-mmap"}, props)
    net = generate("--pool-xml", "enp1s0", "--network", "compsc")
    r = run("virt-xml-validate", "-", "network", stdin=net)
    check("schema: --pool-xml network validates", r.returncode == 0,
          (r.stdout + r.stderr).strip())
    fwd = ET.fromstring(net).find("forward")
    check("--pool-xml: hostdev forward over the PF, compsc_vfio, not managed",
          fwd is not None and fwd.get("mode") == "hostdev" and fwd.get("managed") == "no"
          and fwd.find("driver").get("model") == "compsc_vfio"
          and fwd.find("pf").get("dev") == "enp1s0", net)
    for argv, why in ((["--network", "compsc"], "--network needs --mac"),
                      (["--network", "compsc", "--mac", "53:00:00:00:00:01"], "not a unicast"),
                      (["--vf", "0000:01:10.0", "--network", "compsc", "--mac",
                        "52:54:00:12:34:56"], "one of --vf and --network"),
                      (["--pool-xml", "enp1s0"], "--pool-xml needs --network")):
        r = run(sys.executable, str(GEN), *argv)
        check(f"generator refuses {argv}", r.returncode == 2 and why in r.stderr
              and not r.stdout, f"exit {r.returncode}: {r.stderr.strip()[-200:]}")


def main() -> int:
    for t in (test_schema, test_schema_refuses, test_generated, test_matches_nested,
              test_migrate_command, test_retarget, test_network):
        try:
            t()
        except (OSError, RuntimeError, AttributeError, ValueError, AssertionError) as e:
            check(t.__name__, False, f"{type(e).__name__}: {e}")
    print(f"libvirt-check: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
