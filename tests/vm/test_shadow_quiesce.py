"""guest-shadow quiesces a lower that goes down while its device is still
there (its driver unbinding, as when the guest ejects its VF on the host's
request before a migration): transmit moves off it at once and what its
queues hold is sent first. A UDP stream is queued behind a rate-limited
lower (tbf) and the lower is unplugged with a backlog: with the drain off
(quiesce_ms 0) the peer misses datagrams, which shows the check can see
the loss; with it on, every datagram reaches the peer's wire (counted by
iperf3 sequence number on the tap, tests/vm/udpseq.py)."""

import json
import re
import signal
import time
from pathlib import Path

import pytest

from compsc_harness.vm import PEER_ADDR
import shadow

RATE = "2mbit"      # the lower drains 250 datagrams/s
DATAGRAMS = 400     # of 1000 bytes: 1.6 s of backlog at RATE
BACKLOG = 120       # datagrams queued in the lower when it is unplugged
UDPSEQ = Path(__file__).with_name("udpseq.py")


def _backlog(vm, dev: str) -> int:
    m = re.search(r"backlog \S+ (\d+)p", vm.run(f"tc -s qdisc show dev {dev} root").out)
    return int(m.group(1)) if m else 0


def _wire_count(peer):
    """udpseq on the VM's tap: started, waited until it listens."""
    p = peer.popen(["python3", str(UDPSEQ), peer._taps[0], "5201"])
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def _unplug_queued(vm, peer, old, new, quiesce_ms: int, measure, label: str) -> dict:
    """Queue the stream behind @old, unplug @old with a backlog, plug @new;
    returns what was sent, what the wire saw and the shadow's counters."""
    vm.run(f"echo {quiesce_ms} > {shadow.SYSFS}/quiesce_ms")
    dev = shadow.lower(vm)
    vm.run(f"tc qdisc replace dev {dev} root tbf rate {RATE} burst 4kb limit 4000000")
    srv = peer.popen(["iperf3", "-s", "-1", "-B", PEER_ADDR])
    wire = _wire_count(peer)
    time.sleep(0.5)
    before = shadow.stats(vm)
    # a send buffer for the whole stream: the default one holds ~47 queued
    cli = vm.start(f"iperf3 -c {PEER_ADDR} -u -b 20M -l 1000 -n {DATAGRAMS * 1000} -w 4M -J",
                   timeout=180)
    t0, queued = time.time(), 0
    while queued < BACKLOG and time.time() - t0 < 30:
        queued = _backlog(vm, dev)
    if queued < BACKLOG:
        r = cli.wait(check=False)
        raise AssertionError(f"{label}: the lower never queued {BACKLOG} (had {queued}): "
                             f"iperf3 rc={r.rc} {r.out[-1500:]} {r.err[-500:]}")
    t1 = time.time()
    shadow.unplug(vm, old)  # returns once its driver let go: after any drain
    measure(f"{label}: unbind with {queued} queued", time.time() - t1, "s")
    shadow.host_moves(vm, old, new)
    shadow.plug(vm, new)
    shadow.wait_lower(vm, new.bdf, notified=before["peer_notify"] + 1)
    r = cli.wait(check=False)
    try:
        sent = json.loads(r.out)["end"]["sum"]["packets"]
    except (ValueError, KeyError) as e:
        raise AssertionError(f"{label}: iperf3 gave no count ({e}): {r.out[-1500:]} {r.err}")
    time.sleep(1)
    wire.send_signal(signal.SIGTERM)
    seen = json.loads(wire.communicate(timeout=20)[0].splitlines()[-1])
    srv.kill()
    after = shadow.stats(vm)
    d = {k: after[k] - before[k] for k in ("quiesced", "quiesce_timeouts", "tx_drained")}
    lost = sent - seen["distinct"]
    measure(f"{label}: datagrams lost of {sent}", lost, "pkts")
    return {"queued": queued, "sent": sent, "seen": seen, "lost": lost, **d}


def test_shadow_quiesce(vm, vfs, peer, measure):
    if vm.run("modprobe sch_tbf && command -v tc", check=False).rc:
        pytest.skip("this guest kernel or image has no tbf qdisc or tc (the debug kernel)")
    shadow.load(vm, vfs)
    vm.run("sysctl -qw net.core.wmem_max=16777216 net.core.rmem_max=16777216")
    try:
        off = _unplug_queued(vm, peer, vfs[0], vfs[1], 0, measure, "drain off")
        assert off["quiesced"] == 0, off
        assert off["lost"] > 0, f"no loss without the drain: the test cannot see one {off}"
        on = _unplug_queued(vm, peer, vfs[1], vfs[0], 5000, measure, "drain on")
        assert on["lost"] == 0, f"datagrams lost despite the drain: {on}"
        assert on["seen"]["max"] == on["sent"], on
        assert on["quiesced"] == 1 and on["quiesce_timeouts"] == 0, on
        assert on["tx_drained"] >= BACKLOG // 2, on
        measure("drained by the quiesce", on["tx_drained"], "pkts")
    finally:
        shadow.unload(vm, vfs)
        vm.run("sysctl -qw net.core.wmem_max=212992 net.core.rmem_max=212992", check=False)
        vm.restore_stock(2)
