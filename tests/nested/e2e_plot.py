"""bench-e2e's picture: one bar per migration, grouped by mode, stacking
the parts of the gap the peer saw, in seconds from its last reply before
the gap:

  CompSC   guest still running -> device held by the host (QEMU's switch-over
           happens inside it) -> the guest's restore -> restore to the first
           packet the guest sent -> the rest, until the peer's next reply
  others   QEMU's reported downtime -> the rest, until the peer's next reply

Host times (take, hand-back) are on L1's clock mapped to the peer's; the
guest's durations are on its own clock and are stacked after the hand-back,
where they begin. A part that would run past the gap is cut at its end.
"""

from __future__ import annotations

import statistics
from pathlib import Path

PARTS = (("before_take", "guest running, before the take", "#bbbbbb"),
         ("held", "device held by the host", "#d62728"),
         ("qemu", "QEMU downtime (vCPUs stopped)", "#ff7f0e"),
         ("restore", "guest restore", "#1f77b4"),
         ("to_xmit", "restore -> guest's first transmit", "#17becf"),
         ("rest", "rest, until the peer's next reply", "#2ca02c"))


def gap_parts(run: dict) -> dict:
    """Named durations (s) that stack up to the run's peer-seen gap."""
    gap = run.get("peer_gap_s")
    if gap is None:
        return {}
    tl, g = run.get("timeline_s", {}), run.get("guest_ms", {})
    if "handed" not in tl:   # no CompSC device: QEMU's part, then the rest
        q = min(gap, (run.get("qemu_downtime_ms") or 0) / 1000)
        return {"qemu": q, "rest": gap - q}
    marks = [("before_take", max(0.0, tl.get("taken", 0.0))), ("held", tl["handed"])]
    t = tl["handed"]
    for k, ms in (("restore", g.get("guest_restore_ms")),
                  ("to_xmit", g.get("guest_first_xmit_ms"))):
        if ms is not None:
            t += ms / 1000
            marks.append((k, t))
    out, at = {}, 0.0
    for k, end in marks:
        end = min(max(end, at), gap)
        out[k], at = end - at, end
    out["rest"] = gap - at
    return out


def plot_gaps(results: dict, path: Path) -> Path:
    """Stacked bars, one per migration of every mode that ran; ImportError
    without matplotlib (the bench's numbers do not need it)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 5))
    gaps = [run["peer_gap_s"] for r in results.values() for run in r.get("runs") or []
            if run.get("peer_gap_s") is not None]
    # one outlier (unplug: tens of seconds) must not flatten every other bar
    top = min(max(gaps, default=1.0), 4 * statistics.median(gaps or [1.0])) * 1.1
    x, ticks, labels = 0, [], []
    for mode, r in results.items():
        runs = r.get("runs") or []
        for i, run in enumerate(runs):
            bottom, part = 0.0, gap_parts(run)
            for key, _, color in PARTS:
                v = part.get(key, 0.0)
                if v > 0:
                    ax.bar(x, v, bottom=bottom, color=color, width=0.8)
                    bottom += v
            if bottom:
                ax.text(x, min(bottom, top * 0.97), f"{bottom:.1f}", ha="center",
                        va="bottom" if bottom < top else "top", fontsize=7)
            ticks.append(x)
            labels.append(f"{mode}\n#{i + 1}" if i == 0 else f"#{i + 1}")
            x += 1
        x += 1 if runs else 0
    handles = [matplotlib.patches.Rectangle((0, 0), 1, 1, color=c) for _, _, c in PARTS]
    ax.legend(handles, [lbl for _, lbl, _ in PARTS], fontsize=8, loc="upper left")
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_ylim(0, top)
    ax.set_ylabel("peer-seen gap (s)")
    from nested import L2_ACCEL
    ax.set_title("bench-e2e: what each migration's gap is made of "
                 f"(nested: L1 on TCG, L2 on {L2_ACCEL.upper()})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
