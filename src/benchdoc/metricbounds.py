"""Which values a metric can take: by its meaning, and as the config declares.

Throughputs, latencies, durations, lengths, counts and rates cannot be negative; a
metric says what it measures by its name's words or its unit (``output_tok_s``,
``ttft_ms_p50``, unit ``tok/s``). A metric may also declare ``min``/``max`` in
benchdoc.toml, which take the place of the bound its meaning gives. Every door through
which values enter the ledger (record, import, run) asks :func:`value_problem`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

# Words of a metric name or unit that say it cannot be negative.
_NON_NEGATIVE_WORDS = frozenset(
    {
        "tok", "toks", "token", "tokens", "req", "reqs", "request", "requests", "rps", "qps",
        "s", "sec", "secs", "seconds", "ms", "us", "ns", "minutes", "hours",
        "latency", "ttft", "tpot", "itl", "e2e", "throughput", "time", "duration", "elapsed",
        "count", "len", "length", "rate", "bytes", "kb", "mb", "gb", "kib", "mib", "gib",
        "memory", "steps", "batch",
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")


def natural_minimum(name: str, unit: str = "") -> float | None:
    """0 when the metric's name or unit says it is a throughput, a time, a size or a count."""
    words = set(_WORD.findall(f"{name} {unit}".lower()))
    return 0.0 if words & _NON_NEGATIVE_WORDS else None


def value_problem(
    name: str, value: float, *, unit: str = "", minimum: float | None = None, maximum: float | None = None
) -> str | None:
    """Why ``value`` cannot be a value of the metric ``name``, or None when it can."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return f"{name} = {value!r} is not a finite number"
    declared = minimum is not None
    low = minimum if declared else natural_minimum(name, unit)
    if low is not None and value < low:
        if declared:
            return f"{name} = {value:g} is below its declared min {low:g}"
        return f"{name} = {value:g} is negative, and a throughput, time, size or count cannot be"
    if maximum is not None and value > maximum:
        return f"{name} = {value:g} is above its declared max {maximum:g}"
    return None


def first_problem(
    values: Iterable[tuple[str, float]], bounds: dict[str, tuple[str, float | None, float | None]] | None = None
) -> str | None:
    """The first value that its metric cannot take; ``bounds`` maps declared metrics to (unit, min, max)."""
    bounds = bounds or {}
    for name, value in values:
        unit, low, high = bounds.get(name, ("", None, None))
        problem = value_problem(name, value, unit=unit, minimum=low, maximum=high)
        if problem:
            return problem
    return None
