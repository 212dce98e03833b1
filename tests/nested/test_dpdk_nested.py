"""An L2 whose VF is driven by DPDK, not by a kernel driver (testpmd on the
CompSC igb VF PMD, through vfio-pci in no-IOMMU mode: l2-init's
l2nic=dpdk), migrates VF0 -> VF1 -> VF0 under Debian's unmodified QEMU
and compsc_vfio. Each way the PMD restores (one restore line more, never
refused, no reset, the port configured once), with guest memory copied
(COMPSC_F_MEM_COPIED: frames the old device wrote after the PMD's last
dirty marking are dropped, not read). The first move runs under the
peer's ping stream: no reply duplicated, every lost ping sent inside
the migration. The second runs between two ping bursts with a
static neighbour: the port's statistics count exactly the peer's pings
and the replies across it. Last, a migration whose device state is
spoilt on the way fails at the destination, and testpmd on the source
answers on with its device untouched (no restore, no reset)."""
import time

import pytest

from compsc_harness.mig import ping_loss
from compsc_harness.vm import VM, vf_mac
from nested import (ALL_DIRTY, DST_PORT, L2_IP, MIG_PORT, SRC_PORT, answers, away_mac,
                    migration_summary)

VM_MAC = vf_mac(0)            # the MAC VF0 has at boot: the VM's from then on
# Hugepages (dpdk-vf reserves 64 x 2 MiB) on top of what l2-init needs;
# DPDK's x86 baseline is SSE4.2 (as in tests/vm, compsc_harness.vm.VM.CPU).
ENV = "L2MEM=512 L2APPEND=l2nic=dpdk"
CPU = f"-cpu {VM.CPU}"
INCOMING = f"-incoming tcp:127.0.0.1:{MIG_PORT}"
NAMES = {SRC_PORT: "src", DST_PORT: "dst"}
PINGS = 20


def _start(l1, port: int, vf: str, incoming: bool) -> None:
    l1.l2_stop(NAMES[port])
    l1.l2_start(NAMES[port], vf, port, f"{CPU} {INCOMING if incoming else ''}", env=ENV)


def _settled(l1, name: str) -> dict:
    """A status line read after the caller's moment, once testpmd's
    statistics (printed every second) have caught up with it."""
    time.sleep(3)
    return l1.l2(name).stat_next(timeout=120)


def _hop(l1, src: int, dst: int, vf_left: int, n: int):
    """Migrate src -> dst; the source's VF gives up the VM's MAC after."""
    res = l1.migrate(params=ALL_DIRTY, src=src, dst=dst)
    assert res["status"] == "completed", res
    l1.sh(f"l1_vf_mac {vf_left} {away_mac(vf_left)}")
    after = l1.l2(NAMES[dst]).wait_restores(n, timeout=240)
    print(f"nested dpdk: {NAMES[src]}->{NAMES[dst]}: qemu {migration_summary(res)};"
          f" the PMD's restore {after['compsc_restore_us']} us (its clock),"
          f" {after['compsc_rx_stale_dropped']} received frames dropped stale so far,"
          f" statistics reads that failed while the device was away"
          f" {after['stats_failed']}")
    return res, after


def _check_restore(stat: dict, n: int) -> None:
    assert int(stat["compsc_restores"]) == n, stat.line
    assert int(stat["compsc_restores_refused"]) == 0, stat.line
    assert int(stat["port_configured"]) == 1, stat.line
    assert int(stat["reset_events"]) == 0, stat.line
    # the destination host configured the VF: no mailbox message
    assert int(stat["compsc_restore_msgs"]) == 0, stat.line
    assert stat["testpmd"] == "up", stat.line


def test_dpdk_nested(l1, peer):
    if not l1.bench.dpdk:
        pytest.skip("no DPDK in the bench image (BENCH_DPDK=no, mk/bench.mk)")
    l1.sh(f"l1_vf_mac 0 {VM_MAC}; l1_vf_mac 1 {away_mac(1)}")
    _start(l1, SRC_PORT, l1.vf0, incoming=False)
    _start(l1, DST_PORT, l1.vf1, incoming=True)
    l1.src.wait_up(timeout=600)
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    before = _settled(l1, "src")
    _check_restore(before, 0)

    # VF0 -> VF1 under a ping stream
    with peer.ping_stream(L2_IP, interval=0.05) as ps:
        time.sleep(2)
        t0 = time.time()
        res, after = _hop(l1, SRC_PORT, DST_PORT, 0, 1)
        t1 = time.time()
        # answering again (a fresh QEMU under TCG in TCG may need seconds)
        assert answers(peer) >= 3
    _check_restore(after, 1)
    # every lost ping was sent inside the migration: after QEMU began and
    # before the destination's status line showed the restore
    loss = ping_loss(ps.trace, [(t0, t1)], margin=0)
    gap = ps.trace.max_gap(t0, t1)
    print(f"nested dpdk: stream: {ps.trace.sent} sent, {ps.trace.received} answered,"
          f" {loss.excused} lost inside the migration ({t1 - t0:.1f} s), peer-seen gap"
          f" {gap:.2f} s (ping every 0.05 s), rx shift {after['compsc_rx_shift_total']}"
          f" tx shift {after['compsc_tx_shift_total']}")
    assert loss.dup == 0, "duplicated replies"
    assert loss.lost == 0, f"pings lost outside the migration: {loss.lost_seqs}"

    # VF1 -> VF0, into a fresh QEMU on the first VF, between ping bursts
    # from a static neighbour (no ARP, no IPv6 from the peer): exact counts
    _start(l1, SRC_PORT, l1.vf0, incoming=True)
    l1.src.wait_incoming()
    peer.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
    peer.run(f"ip neigh replace {L2_IP} lladdr {VM_MAC} dev {peer.bridge} nud permanent")
    try:
        base = _settled(l1, "dst")
        got = peer.ping(L2_IP, count=PINGS, interval=0.2).received
        _, back = _hop(l1, DST_PORT, SRC_PORT, 1, 2)
        got += peer.ping(L2_IP, count=PINGS, interval=0.2).received
        end = _settled(l1, "src")
    finally:
        peer.run(f"ip neigh del {L2_IP} dev {peer.bridge}", check=False)
    _check_restore(end, 2)
    d = {k: int(end[k]) - int(base[k]) for k in ("rx_packets", "tx_packets")}
    print(f"nested dpdk: across VF1 -> VF0: port statistics moved {d},"
          f" the peer sent {2 * PINGS} and got {got} replies")
    # a request lost on its way never reached the port: it counts what came
    assert got >= 2 * PINGS - 4, f"only {got} of {2 * PINGS} answered"
    assert d == {"rx_packets": got, "tx_packets": got}, (got, base.line, end.line)

    # a spoilt device state (compsc_vfio's test-only fault_corrupt): the
    # destination refuses it, the source keeps its device and answers
    _start(l1, DST_PORT, l1.vf1, incoming=True)
    l1.dst.wait_incoming()
    mark = l1.dmesg_mark()
    l1.vfio_fault("fault_corrupt", 1)
    res = l1.migrate(params=ALL_DIRTY, src=SRC_PORT, dst=DST_PORT)
    assert res["status"] == "failed", res
    dmesg = l1.dmesg_since(mark)
    assert "stream refused" in dmesg or "foreign or corrupt" in dmesg, dmesg[-3000:]
    assert l1.src.status() == "running"
    assert peer.ping(L2_IP, count=5, interval=0.5).received >= 3
    kept = _settled(l1, "src")
    _check_restore(kept, 2)
    print(f"nested dpdk: spoilt state refused ({migration_summary(res)});"
          f" testpmd on the source answers, restores still 2")
    l1.assert_kernels_clean("src", "dst")
