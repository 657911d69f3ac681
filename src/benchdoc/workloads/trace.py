"""A request trace to replay: when each request arrived, and its input and output lengths.

JSON Lines, one request per line, in the layout of Mooncake's traces (which SGLang's
``bench_serving`` replays): ``timestamp`` in milliseconds (from any origin: the first
request is due at 0), ``input_length`` and ``output_length`` in tokens. ``input_tokens``
and ``output_tokens`` are read too. Lines are replayed in timestamp order; every problem is
one line naming the file and the line.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from benchdoc.errors import UsageError

MAX_TRACE_REQUESTS = 1_000_000


@dataclass(frozen=True)
class Trace:
    path: str
    times_s: tuple[float, ...]  # due times from the first request
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]

    @property
    def span_s(self) -> float:
        return self.times_s[-1] if self.times_s else 0.0

    def mean_rate(self) -> float:
        """Requests per second over the trace's span (its one request per second when it has one)."""
        return (len(self.times_s) - 1) / self.span_s if self.span_s > 0 else float(len(self.times_s))


@functools.lru_cache(maxsize=4)
def load_trace(path: str) -> Trace:
    """The trace at ``path``; UsageError with file:line for anything it cannot use."""
    where = Path(path)
    try:
        lines = where.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read the trace: {err.strerror if isinstance(err, OSError) else err}", path) from None
    rows: list[tuple[float, int, int]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rows.append(_row(line, path, number))
        if len(rows) > MAX_TRACE_REQUESTS:
            raise UsageError(f"the trace holds more than {MAX_TRACE_REQUESTS:,} requests", path)
    if not rows:
        raise UsageError("the trace holds no request", path)
    rows.sort(key=lambda row: row[0])
    origin = rows[0][0]
    return Trace(path, tuple((t - origin) / 1000.0 for t, _, _ in rows), tuple(r[1] for r in rows),
                 tuple(r[2] for r in rows))


def _row(line: str, where: str, number: int) -> tuple[float, int, int]:
    try:
        item = json.loads(line)
    except ValueError as err:
        raise UsageError(f"not JSON: {err}", where, number) from None
    if not isinstance(item, dict):
        raise UsageError("expected a JSON object per line", where, number)
    stamp = item.get("timestamp")
    if not isinstance(stamp, (int, float)) or isinstance(stamp, bool) or stamp != stamp:
        raise UsageError("expected a numeric 'timestamp' (milliseconds)", where, number)
    lengths = []
    for names in (("input_length", "input_tokens"), ("output_length", "output_tokens")):
        value = next((item[n] for n in names if n in item), None)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UsageError(f"expected '{names[0]}' as a whole number >= 1, got {value!r}", where, number)
        lengths.append(value)
    return float(stamp), lengths[0], lengths[1]
