"""Under guest-shadow with Debian's stock igbvf, the VM's VF is unplugged and another (VF 1), then the first again, plugged in: a TCP stream survives, and the upper's address, MTU 9000, a VLAN subinterface (filter replayed) and 4 multicast groups answer through each new lower (peer traffic; QEMU delivers group frames to any VF, see guest-shadow/README.md)."""

import threading
import time

from compsc_harness.vm import paced, vf_ip
import shadow

HOLD = 2.0  # seconds with no lower at all


def _swap(vm, peer, old, new, measure, label) -> None:
    """Unplug @old, hold with no lower (the guest keeps sending), plug @new."""
    before = shadow.stats(vm)
    shadow.unplug(vm, old)
    shadow.host_moves(vm, old, new)
    # guest traffic while there is no lower: held, not failed
    ping = vm.start("ping -c 10 -i 0.1 -W 1 -w 10 10.77.0.1", timeout=30)
    time.sleep(HOLD)
    assert shadow.lower(vm) == "none", label
    shadow.plug(vm, new)
    took = shadow.wait_lower(vm, new.bdf, notified=before["peer_notify"] + 1)
    ping.wait(check=False)
    after = shadow.stats(vm)
    measure(f"{label}: plug to usable lower", took, "s")
    held = after["tx_held"] - before["tx_held"]
    measure(f"{label}: transmit held", held, "pkts")
    assert held >= 10, f"{label}: the guest's pings were not held: {after}"
    assert after["tx_held_sent"] - before["tx_held_sent"] == held, after
    assert after["tx_hold_dropped"] == before["tx_hold_dropped"], after
    assert after["replays"] == before["replays"] + 1, after
    assert after["replay_errors"] == 0, after
    assert after["peer_notify"] == before["peer_notify"] + 1, after


def test_shadow_swap(vm, vfs, peer, measure):
    shadow.load(vm, vfs)
    try:
        shadow.configure(vm, peer)
        masked = [shadow.check_config(vm, peer, "on VF 0 before any swap")]
        srv = vm.start(f"iperf3 -s -1 -B {vf_ip(0)}", timeout=300)
        time.sleep(1)
        out = {}

        def client():
            try:
                out["data"] = peer.iperf3(vf_ip(0), seconds=50, extra=[*paced("10M"), "-i", "1"])
            except Exception as e:  # reported below
                out["error"] = e

        t = threading.Thread(target=client)
        with peer.ping_stream(vf_ip(0), interval=0.02) as ps:
            t.start()
            time.sleep(3)
            t1 = time.time()
            _swap(vm, peer, vfs[0], vfs[1], measure, "VF0 -> VF1")
            t2 = time.time()
            assert shadow.lower_bdf(vm) == vfs[1].bdf
            masked.append(shadow.check_config(vm, peer, "on VF 1"))
            t3 = time.time()
            _swap(vm, peer, vfs[1], vfs[0], measure, "VF1 -> VF0")
            t4 = time.time()
            assert shadow.lower_bdf(vm) == vfs[0].bdf
            masked.append(shadow.check_config(vm, peer, "on VF 0 again"))
            t.join(120)
        srv.wait(check=False)
        assert "error" not in out, f"TCP stream failed: {out.get('error')}"
        iv = out["data"]["intervals"]
        assert sum(i["sum"]["bytes"] for i in iv[-5:]) > 0, "TCP stream stalled at the end"
        end = out["data"]["end"]
        measure("TCP mean throughput across both swaps",
                end["sum_received"]["bits_per_second"] / 1e6, "Mbit/s")
        measure("peer-seen gap, VF0 -> VF1", ps.trace.max_gap(t1, t2) * 1000, "ms")
        measure("peer-seen gap, VF1 -> VF0", ps.trace.max_gap(t3, t4) * 1000, "ms")
        s = shadow.stats(vm)
        assert s["lower_adopted"] == 3 and s["lower_released"] == 2, s
        # VF to VF: the same model, so the same offloads masked each time
        assert masked == [masked[0]] * 3, masked
    finally:
        shadow.unload(vm, vfs)
        shadow.unconfigure(vm, peer)
        vm.restore_stock(2)
