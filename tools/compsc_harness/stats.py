"""Numbers the benchmarks report (tools/compsc-*, tests/nested/bench_*.py):
one ratio rule and one word for a value that could not be measured.

    ratio(12.0, 4.0)          -> 3.0
    ratio(None, 4.0)          -> None   (a mode that did not run)
    fmt(ratio(a, b))          -> "3.00", or "na"
    vs(shadow, unplug)        -> the same for two modes' results by key
"""

from __future__ import annotations

NA = "na"


def ratio(num, den, digits: int = None):
    """@num / @den, or None when either is missing or @den is 0; rounded
    to @digits when given."""
    if num is None or not den:
        return None
    r = num / den
    return r if digits is None else round(r, digits)


def fmt(value, spec: str = "{:.2f}") -> str:
    """@value through @spec, or NA when it is None."""
    return NA if value is None else spec.format(value)


def vs(num: dict, den: dict, key: str = "peer_gap_s") -> str:
    """Mode results @num over @den by @key (default: the peer-seen gap),
    printed, or NA when either mode has no value."""
    return fmt(ratio(num.get(key), den.get(key)))
