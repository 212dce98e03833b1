"""make bench-libvirt: `virsh migrate --live` round trips between the two
L1 hosts of test_virsh_migrate.py (each its own PF, the packages and
libvirt installed with apt), in one run:

  compsc   the CompSC igbvf on VF0 of each host, defined from
           compsc-domxml's XML, configured (MTU 9000, VLAN 100, a
           multicast group)
  virtio   the same guest with a virtio-net NIC on each host's bridge with
           its PF instead: the paravirtual baseline through the same libvirt

each under the same iperf3 TCP stream from the peer.

ROUND_TRIPS (5, BENCH_LIBVIRT_ROUND_TRIPS) host 0 -> host 1 -> host 0 per
mode, `virsh migrate --live --p2p --persistent` with libvirt's and
QEMU's default parameters (no downtime budget of the bench's), the source
keeping the guest defined. Per migration: the longest gap between replies
to the peer's pings (every 50 ms) around it, virsh's wall time, and QEMU's
downtime as libvirt keeps it for the completed job on the source (`virsh
domjobinfo --completed --rawstats`, kept whole in the report: setup time,
memory passes...), and where the gap sits against compsc_vfio's take on
the source and hand-over on the destination. Medians over all migrations
of a mode. BENCH_LIBVIRT_TRACE=1 also keeps, per migration, QEMU's
migration trace events and both kernel logs (trace-<time>/ beside the
reports). The
hosts run under TCG (their L2s on KVM): compare within one run only.

Last line, exactly:
  bench-libvirt: gap_ms=G virsh_total_s=T qemu_downtime_ms=D tcp_alive=yes|no config_kept=yes|no compsc_vs_pv=R
G, T, D: the compsc mode's medians; tcp_alive: its TCP stream survived
every migration; config_kept: the peer's tagged, jumbo and multicast
pings answered after the last; R: its median gap over virtio's.
"""
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from compsc_harness.stats import fmt, ratio
from compsc_harness.vm import Peer
from libvirt_nested import NAME, domxml, libvirt_hosts, ready_destination, start, state, virsh_migrate
from nested import L2_IP, configure_guest, guest_config_unanswered
from shadow_nested import Streams

ROUND_TRIPS = int(os.environ.get("BENCH_LIBVIRT_ROUND_TRIPS", "5"))
# --available-switchover-bandwidth for every migration, MiB/s (empty: QEMU
# estimates it from what it sent, which passes spent reading dirty logs
# lower): to tell a low estimate from other reasons not to switch over
SWITCHOVER_MIBS = os.environ.get("BENCH_LIBVIRT_SWITCHOVER_MIBS", "")
# 1: QEMU's migration trace events on each source (TRACE_EVENTS) and
# each migration's kernel logs and QEMU log kept beside the report
TRACE = os.environ.get("BENCH_LIBVIRT_TRACE", "") == "1"
TRACE_EVENTS = ("migrate_pending_estimate", "migrate_pending_exact", "migrate_transferred",
                "migration_thread_low_pending", "migration_completion_vm_stop",
                "migration_bitmap_sync_end", "savevm_state_setup", "vfio_save_setup",
                "vfio_migration_set_state", "vfio_state_pending_exact", "vfio_get_dirty_bitmap")
TRACE_DIR = Path(os.environ.get("COMPSC_BUILD", "build")) / "bench-libvirt" / time.strftime("trace-%Y%m%d-%H%M%S")
PING_INTERVAL = 0.05
SETTLE_S = 5            # s after virsh returns, still inside the ping stream


def job_stats(host) -> dict:
    """libvirt's record of the migration job that last completed on @host
    (`virsh domjobinfo --completed --rawstats`; the plain form printed only
    the job type here): its numeric fields, QEMU's `downtime`,
    `setup_time`, `time_elapsed` and the memory passes among them."""
    r = host.sh(f"l1_virsh domjobinfo {NAME} --completed --rawstats", check=False)
    out = {}
    for k, v in re.findall(r"^(\w+): (-?\d+)$", r.out, re.M):
        out[k] = int(v)
    if "downtime" not in out:
        print(f"bench-libvirt: no downtime on host{host.host}: {r.out} {r.err}", flush=True)
    return out


QEMU_LOG = f"/sysroot/var/log/libvirt/qemu/{NAME}.log"


def trace_on(src) -> int:
    """Turn TRACE_EVENTS on in @src's QEMU; the length of its log so far."""
    for ev in TRACE_EVENTS:
        src.sh(f"l1_virsh qemu-monitor-command {NAME} --hmp 'trace-event {ev} on'", check=False)
    return int(src.sh(f"stat -c %s {QEMU_LOG}", check=False).out.strip() or 0)


def trace_keep(tag: str, src, dst, marks: tuple, qlog: int) -> None:
    """Migration @tag's kernel logs of both hosts since @marks, @src's
    QEMU log since @qlog and the capabilities libvirt set on @dst (e.g.
    switchover-ack), into TRACE_DIR."""
    TRACE_DIR.mkdir(parents=True, exist_ok=True)
    for h, m in ((src, marks[0]), (dst, marks[1])):
        (TRACE_DIR / f"{tag}-host{h.host}-dmesg.txt").write_text(h.dmesg_since(m))
    q = src.sh(f"tail -c +{qlog + 1} {QEMU_LOG}", check=False).out
    (TRACE_DIR / f"{tag}-host{src.host}-qemu.txt").write_text(q)
    caps = dst.sh(f"l1_virsh qemu-monitor-command {NAME} "
                  "'{\"execute\":\"query-migrate-capabilities\"}'", check=False).out
    (TRACE_DIR / f"{tag}-host{dst.host}-caps.json").write_text(caps)


def migrate_once(peer, src, dst, vf: bool, tag: str) -> dict:
    ready_destination(dst, vf)
    marks = (src.dmesg_mark(), dst.dmesg_mark())
    qlog = trace_on(src) if TRACE else 0
    with peer.ping_stream(L2_IP, interval=PING_INTERVAL) as ps:
        t0 = time.time()
        r = virsh_migrate(src, dst, budget=False, undefine=False,
                          extra=SWITCHOVER_MIBS and f"--available-switchover-bandwidth {SWITCHOVER_MIBS}")
        t1 = time.time()
        time.sleep(SETTLE_S)
    if r.rc != 0:
        raise RuntimeError(f"virsh migrate host{src.host} -> host{dst.host}:\n{r.out}\n{r.err}")
    job = job_stats(src)
    if TRACE:
        trace_keep(tag, src, dst, marks, qlog)
    a, b = ps.trace.widest(t0, t1 + SETTLE_S)
    one = {"way": f"host{src.host}->host{dst.host}", "gap_s": b - a if a else None,
           "virsh_s": t1 - t0, "downtime_ms": job.get("downtime"), "job": job,
           "timeline_s": timeline(t0, a, b, src.vfio_events(marks[0]).get("taken"),
                                  dst.vfio_events(marks[1]).get("handed"))}
    print(f"bench-libvirt: {one['way']} gap_s={fmt(one['gap_s'])} virsh_s={one['virsh_s']:.1f} "
          f"downtime_ms={one['downtime_ms']} setup_ms={job.get('setup_time')} "
          f"memory_iteration={job.get('memory_iteration')} timeline_s={one['timeline_s']}",
          flush=True)
    return one


def timeline(t0: float, a: float, b: float, taken: float, handed: float) -> dict:
    """Where the peer's longest gap sits (host clock, s from virsh's start):
    its last reply before and first reply after, and compsc_vfio's take on
    the source and hand-over on the destination (each L1's kernel log
    mapped to the host's clock), in order."""
    ev = {"gap_start": a, "gap_end": b, "vf_taken": taken, "vf_handed": handed}
    return {k: round(v - t0, 2) for k, v in sorted(((k, v) for k, v in ev.items() if v),
                                                   key=lambda kv: kv[1])}


def round_trips(peer, hosts, vf: bool) -> list:
    out = []
    for i in range(2 * ROUND_TRIPS):
        tag = f"{'compsc' if vf else 'virtio'}-{i:02d}"
        out.append(migrate_once(peer, hosts[i % 2], hosts[1 - i % 2], vf, tag))
    return out


def median(runs: list, key: str):
    vals = [r[key] for r in runs if r[key] is not None]
    return statistics.median(vals) if vals else None


def summary(runs: list) -> dict:
    return {"migrations": len(runs), "gap_s": median(runs, "gap_s"),
            "virsh_s": median(runs, "virsh_s"), "downtime_ms": median(runs, "downtime_ms"),
            "runs": runs}


def streamed(peer, hosts, vf: bool) -> dict:
    """round_trips() under the peer's iperf3 TCP stream to the guest, the
    same in both modes, so that both guests carry the same load while QEMU
    pre-copies them."""
    with Streams(hosts[0], peer, SimpleNamespace(name=NAME), ping=False) as st:
        runs = round_trips(peer, hosts, vf)
        alive = st.close()
    return {**summary(runs), "tcp_alive": alive}


def run_compsc(peer, hosts) -> dict:
    a = hosts[0]
    start(a, domxml(a.vf0))
    configure_guest(a, NAME, peer)
    out = streamed(peer, hosts, vf=True)
    bad = guest_config_unanswered(peer)
    return {**out, "config_kept": not bad, "config_bad": bad}


def run_virtio(peer, hosts) -> dict:
    for host in hosts:
        if state(host) != "absent":
            host.sh(f"l1_virsh destroy {NAME}; l1_virsh undefine {NAME}", check=False)
        host.sh("l1_bridge")
    peer.run(f"ip neigh flush dev {peer.bridge}", check=False)
    start(hosts[0], domxml(hosts[0].vf0, virtio=True))
    return streamed(peer, hosts, vf=False)


def save(results: dict) -> Path:
    top = Path(os.environ.get("COMPSC_BUILD", "build")) / "bench-libvirt"
    out = top / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(results, indent=1) + "\n")
    return out


def main() -> int:
    with Peer() as peer, libvirt_hosts(peer) as hosts:
        results = {"round_trips": ROUND_TRIPS, "ping_interval_s": PING_INTERVAL,
                   "switchover_mibs": int(SWITCHOVER_MIBS) if SWITCHOVER_MIBS else None,
                   "compsc": run_compsc(peer, hosts), "virtio": run_virtio(peer, hosts)}
    print(f"bench-libvirt: report in {save(results)}")
    c, v = results["compsc"], results["virtio"]
    print(f"bench-libvirt: virtio gap_ms={fmt(v['gap_s'] and v['gap_s'] * 1000, '{:.0f}')}"
          f" virsh_total_s={fmt(v['virsh_s'])} qemu_downtime_ms={fmt(v['downtime_ms'], '{:.0f}')}"
          f" tcp_alive={'yes' if v['tcp_alive'] else 'no'}")
    print(f"bench-libvirt: gap_ms={fmt(c['gap_s'] and c['gap_s'] * 1000, '{:.0f}')}"
          f" virsh_total_s={fmt(c['virsh_s'])}"
          f" qemu_downtime_ms={fmt(c['downtime_ms'], '{:.0f}')}"
          f" tcp_alive={'yes' if c['tcp_alive'] else 'no'}"
          f" config_kept={'yes' if c['config_kept'] else 'no'}"
          f" compsc_vs_pv={fmt(ratio(c['gap_s'], v['gap_s']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
