"""A TCP stream (iperf3, peer to VF) survives 20 CompSC migrations."""

import threading
import time

from compsc_harness.mig import compsc_vfs, migrate  # noqa: F401

MIGRATIONS = 20


def test_migrate_tcp(vm, compsc_vfs, peer, measure):
    vf = compsc_vfs[0]
    srv = vm.start(f"iperf3 -s -1 -B {vf.ip}", timeout=600)
    time.sleep(1)
    out = {}

    def client():
        try:
            out["data"] = peer.iperf3(vf.ip, seconds=60, extra=["-i", "1"])
        except Exception as e:  # reported below with the migration count
            out["error"] = e

    t = threading.Thread(target=client)
    t.start()
    time.sleep(3)
    done = 0
    while done < MIGRATIONS and t.is_alive():
        migrate(vm, vf, blackout_ms=50)
        done += 1
        time.sleep(0.5)
    t.join(120)
    srv.wait(check=False)
    assert "error" not in out, f"iperf3 failed after {done} migrations: {out.get('error')}"
    assert done == MIGRATIONS, f"stream ended before {MIGRATIONS} migrations ({done})"
    end = out["data"]["end"]
    assert end["sum_received"]["bytes"] > 0
    # The stream kept moving until the end: the last intervals carried data.
    tail = [iv["sum"]["bytes"] for iv in out["data"]["intervals"][-5:]]
    assert sum(tail) > 0, f"stream stalled at the end: {tail}"
    measure("TCP throughput over 20 migrations",
            end["sum_received"]["bits_per_second"] / 1e6, "Mbit/s")
    measure("TCP retransmits", end["sum_sent"].get("retransmits", 0), "segs")
