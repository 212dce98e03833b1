"""compsc_vfio host_counters=1: the VF's statistics registers, as the guest
reads them, continue across a migration (VF1's own register would start
from its own count), so a driver that keeps totals from register deltas,
like stock igbvf, stays exact; the CompSC igbvf's own totals stay exact too
(a constant base cancels out of its deltas)."""
import time

import pytest

from nested import DST_PORT, L1, L2_IP, SRC_PORT


@pytest.fixture(scope="module")
def l1(peer):
    vm = L1(peer)
    try:
        vm.setup(vfio_params="host_counters=1")
        yield vm
    finally:
        vm.close(check=False)


def _raw(stats):
    return [int(s["raw_gprc"]) for s in stats if "raw_gprc" in s]


def _restored(stat):
    return int(stat.get("compsc_restores", 0)) > 0    # a fresh guest: 0 before


def test_host_counters_continue(l1, peer):
    l1.l2_pair(peer)
    assert peer.ping(L2_IP, count=30, interval=0.2).received >= 20
    time.sleep(3)   # a status line (every 2 s) after the pings
    l1.src.wait_stat("raw_gprc")
    res = l1.migrate()
    assert res["status"] == "completed", res
    l1.vf_own_mac(0)
    assert peer.ping(L2_IP, count=20, interval=0.2).received >= 10
    src = l1.src.stats()     # the source's log up to the switch-over
    # lines read after the restore (the first may have been read on the source)
    dst = [s for s in l1.dst.wait_stat("raw_gprc", pred=_restored) if _restored(s)]
    last_src, dst_raw = _raw(src)[-1], _raw(dst)
    rx_src = [int(s["rx_packets"]) for s in src if "rx_packets" in s][-1]
    rx_dst = [int(s["rx_packets"]) for s in dst if "rx_packets" in s]
    print(f"nested: raw VFGPRC at the source's last read {last_src}, "
          f"at the destination {dst_raw[:4]}; ethtool rx_packets {rx_src} -> {rx_dst[:4]}")
    # the source's last status line counted the pings (it may lag a few)
    assert last_src >= 10, last_src
    # continues from the source's value (VF1 alone would count from ~0)
    assert dst_raw[0] >= last_src, (last_src, dst_raw)
    assert dst_raw == sorted(dst_raw)
    assert min(rx_dst) >= rx_src
    assert "compsc_vfio" in l1.sh("dmesg | grep -i 'device handed'").out
    _second_hop(l1, peer, _raw(dst)[-1])
    l1.check_kernel_log()


def _second_hop(l1, peer, first):
    """And back to VF0: the host that saves now was itself a
    destination and adds a base to every read; the stream must carry the
    counters as the guest read them (base included), or the next host's
    base makes them jump by about 2^32 - base. The migrated-away source
    still held VF0 when its QEMU quit: the close leaves its queues stopped
    (restarted, they would DMA into the dead VM's memory)."""
    mark = l1.dmesg_mark()
    l1.l2_stop("src")
    l1.wait_dmesg(mark, "closed while held .*: queues left stopped", timeout=60)
    l1.src.start_incoming()
    assert peer.ping(L2_IP, count=10, interval=0.2).received >= 5
    time.sleep(3)   # a status line after the pings
    res = l1.migrate(src=DST_PORT, dst=SRC_PORT)
    assert res["status"] == "completed", res
    l1.vf_own_mac(1)
    assert peer.ping(L2_IP, count=20, interval=0.2).received >= 10
    mid = _raw(l1.dst.stats())[-1]     # the last read on VF1
    hop2 = lambda s: int(s.get("compsc_restores", 0)) > 1   # noqa: E731
    back = _raw([s for s in l1.src.wait_stat("raw_gprc", pred=hop2) if hop2(s)])
    print(f"nested: raw VFGPRC after hop 1 {first}, last on VF1 {mid}, on VF0 again {back[:4]}")
    assert mid >= first, (first, mid)
    assert back[0] >= mid, (mid, back)
    # what came in meanwhile is pings and ARP, never billions
    assert back[-1] - mid < 10000, (mid, back)
    assert back == sorted(back)
