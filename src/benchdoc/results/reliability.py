"""Whether a result can be trusted: how many of its requests failed or were cut short.

Throughput and latency are computed over the requests that succeeded, so a run whose
server cut 95 of 100 streams still shows a figure, made of 5 requests. A result (or one
run) is *unreliable* when the share of its measured requests that failed is above
``[stats] max_error_rate`` (5% by default). Cut-short requests (a stream that ended
before the request was complete) are failed requests too, and are named apart.

The counts are the ones a run recorded (``requests``, ``failures`` and ``cut_short`` of its
metadata, summed over pooled runs); a run that recorded none (a command workload, most
imports) is judged by its ``error_rate`` samples when it has them, and is not judged
otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from benchdoc.ledger.models import Outcome, RunRecord


@dataclass(frozen=True)
class Reliability:
    """The failed share of a result's (or a run's) measured requests against the limit.

    ``requests`` is None when only an error rate was recorded (no counts).
    """

    rate: float  # failed requests / requests, 0 to 1
    limit: float  # [stats] max_error_rate
    requests: int | None = None
    failed: int | None = None
    cut_short: int | None = None

    @property
    def unreliable(self) -> bool:
        return self.rate > self.limit

    @property
    def cut_short_rate(self) -> float | None:
        if self.requests is None or not self.requests or self.cut_short is None:
            return None
        return self.cut_short / self.requests


def _counts(run: RunRecord) -> tuple[int, int, int] | None:
    """(requests, failed, cut short) as the run recorded them, or None."""
    meta = run.metadata
    if meta.requests is None or meta.requests <= 0:
        return None
    failed = sum(meta.failures.values()) if meta.failures else 0
    cut = meta.cut_short or 0
    return meta.requests, max(failed, cut), cut


def reliability(runs: Iterable[RunRecord], limit: float) -> Reliability | None:
    """The reliability of these (pooled) runs together, or None when none says how many of
    its requests failed."""
    chosen = [run for run in runs if run.outcome == Outcome.OK]
    counted = [c for c in (_counts(run) for run in chosen) if c is not None]
    if counted:
        requests = sum(c[0] for c in counted)
        failed = sum(c[1] for c in counted)
        cut = sum(c[2] for c in counted)
        return Reliability(failed / requests, limit, requests, failed, cut)
    rates = [v for run in chosen for v in run.values("error_rate")]
    if rates:
        return Reliability(sum(rates) / len(rates), limit)
    return None


def run_reliability(run: RunRecord, limit: float) -> Reliability | None:
    """One run's reliability (``history`` shows it per run)."""
    return reliability([run], limit)


def counted(requests: int, failed: int, cut_short: int, limit: float) -> Reliability | None:
    """The reliability of requests counted by hand (a `bench` pass before it is recorded)."""
    return Reliability(failed / requests, limit, requests, failed, cut_short) if requests > 0 else None
