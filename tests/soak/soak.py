#!/usr/bin/env python3
"""make soak: many migrations under traffic, with config changes
mixed in, on the debug kernel; every report, leak, lost restore or counter
that drifts is a problem. Three steps, each its own process (mk/soak.mk):

  soak.py bench  --migrations N --out bench.json   one-VM bench, debug kernel
  soak.py nested --migrations M --out nested.json  nested bench (the debug
                                                   L1 and L2 with
                                                   COMPSC_DEBUG_KERNEL=1)
  soak.py summary bench.json nested.json           the last line:
      soak: migrations=N problems=P leaks=K counters_exact=yes|no

bench: the CompSC stack on 2 vCPUs; from the peer a ping stream, an iperf3
TCP stream to the guest and a UDP stream of numbered, patterned datagrams
(`compsc integrity`, every word checked in the guest); stand-in migrations
with short and long blackouts; between them MTU, VLAN and multicast
changes, and MTU changes during a migration. At the end: the VF's counters
against the peer's tap, restores == migrations, resets 0, the integrity
receiver's verdict, a kmemleak scan, slab usage at start/middle/end.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from compsc_harness import mig
from compsc_harness.vm import VM, Bench, BenchError, Peer, kernel_problems, paced

HERE = Path(__file__).resolve().parent

UDP_PORT = 7070
UDP_RATE = 200          # datagrams/s from the peer
UDP_SIZE = 512
PING_INTERVAL = 0.05
TCP_RATE = "5M"
SHORT_MS = (20, 50, 100)
LONG_MS = 1000          # every LONG_EVERY-th migration
LONG_EVERY = 10
SAMPLE_EVERY = 10       # counters and kernel-log checks, in migrations
INTEG_RE = re.compile(r"integrity: blocks=(\d+) corrupt=(\d+) stale=(\d+) "
                      r"dup=(\d+) missing=(\d+) last_seq=(\d+)")
# Slab usage is flat when unreclaimable slab at the end is within
# SLAB_SLACK_KB + SLAB_PER_MIG_KB per migration of the middle sample. Coarse
# on purpose: KASAN's quarantine keeps freed objects (up to 1/32 of RAM)
# counted as slab while it fills, and guest commands come and go; kmemleak
# is the leak check, this one catches growth it cannot see (objects still
# referenced, e.g. a list that only grows).
SLAB_SLACK_KB = 2048
SLAB_PER_MIG_KB = 2
# After the last migration the streams run this long undisturbed: TCP
# backs off while the device is held over and over, and must come back.
QUIET_TAIL_S = 15


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Problems:
    """Everything that went wrong, one line each (the count is P)."""

    def __init__(self):
        self.lines: list[str] = []

    def add(self, what: str) -> None:
        self.lines.append(what)
        log(f"PROBLEM: {what}")

    def __len__(self) -> int:
        return len(self.lines)


# ------------------------------------------------------------ bench

def tap_stats(peer: Peer) -> dict:
    """The peer's tap: tx is what the peer sent towards the guest."""
    tap = peer._taps[0]
    r = peer.run(f"cd /sys/class/net/{tap}/statistics && echo $(cat tx_packets) "
                 "$(cat rx_packets)")
    sent, got = map(int, r.out.split())
    return {"peer_sent": sent, "peer_received": got}


def slab_sample(vm: VM, label: str) -> dict:
    """/proc/meminfo's slab lines and the active objects of every cache."""
    mi = dict(line.split(":", 1) for line in vm.get("/proc/meminfo").splitlines())
    kb = {k: int(mi[k].split()[0]) for k in ("Slab", "SReclaimable", "SUnreclaim")}
    caches = {}
    for line in vm.get("/proc/slabinfo").splitlines()[2:]:
        f = line.split()
        caches[f[0]] = int(f[1])
    log(f"slab {label}: Slab {kb['Slab']} kB, SUnreclaim {kb['SUnreclaim']} kB")
    return {"label": label, "t": time.time(), **kb, "caches": caches}


def slab_verdict(samples: list, migrations_2nd_half: int) -> tuple[bool, str]:
    """Flat: see SLAB_SLACK_KB. The caches that grew most over the second
    half are named, for whoever reads a failure."""
    start, mid, end = samples
    grow_kb = end["SUnreclaim"] - mid["SUnreclaim"]
    n = max(1, migrations_2nd_half)
    flat = grow_kb <= SLAB_SLACK_KB + SLAB_PER_MIG_KB * n
    top = sorted(((end["caches"][c] - mid["caches"].get(c, 0), c) for c in end["caches"]),
                 reverse=True)[:5]
    why = (f"SUnreclaim {start['SUnreclaim']} -> {mid['SUnreclaim']} -> {end['SUnreclaim']} kB"
           f" (second half {grow_kb:+d} kB over {n} migrations); most grown caches"
           f" (objects): {', '.join(f'{c} {d:+d}' for d, c in top)}")
    return flat, why


class Changes:
    """The configuration changes mixed into the migrations: MTU 9000/1500,
    a VLAN added/removed, a multicast address added/removed; each one
    toggles, so at the end the VF is back where it started."""

    def __init__(self, vm: VM, ifname: str, problems: Problems):
        self.vm, self.ifname, self.problems = vm, ifname, problems
        self.mtu, self.vlan, self.maddr = 1500, None, None
        self.done = {"mtu": 0, "vlan": 0, "multicast": 0, "mtu_during_migration": 0}
        # (start, end, kind) on the host clock: what a TCP stall overlapped
        self.times: list[tuple[float, float, str]] = []

    def cmd(self, kind: str, i: int) -> str:
        if kind == "mtu":
            self.mtu = 9000 if self.mtu == 1500 else 1500
            return f"ip link set {self.ifname} mtu {self.mtu}"
        if kind == "vlan":
            if self.vlan is None:
                self.vlan = 100 + (i // LONG_EVERY) % 3000
                return (f"ip link add link {self.ifname} name vl{self.vlan} type vlan "
                        f"id {self.vlan} && ip link set vl{self.vlan} up")
            v, self.vlan = self.vlan, None
            return f"ip link del vl{v}"
        if self.maddr is None:
            self.maddr = f"01:00:5e:00:{(i >> 8) & 0x7f:02x}:{i & 0xff:02x}"
            return f"ip maddr add {self.maddr} dev {self.ifname}"
        m, self.maddr = self.maddr, None
        return f"ip maddr del {m} dev {self.ifname}"

    def run(self, kind: str, i: int) -> None:
        c = self.cmd(kind, i)
        t0 = time.time()
        r = self.vm.run(c, check=False, timeout=60)
        self.times.append((t0, time.time(), kind))
        if r.rc:
            self.problems.add(f"migration {i}: `{c}` failed: {r.err.strip() or r.out.strip()}")
        self.done[kind] += 1

    def undo(self) -> None:
        if self.mtu != 1500:
            self.run("mtu", -1)
        if self.vlan is not None:
            self.run("vlan", -1)
        if self.maddr is not None:
            self.run("multicast", -1)


def migrate_restored(vm: VM, vf, **opts) -> dict:
    """One migration once the guest restored the last: a write refused
    because the hand-back is not restored yet ran nothing and is retried."""
    deadline = time.time() + 60
    while True:
        res = mig.migrate(vm, vf, check=False, **opts)
        if res["rc"] == 0 or "not restored" not in str(res.get("error")) \
                or time.time() > deadline:
            return res
        time.sleep(0.05)


def plan(i: int) -> tuple[int, str | None, bool]:
    """Migration @i (from 0): its blackout, the change before it (if
    any) and whether an MTU change runs during it."""
    blackout = LONG_MS if i % LONG_EVERY == LONG_EVERY - 1 else SHORT_MS[i % len(SHORT_MS)]
    before = {3: "mtu", 5: "vlan", 7: "multicast"}.get(i % 10)
    during = i % 20 == 13
    return blackout, before, during


def start_traffic(vm: VM, peer: Peer, vf, cli: str, seconds: int, tmp: Path):
    srv = vm.start(f"iperf3 -s -1 -B {vf.ip}", timeout=seconds + 600)
    vm.run("i=0; until netstat -ltn | grep -q ':5201 '; do i=$((i+1)); "
           "[ $i -gt 300 ] && exit 1; sleep 0.1; done", timeout=60)
    recv = vm.start(f"compsc integrity recv {UDP_PORT} --idle 20 --seconds {seconds}",
                    timeout=seconds + 600)
    time.sleep(1)
    tcp_out = open(tmp / "iperf3.json", "w+")
    tcp = peer.popen(["iperf3", "-c", vf.ip, "-t", str(seconds), *paced(TCP_RATE),
                      "-J", "-i", "1"], stdout=tcp_out, stderr=subprocess.STDOUT)
    udp = peer.popen([cli, "integrity", "send", vf.ip, str(UDP_PORT), "--rate",
                      str(UDP_RATE), "--size", str(UDP_SIZE), "--seconds", str(seconds)])
    # the sender's TCP state twice a second: which timer a stall ran on
    # (retransmission "on" with its backoff, or "persist": a zero window)
    peer.popen(["sh", "-c", f"while :; do echo t=$(date +%s.%N); ss -tino dst {vf.ip} "
                f"dport = :5201; sleep 0.5; done"], stdout=open(tmp / "ss.txt", "w"))
    return srv, recv, tcp, tcp_out, udp


# TCP stalls this long or longer are listed in the report with what
# overlapped them (holds, configuration changes), within STALL_NEAR_S:
# iperf3's intervals are whole seconds and its start time too. Listed,
# not judged: what bound a stall must keep is not settled yet (the first
# full soak had one of 12 s, cause unknown).
STALL_LIST_S = 3
STALL_NEAR_S = 2


SS_TIMER_RE = re.compile(r"timer:\((\w+),[^)]*?,(\d+)\)")


def ss_samples(path: Path) -> list:
    """(time, timer, backoff) of each `ss -tino` sample of the stream's
    data connection (the one with data queued or a timer running)."""
    out, t = [], None
    try:
        text = path.read_text()
    except OSError:
        return out
    for line in text.splitlines():
        if line.startswith("t="):
            t = float(line[2:])
            continue
        m = SS_TIMER_RE.search(line)
        if t is not None and m:
            out.append((t, m.group(1), int(m.group(2))))
            t = None
    return out


def tcp_stalls(doc: dict, events: list, ss: list = ()) -> list:
    """The runs of empty intervals of iperf3's JSON @doc of STALL_LIST_S
    or more, longest first, each with the @events (start, end, kind) near
    it, by kind."""
    t0 = doc.get("start", {}).get("timestamp", {}).get("timesecs", 0)
    runs, start = [], None
    for iv in doc.get("intervals", []) + [{"sum": {"bytes": 1, "start": 0, "end": 0}}]:
        if iv["sum"]["bytes"] == 0:
            start = iv["sum"]["start"] if start is None else start
            end = iv["sum"]["end"]
        elif start is not None:
            if end - start >= STALL_LIST_S:
                runs.append((t0 + start, t0 + end))
            start = None
    out = []
    for a, b in sorted(runs, key=lambda r: r[0] - r[1]):
        near = {}
        for ea, eb, kind in events:
            if ea <= b + STALL_NEAR_S and eb >= a - STALL_NEAR_S:
                near[kind] = near.get(kind, 0) + 1
        timers = {}
        backoff = 0
        for t, timer, n in ss:
            if a - 1 <= t <= b + 1:
                timers[timer] = timers.get(timer, 0) + 1
                backoff = max(backoff, n)
        out.append({"at_s": round(a - t0, 1), "seconds": round(b - a, 1), "near": near,
                    "sender_timers": timers, "max_backoff": backoff})
    return out


def tcp_verdict(tcp, tcp_out, problems: Problems, events: list = ()) -> dict:
    """Stop the TCP stream (SIGINT: iperf3 still prints its JSON) and
    judge it: no error but the interrupt, data in the last intervals, and
    the longest run of empty intervals."""
    if tcp.poll() is not None:
        problems.add(f"the iperf3 TCP stream ended early (rc={tcp.returncode})")
    else:
        tcp.send_signal(signal.SIGINT)
        tcp.wait(30)
    tcp_out.seek(0)
    try:
        doc = json.loads(tcp_out.read())
    except json.JSONDecodeError:
        problems.add("the iperf3 client printed no JSON")
        return {"alive": False}
    err = doc.get("error", "")
    if err and not err.startswith("interrupt"):
        problems.add(f"iperf3 TCP stream: {err}")
    per = [iv["sum"]["bytes"] for iv in doc.get("intervals", [])]
    run = longest = 0
    for b in per:
        run = run + 1 if b == 0 else 0
        longest = max(longest, run)
    alive = bool(per) and sum(per[-5:]) > 0
    if not alive:
        problems.add("the TCP stream carried nothing in its last 5 s")
    mbits = 8 * sum(per) / max(1, len(per)) / 1e6
    stalls = tcp_stalls(doc, list(events), ss_samples(Path(tcp_out.name).with_name("ss.txt")))
    log(f"tcp: {len(per)} intervals, mean {mbits:.2f} Mbit/s, "
        f"longest stall {longest} s, error: {err or '-'}; stalls of {STALL_LIST_S} s or more: "
        f"{len(stalls)}" + (f", the longest: {stalls[0]}" if stalls else ""))
    return {"alive": alive, "intervals": len(per), "mean_mbit": round(mbits, 2),
            "longest_zero_s": longest, "error": err, "stalls": stalls[:10]}


def bench_soak(n: int, out: Path) -> dict:
    bench = Bench()
    problems = Problems()
    rep = {"part": "bench", "kernel": str(bench.kernel), "debug": bench.debug,
           "migrations_asked": n, "migrations": 0}
    if not bench.debug:
        problems.add("not the debug kernel (COMPSC_DEBUG_KERNEL unset): run make soak")
    cli = str(bench.build / "compsc")
    tmp = out.parent
    t_start = time.time()
    with Peer() as peer:
        vm = VM(peer=peer, name="soak", smp=2, bench=bench)
        rep["boot_s"] = round(vm.boot_seconds, 1)
        rep["console"] = str(vm.console_path)
        log(f"bench VM up in {vm.boot_seconds:.0f} s ({bench.kernel}), console {vm.console_path}")
        try:
            _bench_run(vm, peer, n, cli, tmp, problems, rep)
        except Exception as e:  # noqa: BLE001 - counted, reported, then closed
            problems.add(f"bench soak stopped: {type(e).__name__}: {str(e).splitlines()[0]}")
        finally:
            try:
                rep["leaks"] = _leaks(vm, problems, rep)
            except BenchError as e:
                problems.add(f"kmemleak scan failed: {str(e).splitlines()[0]}")
                rep["leaks"] = -1
            vm.close(check=False)
            probs = vm.kernel_problems()
            rep["kernel_reports"] = len(probs)
            for p in probs:
                problems.add("kernel report: " + p.splitlines()[min(3, len(p.splitlines()) - 1)].strip())
    rep["seconds"] = round(time.time() - t_start, 1)
    rep["problems"] = problems.lines
    out.write_text(json.dumps(rep, indent=1) + "\n")
    return rep


def _leaks(vm: VM, problems: Problems, rep: dict) -> int:
    if not vm.alive():
        problems.add("the VM was gone before the kmemleak scan")
        return -1
    t0 = time.time()
    report = vm.kmemleak_scan()
    rep["kmemleak_scan_s"] = round(time.time() - t0, 1)
    if report is None:
        problems.add("no kmemleak in this kernel")
        return -1
    k = report.count("unreferenced object 0x")
    if k:
        (Path(rep["console"]).parent / "kmemleak.txt").write_text(report)
        log(f"kmemleak: {k} unreferenced objects, first:\n{report[:1500]}")
    log(f"kmemleak: {k} leaks (scan took {rep['kmemleak_scan_s']} s)")
    return k


def _bench_run(vm: VM, peer: Peer, n: int, cli: str, tmp: Path,
               problems: Problems, rep: dict) -> None:
    vf = mig.load_compsc(vm)[0]
    vm.wait_link(vf.ifname, 60)
    peer_mac = peer.run(f"cat /sys/class/net/{peer.bridge}/address").out.strip()
    # Static neighbours, no IPv6: the counters see only the streams.
    peer.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
    peer.run(f"ip neigh replace {vf.ip} lladdr {vf.mac} dev {peer.bridge} nud permanent")
    vm.run(f"ip neigh replace {peer.addr} lladdr {peer_mac} dev {vf.ifname} nud permanent")
    st0 = mig.ethtool_stats(vm, vf.ifname)
    c0, tap0 = mig.link_stats(vm, vf.ifname), tap_stats(peer)
    samples = [(c0["rx_packets"], c0["tx_packets"])]
    changes = Changes(vm, vf.ifname, problems)
    # the streams outlast any plausible run; stopped when the loop ends
    seconds = 86400
    srv, recv, tcp, tcp_out, udp = start_traffic(vm, peer, vf, cli, seconds, tmp)
    slabs, windows, holds = [], [], []
    done, i = 0, -1
    mark = vm.log_mark()
    t_loop = time.time()
    with peer.ping_stream(vf.ip, interval=PING_INTERVAL) as ps:
        time.sleep(3)
        for i in range(n):
            blackout, before, during = plan(i)
            if before:
                changes.run(before, i)
            bg = None
            if during:
                t_bg = time.time()
                bg = vm.start(changes.cmd("mtu", i), timeout=60)
            res = migrate_restored(vm, vf, blackout_ms=blackout)
            if bg is not None:
                r = bg.wait(check=False)
                changes.times.append((t_bg, time.time(), "mtu_during_migration"))
                changes.done["mtu_during_migration"] += 1
                if r.rc:
                    problems.add(f"migration {i}: MTU change during it failed: {r.err.strip()}")
            if res["rc"] != 0 or res.get("status") != "ok":
                problems.add(f"migration {i} (blackout {blackout} ms) failed: rc={res['rc']} "
                             f"{res.get('err')} status={res.get('status')} error={res.get('error')}")
            else:
                done += 1
                windows.append(mig.blackout_window(res))
                holds.append(res.get("hold_ns", 0) / 1e6)
            if i == 1:
                slabs.append(slab_sample(vm, "start"))
            if i == n // 2:
                slabs.append(slab_sample(vm, "middle"))
            if (i + 1) % SAMPLE_EVERY == 0 or i == n - 1:
                c = mig.link_stats(vm, vf.ifname)
                samples.append((c["rx_packets"], c["tx_packets"]))
                el = time.time() - t_loop
                log(f"{i + 1}/{n} migrations, {el:.0f} s, {el / (i + 1):.2f} s each")
                if vm.kernel_problems(since=mark):
                    problems.add(f"kernel report by migration {i + 1}: stopping")
                    break
        slabs.append(slab_sample(vm, "end"))
        loop_s = time.time() - t_loop
        log(f"migrations done; the streams run {QUIET_TAIL_S} s more undisturbed")
        time.sleep(QUIET_TAIL_S)
        tcp_rep = tcp_verdict(tcp, tcp_out, problems,
                              changes.times + [(a, b, "hold") for a, b in windows])
        rep["frames"] = _frame_sizes(peer, vf, problems, "after the migrations")
        udp.terminate()
        udp.wait(30)
    rep["migrations"] = done
    rep["loop_s"] = round(loop_s, 1)
    rep["s_per_migration"] = round(loop_s / max(1, i + 1), 3)
    rep["hold_ms"] = {"min": round(min(holds), 1), "max": round(max(holds), 1)} if holds else {}
    rep["changes"] = changes.done
    rep["tcp"] = tcp_rep
    _integrity(recv, problems, rep)
    srv.wait(check=False)
    _ping(ps.trace, windows, problems, rep)
    # the guest's side of every migration: restored each, never reset
    n_rest = mig.wait_restores(vm, vf, st0["compsc_restores"] + done, timeout=30)
    st = mig.ethtool_stats(vm, vf.ifname)
    rep["restores"] = n_rest - st0["compsc_restores"]
    rep["resets"] = st["compsc_resets"]
    rep["cfg_deferred"] = st.get("compsc_cfg_deferred", 0) - st0.get("compsc_cfg_deferred", 0)
    if rep["restores"] != done:
        problems.add(f"{done} migrations, {rep['restores']} restores")
    if rep["resets"]:
        problems.add(f"compsc_resets={rep['resets']}: the driver reset the VF")
    time.sleep(1)
    _counters(vm, peer, vf, c0, tap0, samples, problems, rep)
    changes.undo()
    rep["frames_after_undo"] = _frame_sizes(peer, vf, None, "after the changes were undone")
    flat, why = slab_verdict(slabs, n - n // 2)
    rep["slab"] = {"flat": flat, "why": why,
                   "samples": [{k: v for k, v in s.items() if k != "caches"} for s in slabs]}
    log(f"slab: {'flat' if flat else 'GROWING'}: {why}")
    if not flat:
        problems.add(f"slab usage not flat: {why}")


def _frame_sizes(peer: Peer, vf, problems, when: str) -> dict:
    """Small and full-size (1500-byte) pings from the peer: a VF that
    passes one and drops the other is misconfigured for frame size."""
    got = {}
    for size in (56, 1472):
        r = peer.run(["ping", "-n", "-c", "5", "-i", "0.2", "-s", str(size), "-W", "2",
                      vf.ip], timeout=30, check=False)
        got[size] = Peer._parse_ping(r.out, 0.2).received
    log(f"pings {when}: {got[56]}/5 small, {got[1472]}/5 full-size")
    if problems is not None and (got[56] < 3 or got[1472] < 3):
        problems.add(f"pings {when}: {got[56]}/5 small, {got[1472]}/5 full-size answered")
    return {"small": got[56], "full": got[1472]}


def _integrity(recv, problems: Problems, rep: dict) -> None:
    got = recv.wait(check=False)
    m = INTEG_RE.search(got.out)
    if not m:
        problems.add(f"no integrity line from the guest (rc={got.rc}): {got.out[-300:]} {got.err[-300:]}")
        return
    blocks, corrupt, stale, dup, missing, last = map(int, m.groups())
    rep["udp"] = {"blocks": blocks, "corrupt": corrupt, "stale": stale, "dup": dup,
                  "missing": missing, "last_seq": last}
    log(f"udp: {m.group(0)}")
    if corrupt or stale or dup:
        problems.add(f"UDP stream damaged: {m.group(0)}")
    if blocks == 0:
        problems.add("no UDP datagram arrived")


def _ping(trace, windows, problems: Problems, rep: dict) -> None:
    loss = mig.ping_loss(trace, windows)
    rep["ping"] = {"sent": trace.sent, "received": trace.received, "lost_in_holds": loss.excused,
                   "lost_outside_holds": loss.lost, "dup": loss.dup}
    log(f"ping: sent {trace.sent}, received {trace.received}, lost in holds {loss.excused}, "
        f"outside holds {loss.lost} (MTU changes restart the link), dup {loss.dup}")
    if loss.dup:
        problems.add(f"{loss.dup} duplicated ping replies")
    if trace.received == 0:
        problems.add("no ping reply at all")


def _counters(vm, peer, vf, c0, tap0, samples, problems: Problems, rep: dict) -> None:
    """exact: never went back, every frame the VF sent reached the peer,
    never more received than the peer sent (the held device misses some)."""
    c1, tap1 = mig.link_stats(vm, vf.ifname), tap_stats(peer)
    samples.append((c1["rx_packets"], c1["tx_packets"]))
    back = any(b[0] < a[0] or b[1] < a[1] for a, b in zip(samples, samples[1:]))
    d_rx, d_tx = c1["rx_packets"] - c0["rx_packets"], c1["tx_packets"] - c0["tx_packets"]
    sent = tap1["peer_sent"] - tap0["peer_sent"]
    got = tap1["peer_received"] - tap0["peer_received"]
    exact = not back and d_tx == got and d_rx <= sent
    rep["counters"] = {"exact": exact, "went_backwards": back, "guest_rx": d_rx,
                       "guest_tx": d_tx, "peer_sent": sent, "peer_received": got}
    log(f"counters: guest rx {d_rx} tx {d_tx}, peer sent {sent} received {got}, "
        f"went back: {back} -> {'exact' if exact else 'OFF'}")
    if not exact:
        problems.add(f"counters not exact: {rep['counters']}")


# ------------------------------------------------------------ nested

def nested_soak(n: int, out: Path) -> dict:
    from nested import DST_PORT, L1, L2_ACCEL, L2_IP, MIG_PORT, SRC_PORT, migration_summary
    problems = Problems()
    debug = Bench().debug
    rep = {"part": "nested", "migrations_asked": n, "migrations": 0, "debug": debug,
           "l1_accel": "tcg", "l2_accel": L2_ACCEL,
           "kernels": ("L1 and L2: the debug kernels (mk/nesteddebug.mk)" if L2_DEBUG else
                       "L1: the debug kernel (mk/nesteddebug.mk), L2: the small L2 kernel")
           if debug else "L1: Debian 6.12 (no kmemleak), L2: the small L2 kernel"}
    t_start = time.time()
    with Peer() as peer:
        l1 = L1(peer)
        try:
            l1.setup()
            slots = [("src", l1.vf0, SRC_PORT), ("dst", l1.vf1, DST_PORT)]
            at = 0
            l1.l2_start("src", l1.vf0, SRC_PORT)
            l1.l2_start("dst", l1.vf1, DST_PORT, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
            rep["l2_up_s"] = round(l1.src.wait_up(), 1)
            log(f"L1 up in {l1.boot_seconds:.0f} s, L2 src up {rep['l2_up_s']} s after its start")
            first = _with(l1.src.wait_stat("compsc_restores"), "compsc_restores")
            r0, z0 = int(first["compsc_restores"]), int(first["compsc_resets"])
            rx_prev = int(first.get("rx_packets", 0))
            t_loop = time.time()
            with peer.ping_stream(L2_IP, interval=0.2) as ps:
                for i in range(n):
                    here, there = slots[at], slots[1 - at]
                    steps = _Steps()
                    res = _migrate(l1, ps, here, there, rep, problems, i + 1)
                    t_done = time.time()
                    steps.mark("migrate")
                    if res.get("status") != "completed":
                        problems.add(f"nested migration {i + 1} {here[0]}->{there[0]}: "
                                     f"{migration_summary(res)}")
                        break
                    rep["migrations"] += 1
                    # the old source goes away; a fresh destination waits there
                    l1.vf_own_mac(at)
                    at = 1 - at
                    _fresh_destination(l1, slots[1 - at], steps)
                    _answered(ps, t_done, 120 * l1.slow, f"nested migration {i + 1}")
                    steps.mark("answered")
                    if L2_DEBUG:
                        l1.l2(slots[at][0]).wait_stat("compsc_restores", pred=lambda s:
                                                      int(s["compsc_restores"]) >= r0 + i + 1)
                        steps.mark("settled")
                    if (i + 1) % RX_CHECK_EVERY == 0:
                        rx_prev = _rx_onward(l1, slots[at][0], rx_prev, i + 1, problems)
                    rep.setdefault("steps_s", []).append(steps.spent)
                    el = time.time() - t_loop
                    log(f"nested {i + 1}/{n}: {here[0]}->{there[0]} {migration_summary(res)}; "
                        f"{el:.0f} s, {el / (i + 1):.1f} s each; steps {steps}")
            rep["loop_s"] = round(time.time() - t_loop, 1)
            rep["s_per_migration"] = round(rep["loop_s"] / max(1, rep["migrations"]), 1)
            end = _restores_settled(l1, slots[at][0], r0 + rep["migrations"])
            rep["restores"] = int(end["compsc_restores"]) - r0
            rep["resets"] = int(end["compsc_resets"]) - z0
            _rx_onward(l1, slots[at][0], rx_prev, rep["migrations"], problems)
            rep["ping"] = {"sent": ps.trace.sent, "received": ps.trace.received,
                           "dup": ps.trace.raw.count("(DUP!)")}
            if rep["restores"] != rep["migrations"]:
                problems.add(f"nested: {rep['migrations']} migrations, {rep['restores']} restores")
            if rep["resets"]:
                problems.add(f"nested: compsc_resets went up by {rep['resets']}")
            if rep["ping"]["dup"]:
                problems.add(f"nested: {rep['ping']['dup']} duplicated ping replies")
            if debug:
                rep["leaks"] = _nested_leaks(l1, slots[at][0], problems, rep, out.parent)
            # every L2 console this L1 had: the live ones and those the
            # restarts of the incoming side moved to /run/l2logs
            for path, text in l1.l2_consoles().items():
                for p in kernel_problems(text):
                    problems.add(f"L2 kernel report ({path}): {p.splitlines()[0].strip()}")
            for p in kernel_problems(l1.sh("dmesg").out):
                problems.add(f"L1 kernel report: {p.splitlines()[0].strip()}")
        except Exception as e:  # noqa: BLE001 - counted and reported
            problems.add(f"nested soak stopped: {type(e).__name__}: {str(e).splitlines()[0]}")
        finally:
            if debug and "leaks" not in rep:
                rep["leaks"] = -1
                problems.add("nested: no kmemleak scan (the soak stopped before it)")
            l1.close(check=False)
            for p in l1.kernel_problems():
                problems.add(f"L1 console report: {p.splitlines()[0].strip()}")
    rep["seconds"] = round(time.time() - t_start, 1)
    rep["problems"] = problems.lines
    out.write_text(json.dumps(rep, indent=1) + "\n")
    return rep


# kmemleak's scan inside the debug L2 is opt-in (SOAK_L2_KMEMLEAK=1): in
# the first soak on the debug kernels it had not finished after 7 min
# (L1's took 35 s), and the run was stopped there.
L2_KMEMLEAK = os.environ.get("SOAK_L2_KMEMLEAK") == "1"


def _nested_leaks(l1, l2: str, problems: Problems, rep: dict, logs: Path) -> int:
    """kmemleak in L1 and, with L2_KMEMLEAK, in the L2 @l2 that runs now
    (the debug kernels): unreferenced objects, each report in @logs."""
    k = 0
    scans = [("L1", l1.kmemleak_scan)]
    if L2_KMEMLEAK:
        scans.append((f"L2 {l2}", lambda: l1.l2(l2).kmemleak()))
    rep["kmemleak_scanned"] = [where for where, _ in scans]
    for where, scan in scans:
        t0 = time.time()
        report = scan()
        rep[f"kmemleak_scan_s_{where.split()[0]}"] = round(time.time() - t0, 1)
        if report is None:
            problems.add(f"nested: no kmemleak in the {where} kernel")
            return -1
        n = report.count("unreferenced object 0x")
        log(f"kmemleak {where}: {n} leaks (scan took {time.time() - t0:.0f} s)")
        if n:
            path = logs / f"kmemleak-{where.split()[0]}.txt"
            path.write_text(report)
            log(f"kmemleak {where}: report in {path}, first:\n{report[:1500]}")
        k += n
    return k


class _Steps:
    """Seconds spent in each step of one nested migration, to say where a
    slow one goes (the debug L2 took ~208 s per migration, QEMU's part of
    it 7-14 s)."""

    def __init__(self):
        self.t, self.spent = time.monotonic(), {}

    def mark(self, step: str) -> None:
        now = time.monotonic()
        self.spent[step] = round(now - self.t, 1)
        self.t = now

    def __str__(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.spent.items())


def _with(stats: list, key: str) -> dict:
    """The last l2stat line that carries @key."""
    return [s for s in stats if key in s][-1]


# The debug L2 (SOAK_NESTED_DEBUG=1 in mk/soak.mk) answers the peer within
# seconds of a switch-over, but its userspace needs 86-104 s more in the
# fresh QEMU before its status line comes (KASAN-instrumented code being
# translated anew under TCG inside TCG). Taking its device again before
# then went wrong once in 3: a reader section outlasted the
# 5 s take bound, the take was refused, and the 10 s the take attempts
# kept new readers waiting fired igbvf's transmit watchdog, whose reset
# the soak counts (compsc_resets). So on the debug L2 each migration waits
# for that line: it settles first.
L2_DEBUG = os.environ.get("SOAK_L2_DEBUG") == "1"

# A take that compsc_vfio refuses because the guest's readers did not
# leave in time (take_timeout_ms) ends the migration the designed way: it
# fails, the guest keeps its device. On the debug kernels, whose L2 runs
# 5-10x slower and shares L1's CPUs with the next destination's QEMU, a
# reader section outlasted even 5 s once in 3 migrations that followed
# each other closely, so the soak does what an operator would: it checks
# that the refusal was that one and that the guest kept answering, starts
# the destination again and retries, at most TAKE_RETRIES times per
# migration. Each retry is counted in the report ("take_refused") and
# printed on the summary line; any other failure is a problem.
TAKE_RETRIES = 2
TAKE_REFUSED = "cannot take the device: readers did not leave in time"


def _migrate(l1, ps, here: tuple, there: tuple, rep: dict, problems: Problems,
             k: int) -> dict:
    """Migration @k from the L2 QEMU @here to @there (name, VF, QMP
    port), retried after a clean take refusal: query-migrate's answer."""
    from nested import ALL_DIRTY, migration_summary
    for attempt in range(TAKE_RETRIES + 1):
        mark = int(l1.sh("dmesg | wc -l").out)
        res = l1.migrate(params=ALL_DIRTY, src=here[2], dst=there[2])
        if res.get("status") == "completed" or attempt == TAKE_RETRIES:
            return res
        t_fail = time.time()
        new = l1.sh(f"dmesg | tail -n +{mark + 1}").out
        if TAKE_REFUSED not in new:
            return res
        _answered(ps, t_fail, 60 * l1.slow, f"nested migration {k}, after a refused take")
        rep["take_refused"] = rep.get("take_refused", 0) + 1
        log(f"nested {k}: take refused ({TAKE_REFUSED}; {migration_summary(res)}); "
            f"the guest kept its device and answers; retrying with a new destination")
        _fresh_destination(l1, there)
    return res


def _fresh_destination(l1, slot: tuple, steps: "_Steps" = None) -> None:
    """Stop the L2 QEMU of @slot (name, VF, QMP port) and start one there
    that waits for the next migration (marking the two steps in @steps)."""
    from nested import MIG_PORT
    name, vf, port = slot
    l1.l2_stop(name)
    if steps:
        steps.mark("stop")
    l1.l2_start(name, vf, port, f"-incoming tcp:127.0.0.1:{MIG_PORT}")
    l1.wait_incoming(port)
    if steps:
        steps.mark("incoming")


# How often the nested loop reads the L2's counters: each read of its
# console costs seconds on the debug kernels, and the L2 answering the
# peer already shows that it restored (_answered).
RX_CHECK_EVERY = 5


def _answered(ps, t_done: float, timeout: float, what: str) -> None:
    """Until the peer's ping stream @ps has a reply sent after @t_done,
    the moment the migration completed: only the destination runs then,
    and it answers only through its restored VF. The next migration's
    take would be refused before that restore (EAGAIN), and waiting for
    the L2's own status line took 86 s on the debug L2 (its userspace
    crawls in a fresh QEMU), a ping reply far less."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(t > t_done for t, _ in ps.replies()):
            return
        time.sleep(0.5)
    raise BenchError(f"{what}: the L2 did not answer the peer in {timeout:.0f} s")


def _rx_onward(l1, name: str, rx_prev: int, done: int, problems: Problems) -> int:
    """rx_packets from the newest l2stat line of the L2 @name, if one came
    since it runs there: a counter that went back is a problem."""
    stats = [s for s in l1.l2(name).stats() if "rx_packets" in s]
    if not stats:
        return rx_prev
    rx = int(stats[-1]["rx_packets"])
    if rx < rx_prev:
        problems.add(f"nested, after migration {done}: rx_packets went back {rx_prev} -> {rx}")
    return max(rx, rx_prev)


def _restores_settled(l1, name: str, want: int) -> dict:
    """The l2stat line of @name once compsc_restores reached @want (or
    the newest, if it never does: the caller counts the difference)."""
    try:
        stats = l1.l2(name).wait_stat("compsc_restores",
                                      pred=lambda s: int(s["compsc_restores"]) >= want)
    except BenchError:
        stats = l1.l2(name).wait_stat("compsc_restores")
    return _with(stats, "compsc_restores")


# ------------------------------------------------------------ summary

def summary(paths: list[Path]) -> int:
    migrations = problems = 0
    leaks = 0
    exact = True
    for p in paths:
        try:
            rep = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError) as e:
            print(f"soak: {p}: no report ({e})")
            problems += 1
            exact = False
            continue
        migrations += rep.get("migrations", 0)
        problems += len(rep.get("problems", []))
        for line in rep.get("problems", [])[:20]:
            print(f"soak: {rep['part']}: {line}")
        leaks += max(0, rep.get("leaks", 0))
        if rep["part"] == "bench":
            exact = exact and rep.get("counters", {}).get("exact", False)
            print(f"soak: bench: {rep.get('migrations')} of {rep.get('migrations_asked')} "
                  f"migrations in {rep.get('loop_s')} s ({rep.get('s_per_migration')} s each,"
                  f" debug kernel, 2 vCPUs), changes {rep.get('changes')}, "
                  f"slab {rep.get('slab', {}).get('why')}")
        else:
            refused = rep.get("take_refused", 0)
            print(f"soak: nested: {rep.get('migrations')} of {rep.get('migrations_asked')} "
                  f"migrations in {rep.get('loop_s')} s ({rep.get('s_per_migration')} s each;"
                  f" {rep.get('kernels')})"
                  + (f"; {refused} refused take(s) retried" if refused else ""))
    print(f"soak: migrations={migrations} problems={problems} leaks={leaks} "
          f"counters_exact={'yes' if exact else 'no'}")
    return 0 if problems == 0 and leaks == 0 and exact else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("bench", "nested"):
        s = sub.add_parser(name)
        s.add_argument("--migrations", type=int, required=True)
        s.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("summary")
    s.add_argument("reports", type=Path, nargs="+")
    a = ap.parse_args()
    if a.cmd == "summary":
        return summary(a.reports)
    if a.migrations < (4 if a.cmd == "bench" else 0):
        ap.error(f"{a.cmd}: --migrations must be at least {4 if a.cmd == 'bench' else 0}")
    if a.cmd == "nested" and a.migrations == 0:
        rep = {"part": "nested", "migrations_asked": 0, "migrations": 0, "problems": [],
               "kernels": "skipped (SOAK_NESTED=0)"}
        a.out.write_text(json.dumps(rep) + "\n")
        return 0
    if a.cmd == "bench":
        rep = bench_soak(a.migrations, a.out)
    else:
        rep = nested_soak(a.migrations, a.out)
    return 1 if rep["problems"] else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        print(f"soak: {str(e).splitlines()[0]}", file=sys.stderr)
        sys.exit(1)
