"""testpmd on the CompSC igb VF PMD keeps answering across stand-in migrations that say guest memory moved (copied=1), with frames left completed in the ring at each take (stop_late_ms): every restore runs, drops those frames unread and counts them, no duplicate, pings lost only while the host held the device or as counted stale drops, and the port statistics add up against the peer."""

import time

from compsc_harness.mig import blackout_window, compsc_vfs, load_compsc, ping_loss  # noqa: F401
from compsc_harness.dpdk import TestPmd, move, peer_tap, require_testpmd

MIGRATIONS = 5
BLACKOUT_MS = 50
# The stand-in restarts the VF's queues this long after it took the
# device: pings arriving meanwhile sit completed in the ring where the
# PMD, backing off, cannot read them, and the restore must drop them
# (at ~35 pings/s about two per migration).
STOP_LATE_MS = 60
PINGS = 10


def _migrations(vm, vf, tp, peer) -> tuple[list, list]:
    """The migrations under the stream; their results and windows."""
    windows, results = [], []
    for i in range(1, MIGRATIONS + 1):
        res = move(tp, peer, i, PINGS, blackout_ms=BLACKOUT_MS, copied=1,
                   stop_late_ms=STOP_LATE_MS)
        assert res["mem_copied"] == "yes" and res["host_config"] == "yes", res
        windows.append(blackout_window(res))
        results.append(res)
    return results, windows


def test_dpdk_copied(vm, compsc_vfs, peer, measure):
    require_testpmd(vm)
    vf = compsc_vfs[0]
    tp = None
    try:
        tp = TestPmd.start(vm, vf, interactive=True)
        # Static neighbour and no IPv6 at the peer: only the pings cross,
        # so the tap's counters and the port's can be compared.
        peer.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
        peer.run(f"ip neigh replace {vf.ip} lladdr {vf.mac} dev {peer.bridge} nud permanent")
        tr = peer.ping(vf.ip, count=PINGS, interval=0.05)
        assert tr.received == PINGS, "no traffic before: " + tr.raw[-1000:]
        first, tap0 = tp.fresh_stats(), peer_tap(peer)
        with peer.ping_stream(vf.ip, interval=0.02) as stream:
            time.sleep(1)
            results, windows = _migrations(vm, vf, tp, peer)
            time.sleep(1)
        time.sleep(1)
        last, tap1 = tp.fresh_stats(), peer_tap(peer)
        xs = tp.xstats()
        rs = tp.restores()
        log = tp.log()
        out = tp.stop()
        loss = ping_loss(stream.trace, windows)
        tx_dropped = tp.fwd_tx_dropped(out)
        drops = [r.rx_dropped for r in rs]
        d_rx = last["rx_packets"] - first["rx_packets"]
        d_tx = last["tx_packets"] - first["tx_packets"]
        sent = tap1["peer_sent"] - tap0["peer_sent"]
        got = tap1["peer_received"] - tap0["peer_received"]
        print(f"copied: drops per restore {drops}; port rx {d_rx} tx {d_tx}; "
              f"peer sent {sent} got {got}; testpmd TX-dropped {tx_dropped}; "
              f"pings sent {loss.sent}, lost inside {loss.excused}, "
              f"outside {loss.lost} {loss.lost_seqs}")
        measure("dpdk copied migrations", MIGRATIONS, "")
        measure("dpdk copied rx descriptors dropped stale", sum(drops), "desc")
        measure("dpdk copied pings sent", loss.sent, "pkts")
        measure("dpdk copied pings lost inside holds", loss.excused, "pkts")
        measure("dpdk copied pings lost outside holds", loss.lost, "pkts")
        measure("dpdk copied restore median", sorted(r.us for r in rs)[len(rs) // 2], "us")
        measure("dpdk copied hold median",
                sorted(r["hold_ns"] for r in results)[len(results) // 2] / 1e6, "ms")
        measure("dpdk copied restores that dropped", sum(d > 0 for d in drops), "")
        measure("dpdk copied port rx_packets", d_rx, "pkts")
        measure("dpdk copied peer sent", sent, "pkts")
        measure("dpdk copied port tx_packets", d_tx, "pkts")
        measure("dpdk copied peer received", got, "pkts")
        measure("dpdk copied replies dropped by testpmd", tx_dropped, "pkts")
        assert [r.count for r in rs] == list(range(1, MIGRATIONS + 1)), rs
        assert "restore refused" not in log and xs["compsc_restores_refused"] == 0, log[-3000:]
        assert log.count("Configuring Port 0") == 1, log[-3000:]
        assert "Port 0: reset event" not in log, log[-3000:]
        assert "Bye" in out, out[-2000:]
        # the drop path really dropped, and the xstat says what the log says
        assert any(d > 0 for d in drops), f"no migration left a frame to drop: {drops}"
        assert xs["compsc_rx_stale_dropped"] == sum(drops), (xs, drops)
        assert loss.dup == 0, f"{loss.dup} duplicated replies"
        # a ping lost outside every hold can only be one the drop took
        assert loss.lost <= sum(drops), (f"pings lost outside the holds: "
                                         f"{loss.lost_seqs}; dropped {drops}")
        # rte_eth_stats count the dropped frames as received (the old
        # device did; drivers/dpdk 0010): every frame counted in was
        # answered, or its reply dropped by testpmd, or dropped stale
        assert tx_dropped >= 0, out[-2000:]
        assert d_tx == got, f"port tx {d_tx}, the peer got {got}"
        assert d_rx <= sent, f"port rx {d_rx}, the peer sent {sent}"
        assert d_rx == d_tx + tx_dropped + sum(drops), (
            f"port rx {d_rx} != tx {d_tx} + TX-dropped {tx_dropped} + "
            f"stale {sum(drops)}")
    finally:
        if tp is not None:
            tp.stop()
        peer.run(f"ip neigh del {vf.ip} dev {peer.bridge}", check=False)
        load_compsc(vm)
