"""With a PF that refuses CompSC's area (Debian's stock igb NACKs the unknown mailbox message), the CompSC igb VF PMD runs stock: testpmd starts, says so once, answers the peer, and shows none of CompSC's xstats."""

from compsc_harness.mig import load_compsc
from compsc_harness.dpdk import TestPmd, require_testpmd

PINGS = 10


def test_dpdk_stock_pf(vm, peer, measure):
    require_testpmd(vm)
    vm.run("rmmod compsc_standin 2>/dev/null; true")
    vf = vm.restore_stock(2)[0]
    tp = None
    try:
        tp = TestPmd.start(vm, vf, interactive=True)
        log = tp.log()
        assert "CompSC not available" in log and "running stock" in log, log[-3000:]
        assert "CompSC area of" not in log, log[-3000:]
        tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
        assert tr.received == PINGS, tr.raw[-1000:]
        xs = tp.xstats()
        assert xs and not [k for k in xs if k.startswith("compsc_")], xs
        measure("dpdk stock PF pings answered", tr.received, "pkts")
        assert tp.fresh_stats()["tx_packets"] >= PINGS
    finally:
        if tp is not None:
            tp.stop()
            vm.run(f"dpdk-vf -u {vf.bdf}", check=False)
        load_compsc(vm)
