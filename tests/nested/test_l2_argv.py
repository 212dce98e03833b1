"""The L2's QEMU command line as l2guest.py builds it from a test's
variables (L2_VARS). Needs no VM."""
import pytest

from l2guest import l2_argv, l2_vars

VF = "0000:01:10.0"


def _argv(env: str, dev: str = VF) -> list:
    return l2_argv("src", dev, 5551, "10.0.2.15", l2_vars(env))


def _device(argv: list, prefix: str) -> str:
    return next(argv[i + 1] for i, a in enumerate(argv)
                if a == "-device" and argv[i + 1].startswith(prefix))


def test_unknown_variable_refused():
    # a misspelt variable would otherwise leave the L2 as it was
    with pytest.raises(ValueError, match="L2NOMAP"):
        l2_vars("L2NOMAP=off")


def test_vf_defaults():
    vf = _device(_argv(""), "vfio-pci")
    assert vf == f"vfio-pci,host={VF},id=hostdev0,bus=rp1,enable-migration=on,x-no-mmap=on"


def test_vf_options():
    vf = _device(_argv("L2MIG=auto L2NOMMAP=off VFIOOPTS=x-device-dirty-page-tracking=off"),
                 "vfio-pci")
    assert vf.endswith("enable-migration=auto,x-no-mmap=off,x-device-dirty-page-tracking=off")


def test_viommu_before_every_pci_device():
    argv = _argv("L2VIOMMU=1")
    devices = [argv[i + 1] for i, a in enumerate(argv) if a == "-device"]
    assert devices[0].startswith("intel-iommu"), devices
    assert "intel_iommu=on" in argv[argv.index("-append") + 1]


def test_accel_and_append():
    argv = _argv("L2ACCEL=tcg L2MEM=384 L2APPEND='l2nic=dpdk l2integ=7070'")
    assert argv[argv.index("-accel") + 1] == "tcg" and "-cpu" not in argv
    assert argv[argv.index("-m") + 1] == "384"
    assert argv[argv.index("-append") + 1].endswith(" l2nic=dpdk l2integ=7070")
    kvm = _argv("")
    assert kvm[kvm.index("-accel") + 1] == "kvm" and kvm[kvm.index("-cpu") + 1] == "host"


def test_no_nic_and_virtio():
    assert not [a for a in _argv("", "none") if a.startswith("vfio-pci")]
    assert _device(_argv("", "virtio"), "virtio-net-pci").startswith("virtio-net-pci,netdev=v0")
