"""A guest that turns its registered area hostile after registering it is
refused: the migration fails cleanly, compsc_vfio says why, the source
guest keeps its device and its network, and L1 stays healthy.

The hostile bytes are written straight into the guest's RAM through the
file that backs it in L1 (what the guest itself could write there): the
area's reg_count is raised past reg_max, a list that would index past the
area."""
import re
import struct

import pytest

from compsc_harness.vm import NICS
from nested import Case

MEM = "/run/l2-src.mem"  # L1 has no /dev/shm; /run is in RAM too


def _ram(path: str) -> str:
    """QEMU options for L2 RAM in a file (both sides: the RAM block names
    must match for the migration to load)."""
    return (f"-object memory-backend-file,id=m0,size=256M,mem-path={path},share=on "
            "-machine memory-backend=m0")
AREA_MAGIC = 0x41435343  # COMPSC_AREA_MAGIC, "CSCA"
REG_COUNT_OFF = 12  # struct compsc_area_hdr.reg_count (libcompsc abi.h)


def _area_gpa(l1, vf_index: int) -> int:
    """The area the guest behind VF @vf_index registered (compsc.ko debugfs)."""
    areas = l1.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; "
                  "cat /sys/kernel/debug/compsc/areas").out
    for line in areas.splitlines():
        _, vf, gpa, _ = line.split()
        if int(vf) == vf_index:
            return int(gpa, 16)
    raise AssertionError(f"no area registered for VF {vf_index}:\n{areas}")


def _turn_hostile(l1) -> None:
    """Raise the source guest's area's reg_count past its reg_max."""
    gpa = _area_gpa(l1, 0)  # l1.vf0 is the PF's VF 0
    hdr = bytes.fromhex(l1.sh(f"dd if={MEM} bs=1 skip={gpa} count=16 2>/dev/null | "
                              "od -An -tx1 | tr -d ' \\n'").out.strip())
    magic, _, _, size, _, reg_max = struct.unpack("<IHHIHH", hdr)
    print(f"nested: area at {gpa:#x}, {size} bytes, reg_max {reg_max}")
    assert magic == AREA_MAGIC, hex(magic)
    l1.sh(f"printf '\\377\\377' | dd of={MEM} bs=1 seek={gpa + REG_COUNT_OFF} "
          "conv=notrunc 2>/dev/null")


@pytest.mark.parametrize("nic", list(NICS), scope="module")
def test_hostile_area_refused(l1, peer, nic):
    out = l1.run_case(peer, Case(expect="failed", src_extra=_ram(MEM),
                                 dst_extra=_ram("/run/l2-dst.mem"),
                                 start_hook=_turn_hostile, timeout=240))
    print(f"nested: migration {out.res['status']}; compsc_vfio said:\n" +
          "\n".join(x for x in out.log.splitlines() if "compsc" in x)[-1500:])
    print(l1.sh("cat /run/src.qemu /run/dst.qemu", check=False).out[-1500:])
    assert re.search(r"area|refus|invalid", out.log, re.I), out.log[-2000:]
    assert "device taken" not in out.log, "a hostile area was taken"
    l1.check_kernel_log()
