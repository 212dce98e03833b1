"""PNG plots of a compsc-bench report, in the style of the CompSC paper's
figures 11-16: throughput and guest CPU over time, one panel per mode,
events marked. Uses matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

TITLES = {"compsc": "CompSC (stand-in hypervisor takes the VF, FLR, driver restores)",
          "reload": "baseline: stock igbvf unbind/bind (what hot-unplug / bonding costs)"}
ORDER = ("compsc", "reload")


def _params_line(r: dict) -> str:
    p = r["params"]
    parts = [f"{p['migrations']} events per mode"]
    if p["traffic"] in ("tcp", "both"):
        parts.append("iperf3 TCP peer->guest " +
                     ("unlimited" if p["tcp_rate"] == "0" else f"at {p['tcp_rate']}bit/s"))
    if p["traffic"] in ("ping", "both"):
        parts.append(f"ping {p['rate_pps']:g}/s")
    parts.append(f"stand-in blackout {p['blackout_ms']} ms")
    parts.append(f"QEMU TCG, {r.get('started', '')[:16].replace('T', ' ')}")
    return ", ".join(parts)


def _ping_rate(m: dict, t0: float, t1: float, step: float):
    """Ping replies per bin as % of the mode's steady rate (the median bin:
    under TCG ping rarely reaches its nominal rate, so the nominal rate
    would not be 100 %)."""
    p = m.get("ping")
    if not p:
        return [], []
    n = int((t1 - t0) / step) + 1
    bins = [0] * n
    for t, _ in p["replies"]:
        i = int((t - t0) / step)
        if 0 <= i < n:
            bins[i] += 1
    steady = sorted(bins[1:-1] or bins)[len(bins[1:-1] or bins) // 2] or 1
    xs = [(i + 0.5) * step for i in range(n)]
    return xs, [100.0 * b / steady for b in bins]


def plot_timeline(r: dict, path: Path) -> Path:
    modes = [m for m in ORDER if m in r["modes"]]
    fig, axes = plt.subplots(len(modes), 1, figsize=(12, 3.6 * len(modes) + 0.8),
                             squeeze=False)
    ymax = 1.0
    for m in modes:
        t = r["modes"][m].get("tcp") or {}
        for s in t.get("samples", []) + t.get("rx_samples", []):
            ymax = max(ymax, s["mbps"])
    summ = r["summary"]["per_mode"]
    legend: dict = {}
    for ax, mode in zip(axes[:, 0], modes):
        m = r["modes"][mode]
        t0, t1 = m["t_begin"], m["t_finish"]
        handles = []
        tcp = m.get("tcp")
        if tcp:
            iv = tcp["interval_s"]
            xs = [s["t"] - t0 - iv / 2 for s in tcp["samples"]]
            ys = [s["mbps"] for s in tcp["samples"]]
            ax.plot(xs, ys, "--", color="tab:cyan", lw=0.9)
            handles.append(Line2D([], [], color="tab:cyan", ls="--",
                                  label=f"TCP sent by the peer (iperf3 client, per {iv:g} s)"))
            rx = tcp.get("rx_samples") or []
            if rx:
                ax.plot([s["t"] - t0 - iv / 2 for s in rx], [s["mbps"] for s in rx],
                        "-o", color="tab:blue", ms=3, lw=1.6)
                handles.append(Line2D([], [], color="tab:blue", marker="o", ms=3,
                                      label=f"TCP received by the guest (iperf3 server, per {iv:g} s)"))
        ax.set_ylim(0, ymax * 1.25)
        ax.set_xlim(0, t1 - t0)
        ax.set_ylabel("throughput (Mbit/s)")
        ax.grid(alpha=0.3)
        ax2 = ax.twinx()
        cpu = m.get("cpu", {}).get("samples", [])
        if cpu:
            ax2.plot([c["t"] - t0 for c in cpu], [c["busy_pct"] for c in cpu],
                     "-", color="tab:green", lw=1.2)
            handles.append(Line2D([], [], color="tab:green",
                                  label="guest CPU busy (%, /proc/stat)"))
        px, py = _ping_rate(m, t0, t1, 0.25)
        if px:
            ax2.plot(px, py, "-", color="0.55", lw=0.8)
            handles.append(Line2D([], [], color="0.55",
                                  label="ping replies per 0.25 s (% of steady rate)"))
        ax2.set_ylim(0, 140)
        ax2.set_ylabel("guest CPU / ping replies (%)")
        for k, e in enumerate(m["events"], 1):
            a, b = e["t_start"] - t0, e["t_end"] - t0
            ax.axvspan(a, b, color="tab:orange", alpha=0.25, lw=0)
            if e.get("blackout_s"):
                ax.axvspan(b - e["blackout_s"], b, color="tab:red", alpha=0.45, lw=0)
            ax.axvline(a, color="tab:red", ls="--", lw=0.8)
            gap = e.get("gap_s")
            label = f"#{k}" + (f"\ngap {gap * 1000:.0f} ms" if gap is not None else "")
            ax.text(a, ymax * 1.22, label, fontsize=7.5, va="top", ha="left",
                    color="tab:red")
        handles.append(Patch(color="tab:orange", alpha=0.35,
                             label="event command running (migrate / unbind+bind)"))
        if mode == "compsc":
            handles.append(Patch(color="tab:red", alpha=0.5,
                                 label="device held by the host (blackout)"))
        s = summ.get(mode, {})
        facts = []
        if s.get("gap_ms_median") is not None:
            facts.append(f"median gap {s['gap_ms_median']:.0f} ms")
        if s.get("lost_per_event") is not None:
            facts.append(f"{s['lost_per_event']:.1f} pings lost/event, {s['dup']} dup")
        if s.get("tcp_alive") is not None:
            facts.append("TCP " + ("alive" if s["tcp_alive"] else "BROKEN"))
        facts.append(f"counters {s.get('counters')}")
        ax.set_title(f"{mode}: {TITLES[mode]}\n" + "; ".join(facts), fontsize=10,
                     loc="left")
        for h in handles:
            legend.setdefault(h.get_label(), h)
    axes[-1, 0].set_xlabel("time since traffic started in this mode (s)")
    fig.suptitle("VF live migration under traffic, as the peer sees it\n" + _params_line(r),
                 fontsize=11)
    fig.legend(handles=list(legend.values()), loc="lower center", ncol=3, fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.07 if len(modes) > 1 else 0.12, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_gaps(r: dict, path: Path) -> Path:
    modes = [m for m in ORDER if m in r["modes"]]
    fig, ax = plt.subplots(figsize=(10, 4.6))
    colors = {"compsc": "tab:blue", "reload": "tab:orange"}
    n = max(len(r["modes"][m]["events"]) for m in modes)
    w = 0.8 / len(modes)
    for j, mode in enumerate(modes):
        ev = r["modes"][mode]["events"]
        xs = [i + 1 + (j - (len(modes) - 1) / 2) * w for i in range(len(ev))]
        gaps = [1000 * (e.get("gap_s") or 0) for e in ev]
        ax.bar(xs, gaps, width=w, color=colors[mode], label=f"{mode}: peer-seen gap")
        held = [1000 * e["blackout_s"] for e in ev if e.get("blackout_s") is not None]
        if held:
            ax.bar(xs, held, width=w * 0.5, color="tab:red",
                   label=f"{mode}: device held by the host")
    ax.set_xticks(range(1, n + 1))
    ax.set_xlabel("event number")
    ax.set_ylabel("time (ms)")
    ax.set_ylim(0, None)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Downtime per event as the peer sees it (longest time between two ping "
                 "replies)\n" + _params_line(r).replace(", stand-in", ",\nstand-in"),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_all(r: dict, outdir: Path) -> list[Path]:
    outdir = Path(outdir)
    out = [plot_timeline(r, outdir / "throughput.png")]
    if any(e.get("gap_s") is not None for m in r["modes"].values() for e in m["events"]):
        out.append(plot_gaps(r, outdir / "gaps.png"))
    return out
