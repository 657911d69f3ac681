"""Per-request latencies of an experiment's current result: the distribution behind its percentiles.

A load-generator run keeps each of its requests in the ledger (``run_requests``); the
requests of the runs an experiment's result pools give its latency distribution: every
successful request's TTFT and TPOT, the same values the run's ``ttft_ms_p50`` and
``tpot_ms_p50`` were computed from. Failed requests are counted, never drawn: they have
no latency to show.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchdoc.ledger.models import RequestRow

# Reads the requests kept with some runs: run id -> its rows (an empty list when none were kept).
RequestReader = Callable[[Sequence[int]], Mapping[int, Sequence["RequestRow"]]]


@dataclass(frozen=True)
class RequestLatencies:
    """The latencies of every successful request kept with an experiment's pooled runs."""

    experiment: str
    runs: tuple[int, ...]  # the pooled runs that kept their requests
    ttft_ms: tuple[float, ...]  # ascending
    tpot_ms: tuple[float, ...]  # ascending; a request with one output token has none
    succeeded: int  # kept requests that succeeded
    failed: int  # kept requests that failed: in no distribution

    def values(self, metric: str) -> tuple[float, ...]:
        """The sorted values of ``ttft_ms`` or ``tpot_ms``."""
        if metric == "ttft_ms":
            return self.ttft_ms
        if metric == "tpot_ms":
            return self.tpot_ms
        raise ValueError(f"no per-request distribution of {metric!r}")


def request_tpot(row: RequestRow) -> float | None:
    """A request's time per output token after the first, as the load generator defines it
    (its kept record's ``tpot_ms``, else the same formula over the row's own columns)."""
    kept = row.record.get("tpot_ms") if isinstance(row.record, dict) else None
    if isinstance(kept, (int, float)) and not isinstance(kept, bool):
        return float(kept)
    if row.ttft_ms is None or row.e2e_ms is None or row.output_tokens is None or row.output_tokens < 2:
        return None
    return (row.e2e_ms - row.ttft_ms) / (row.output_tokens - 1)


def request_latencies(experiment: str, kept: Mapping[int, Iterable[RequestRow]]) -> RequestLatencies | None:
    """The distribution of the requests ``kept`` with an experiment's runs; None when no run kept any."""
    runs: list[int] = []
    ttft: list[float] = []
    tpot: list[float] = []
    failed = succeeded = 0
    for run_id, rows in kept.items():
        listed = list(rows)
        if not listed:
            continue
        runs.append(run_id)
        for row in listed:
            if not row.ok:
                failed += 1
                continue
            succeeded += 1
            if row.ttft_ms is not None:
                ttft.append(float(row.ttft_ms))
            tpot_ms = request_tpot(row)
            if tpot_ms is not None:
                tpot.append(tpot_ms)
    if not runs:
        return None
    return RequestLatencies(experiment, tuple(runs), tuple(sorted(ttft)), tuple(sorted(tpot)), succeeded, failed)
