"""An L2 behind a vIOMMU (QEMU's intel-iommu, caching-mode=on; the L2
kernel with intel_iommu=on) is refused live migration of its VF, and keeps
its device and its network.

The refusal is QEMU's own (Debian's QEMU 10, unmodified): its VFIO code
blocks the migration of any device that sits behind a vIOMMU ("Migration
is currently not supported with vIOMMU enabled"), because it cannot turn
the IOVAs of a device's dirty log into guest pages. With
enable-migration=on (what this bench and tools/libvirt ask for) that is an
error at start-up: the L2 does not start. With enable-migration=auto the
L2 starts, its VF works through the vIOMMU, and `migrate` fails at once,
before any device state arc: compsc_vfio never takes the device and QEMU
never starts its DMA log."""
import time

import pytest

from nested import DST_PORT, L2_IP, MIG_PORT, RETURN_PATH, SRC_PORT, QMPFailed

VIOMMU = "L2VIOMMU=1"
BLOCKED = "Migration is currently not supported with vIOMMU enabled"
L2_RAM = 256 << 20  # the L2's RAM (l1lib.sh L2MEM default): GPAs below this


def _area_addr(l1, vf_index: int) -> int:
    """The DMA address the guest behind VF @vf_index announced for its
    area (the PF's record, compsc.ko debugfs)."""
    areas = l1.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
                  "cat /sys/kernel/debug/compsc/areas").out
    for line in areas.splitlines():
        _, vf, addr, _ = line.split()
        if int(vf) == vf_index:
            return int(addr, 16)
    raise AssertionError(f"no area registered for VF {vf_index}:\n{areas}")


def _gone(l1, name: str, timeout: float = 90) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if l1.sh(f"p=$(cat /run/{name}.pid); [ -d /proc/$p ] && "
                 f"! grep -q '^State:.*Z' /proc/$p/status && echo alive; true").out.strip() == "":
            return True
        time.sleep(1)
    return False


def test_viommu_enable_migration_on_refused_at_start(l1):
    """enable-migration=on asks QEMU to fail rather than run unmigratable:
    behind a vIOMMU the L2 does not start, and QEMU says why."""
    l1.src.start(env=VIOMMU)
    assert _gone(l1, "src"), "QEMU started an L2 with a VF behind a vIOMMU " \
        "and enable-migration=on"
    err = l1.sh("cat /run/src.qemu", check=False).out
    print("nested: QEMU said: " + err.strip()[-500:])
    assert BLOCKED in err, err
    l1.l2_stop("src")


def test_viommu_migration_refused(l1, peer):
    try:
        before = l1.l2_pair(peer, env=f"{VIOMMU} L2MIG=auto")
        up = next(x for x in l1.src.log().splitlines() if x.startswith("l2: up"))
        print("nested: " + up)
        # the VF sits in a translated DMA domain of the L2's IOMMU ...
        assert "iommu=DMA" in up, up
        # ... so the address its driver announced is an IOVA, outside the
        # L2's RAM: the area is where the device, not the CPU, finds it
        addr = _area_addr(l1, 0)
        print(f"nested: area announced at {addr:#x} (L2 RAM ends at {L2_RAM:#x})")
        assert addr >= L2_RAM, hex(addr)
        assert peer.ping(L2_IP, count=10, interval=0.5).received >= 5

        mark = l1.dmesg_mark()
        for port in (SRC_PORT, DST_PORT):
            l1.qmp(port, "migrate-set-capabilities", capabilities=RETURN_PATH)
        with pytest.raises(QMPFailed, match=BLOCKED) as refused:
            l1.src.qmp("migrate", uri=f"tcp:127.0.0.1:{MIG_PORT}")
        print(f"nested: migrate said: {refused.value}")
        time.sleep(5)
        info = l1.src.qmp("query-migrate")
        assert info.get("status") not in ("active", "completed"), info
        assert l1.dst.status() == "inmigrate"
        # compsc_vfio never saw a migration: no take, no DMA log started
        log = l1.dmesg_since(mark)
        assert "device taken" not in log and "DMA logging" not in log, log[-2000:]
        lm = l1.last_migrations()[l1.vf0]
        print(f"nested: compsc_vfio's record of VF0: {lm}")
        assert lm is None or (lm["status"] == "none" and lm["migrations"] == 0), lm
        reads = l1.sh(f"cat /sys/kernel/debug/compsc_vfio/{l1.vf0}/log_reads",
                      check=False).out.strip()
        assert reads in ("", "0"), reads
        # the guest keeps its device and its network
        l1.kept_device(peer, before)
    finally:
        print(l1.sh("cat /run/src.qemu /run/dst.qemu", check=False).out[-1500:])
        l1.l2_stop("src", "dst")
    l1.check_kernel_log()
