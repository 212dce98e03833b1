"""The one QEMU command line of every guest the benches boot: the one-VM
bench's VM and the nested bench's L1 (compsc_harness.vm.VM.qemu_argv) and
the L2s inside an L1 (tests/nested/l2guest.py). They differ only in what
q35() takes and in the devices each adds after it."""


def q35(*, accel: str, mem: int, kernel: str, initrd: str, append: str,
        smp: int = 1, cpu: str = None, iommu: str = None) -> list:
    """QEMU's arguments, the binary left to the caller, for a q35 guest
    that boots @kernel and @initrd with the command line @append, on
    @accel ("tcg" or "kvm"), with @mem MiB and @smp vCPUs of the model
    @cpu (QEMU's default if None); @iommu: an IOMMU device (its -device
    value) in front of every PCI device; and one PCIe root port, rp1 in
    slot 1, for the guest's NIC. No default devices and no display; a
    guest that resets itself exits (-no-reboot), so a panic ends the run."""
    argv = ["-M", "q35", "-accel", accel]
    if cpu:
        argv += ["-cpu", cpu]
    argv += ["-m", str(mem), "-smp", str(smp), "-nodefaults", "-no-reboot",
             "-display", "none", "-kernel", kernel, "-initrd", initrd, "-append", append]
    if iommu:
        # before every PCI device: QEMU puts only those after it behind it
        argv += ["-device", iommu]
    return argv + ["-device", "pcie-root-port,id=rp1,slot=1,chassis=1"]
