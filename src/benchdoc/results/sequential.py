"""Runs that stopped themselves: a result `run --until-decided` recorded, read as its test decided.

The number of runs such a run took depended on its data, so its plain p-value is not a
valid one. When an experiment's result is exactly that run, compared on the metric it
decided against the very baseline runs it looked at, its comparison is read through the
sequential test (``benchdoc.stats.read_sequentially``); any other pooling is an ordinary
comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchdoc.ledger.models import RunRecord
from benchdoc.stats import Sequential


def sequential_outcome(
    candidate: Sequence[RunRecord], baseline: Sequence[RunRecord], metric: str, target: str
) -> Sequential | None:
    """How the candidate's sequential test ended, when its result is exactly what the test saw."""
    if len(candidate) != 1:
        return None
    record = candidate[0].metadata.until_decided
    if not record or record.get("compare_to") != target or record.get("metric") != metric:
        return None
    looks = record.get("looks")
    shares = _shares(record)
    if not isinstance(looks, list) or not looks or not isinstance(looks[-1], dict) or shares is None:
        return None
    stopped_at = looks[-1].get("repetitions")
    if not isinstance(stopped_at, int) or stopped_at != len(candidate[0].values(metric)):
        return None  # its looks ended before its runs did: not what the test decided on
    if not _same_baseline(record, baseline, metric):
        return None
    decision = record.get("decision")
    if decision not in ("significant", "equivalent", None):
        return None
    return Sequential(repetitions=stopped_at, shares=shares, decision=decision)


def _shares(record: dict[str, Any]) -> int | None:
    shares = record.get("shares")
    if isinstance(shares, int) and shares >= 1:
        return shares
    alpha, per_look = record.get("alpha"), record.get("alpha_per_look")
    if isinstance(alpha, (int, float)) and isinstance(per_look, (int, float)) and per_look > 0:
        return max(1, round(alpha / per_look))  # recorded before the share count was
    return None


def _same_baseline(record: dict[str, Any], baseline: Sequence[RunRecord], metric: str) -> bool:
    ids = record.get("baseline_runs")
    if isinstance(ids, list) and ids:
        return sorted(ids) == sorted(run.id for run in baseline)
    return record.get("baseline_n") == sum(len(run.values(metric)) for run in baseline)
