"""The host peer (its own network namespace, tap into QEMU) pings every VF address."""


def test_peer_ping(vm, vfs, peer, measure):
    for vf in vfs:
        tr = peer.ping(vf.ip, count=10, interval=0.1)
        assert tr.received == 10, f"{vf.ip}: only {tr.received} replies\n{tr.raw}"
        measure(f"ping {vf.ip} lost before 10 replies", tr.lost, "pkts")
    # The replies really came from the VF: the peer learned the VF's MAC.
    neigh = peer.run(["ip", "neigh", "show", vfs[0].ip]).out
    assert vfs[0].mac in neigh, neigh
