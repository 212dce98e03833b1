"""`compsc devices` in the guest agrees with lspci -vvv / lspci -n (PFs, VF
BDFs, drivers, SR-IOV fields) and with the CompSC stack: a stock igbvf is
"stock"; a VF on the patched igbvf has its area registered, is "compsc",
shows ethtool -S compsc_restores, and both it and the last migration move
with a stand-in migration."""

import json
import re

from compsc_harness.mig import compsc_vfs, ethtool_stats, migrate, wait_restores  # noqa: F401


def devices(vm):
    r = vm.run("compsc devices --json")
    assert r.err == "", r.err
    return json.loads(r.out)


def lspci_sriov(vm):
    """Every function lspci -vvv shows with an SR-IOV capability, as
    {bdf: {driver, total, initial, num, offset, stride, vf_device}}."""
    out = vm.run("lspci -D -vvv").out
    pfs = {}
    for block in out.split("\n\n"):
        if "(SR-IOV)" not in block:
            continue
        bdf = block.split()[0]
        m = re.search(r"Initial VFs: (\d+), Total VFs: (\d+), Number of VFs: (\d+)", block)
        o = re.search(r"VF offset: (\d+), stride: (\d+), Device ID: ([0-9a-f]{4})", block)
        drv = re.search(r"Kernel driver in use: (\S+)", block)
        assert m and o, block
        pfs[bdf] = dict(driver=drv.group(1) if drv else None,
                        initial=int(m.group(1)), total=int(m.group(2)), num=int(m.group(3)),
                        offset=int(o.group(1)), stride=int(o.group(2)),
                        vf_device=int(o.group(3), 16),
                        enable="Enable+" in block.split("IOVCtl:")[1].split("\n")[0])
    return pfs


def lspci_ids(vm):
    """{bdf: "vvvv:dddd"} from lspci -n."""
    ids = {}
    for line in vm.run("lspci -D -n").out.splitlines():
        f = line.split()
        ids[f[0]] = f[2]
    return ids


def lspci_driver(vm, bdf):
    m = re.search(r"Kernel driver in use: (\S+)", vm.run(f"lspci -k -s {bdf}").out)
    return m.group(1) if m else None


def check_pci(vm, d):
    """The PCI half of the listing against lspci and the kernel's virtfnN links."""
    want = lspci_sriov(vm)
    ids = lspci_ids(vm)
    assert want, "lspci shows no SR-IOV PF: the bench should have the 82576"
    assert [p["bdf"] for p in d["pfs"]] == sorted(want), (d, want)
    assert d["pci_functions"] == len(ids)
    for pf in d["pfs"]:
        w, s = want[pf["bdf"]], pf["sriov"]
        assert pf["id"] == ids[pf["bdf"]] and pf["driver"] == w["driver"], (pf, w)
        assert (s["total_vfs"], s["initial_vfs"], s["num_vfs"]) == (w["total"], w["initial"], w["num"])
        assert (s["vf_offset"], s["vf_stride"], s["vf_device"]) == (w["offset"], w["stride"], w["vf_device"])
        assert s["vf_enable"] == w["enable"]
        assert [v["index"] for v in pf["vfs"]] == list(range(w["num"]))
        for v in pf["vfs"]:
            link = vm.run(f"readlink /sys/bus/pci/devices/{pf['bdf']}/virtfn{v['index']}").out
            assert link.strip().endswith("/" + v["bdf"]), (v, link)
            assert v["present"] and ids[v["bdf"]] == s["vf_id"], (v, ids.get(v["bdf"]))
            assert v["driver"] == lspci_driver(vm, v["bdf"]), v
    return d["pfs"][0]


def test_compsc_devices_stock(vm, vfs):
    pf = check_pci(vm, devices(vm))
    assert pf["bdf"] == vm.pf_bdf and pf["driver"] == "igb"
    assert [v["bdf"] for v in pf["vfs"]] == [v.bdf for v in vfs]
    for v in pf["vfs"]:
        assert v["driver"] == "igbvf" and v["mode"] == "stock", v
        assert v["area_registered"] in (None, False) and v["restores"] is None, v
        assert v["netdev"] == next(x.ifname for x in vfs if x.bdf == v["bdf"])


def test_compsc_devices_compsc(vm, compsc_vfs):
    vf = compsc_vfs[0]
    d = devices(vm)
    pf = check_pci(vm, d)
    assert d["areas_error"] is None, d
    mine = {v["bdf"]: v for v in pf["vfs"]}
    for x in compsc_vfs:
        v = mine[x.bdf]
        st = ethtool_stats(vm, x.ifname)
        assert v["netdev"] == x.ifname and v["mode"] == "compsc", v
        assert v["area_registered"] is True, v
        assert v["restores"] == st["compsc_restores"], (v, st)
    before = mine[vf.bdf]
    res = migrate(vm, vf, blackout_ms=0)
    assert res["status"] == "ok", res
    wait_restores(vm, vf, before["restores"] + 1)
    after = {v["bdf"]: v for v in devices(vm)["pfs"][0]["vfs"]}[vf.bdf]
    assert after["restores"] == before["restores"] + 1, (before, after)
    assert after["restores"] == ethtool_stats(vm, vf.ifname)["compsc_restores"]
    last = after["last_migration"]
    assert last["source"] == "compsc_standin" and last["status"] == "ok", after
    assert last["migrations"] == res["migrations"] and last["errno"] == 0, (last, res)
    text = vm.run("compsc devices").out
    assert re.search(rf"^PF {pf['bdf']}  {pf['id']}  driver igb$", text, re.M), text
    assert re.search(rf"^  0 +{vf.bdf} +igbvf +{vf.ifname} +yes +compsc +{after['restores']} +"
                     rf"ok \({res['migrations']} migrations?\)$", text, re.M), text
    print(text)
