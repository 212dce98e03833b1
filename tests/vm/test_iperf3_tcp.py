"""A TCP stream (iperf3) between the host peer and VF 0 carries data in both directions."""

import pytest


@pytest.fixture(scope="module")
def iperf_server(vm_igb):
    vm = vm_igb  # the test's `vm` (function-scoped, by NIC) is this one
    ip = vm.vfs[0].ip
    vm.run(f"iperf3 -s -D -B {ip} --pidfile /run/iperf3.pid")
    # -D returns before the daemon listens: wait for the socket.
    vm.run("i=0; until netstat -ltn | grep -q ':5201 '; do i=$((i+1)); [ $i -gt 100 ] && exit 1; "
           "sleep 0.1; done", timeout=30)
    yield ip
    vm.run("kill $(cat /run/iperf3.pid)", check=False)


@pytest.mark.parametrize("direction", ["peer-to-vf", "vf-to-peer"])
def test_iperf3_tcp(vm, vfs, peer, iperf_server, direction, measure):
    res = peer.iperf3(iperf_server, seconds=4, reverse=direction == "vf-to-peer")
    recv = res["end"]["sum_received"]
    assert recv["bytes"] > 1_000_000, recv
    measure(f"iperf3 TCP {direction}", recv["bits_per_second"] / 1e6, "Mbit/s")
    measure(f"iperf3 TCP {direction} retransmits", res["end"]["sum_sent"].get("retransmits", 0), "")
