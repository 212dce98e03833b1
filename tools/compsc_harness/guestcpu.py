"""The guest's CPU time from the first line of its /proc/stat: one rule for
every tool that samples it (compsc-bench's sampler, compsc-datapath)."""


def busy_total(stat_line: str) -> tuple[int, int]:
    """(busy, total) jiffies since boot from `head -1 /proc/stat`: total is
    user..steal, busy is total minus idle and iowait."""
    vals = [int(x) for x in stat_line.split()[1:]]
    total = sum(vals[:8])
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return total - idle, total
