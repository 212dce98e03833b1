"""DPDK's testpmd drives a VF through vfio-pci (no-IOMMU) with the CompSC igb VF PMD, registers its area and answers the peer's pings."""

from compsc_harness.mig import DBG, compsc_vfs, load_compsc  # noqa: F401
from compsc_harness.dpdk import TestPmd, require_testpmd

PINGS = 20


def test_dpdk_testpmd(vm, compsc_vfs, peer, measure):
    require_testpmd(vm)
    vf = compsc_vfs[0]
    tp = None
    try:
        tp = TestPmd.start(vm, vf)
        log = tp.log()
        assert "CompSC area of" in log and "registered" in log, log[-3000:]
        # the stand-in sees the area the PMD registered over the mailbox
        area = vm.run(f"wc -c < {DBG}/{vf.bdf}/area").out.strip()
        assert int(area) > 0, "the stand-in finds no area"
        tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
        assert tr.received == PINGS, tr.raw[-1000:]
        st = tp.fresh_stats()
        measure("testpmd rx_packets after pings", st.get("rx_packets", -1), "pkts")
        # the peer's ARP request and its pings at least
        assert st["rx_packets"] >= PINGS and st["tx_packets"] >= PINGS, st
        out = tp.stop()
        assert "Bye" in out or "Done" in out, out[-2000:]
    finally:
        if tp is not None:
            tp.stop()
        load_compsc(vm)
