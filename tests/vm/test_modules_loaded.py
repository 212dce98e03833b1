"""The CompSC modules the guest loads (compsc.ko, igb, igbvf) are the builds its image carries: their build IDs match the host copies in COMPSC_MODULES."""

from compsc_harness.mig import load_compsc
from compsc_harness.vm import build_id


def test_modules_loaded(vm, bench):
    load_compsc(vm)
    for m, where in (("compsc", ("kmod", "compsc.ko")),
                     ("igb", ("drivers", "igb", "igb.ko")),
                     ("igbvf", ("drivers", "igbvf", "igbvf.ko"))):
        want = build_id(bench.host_module(*where))
        assert vm.module_build_id(m) == want, f"{m}: not the build in {bench.modules}"
