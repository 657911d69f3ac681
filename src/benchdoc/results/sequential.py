"""Runs that stopped themselves: a result `run --until-decided` recorded, read as its test decided.

The number of runs such a run took depended on its data, so its plain p-value is not a
valid one. When an experiment's result is exactly that run, compared on the metric it
decided against the very baseline runs it looked at, its comparison is read through the
sequential test (``benchdoc.stats.read_sequentially``); the run's other metrics are shown
as not decided (the test never looked at them, and the run's length was chosen on another
one); any other pooling is an ordinary comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    decided_on = record.get("metric") if record else None
    if not record or record.get("compare_to") != target or not isinstance(decided_on, str):
        return None
    looks = record.get("looks")
    shares = _shares(record)
    if not isinstance(looks, list) or not looks or not isinstance(looks[-1], dict) or shares is None:
        return None
    stopped_at = looks[-1].get("repetitions")
    if not isinstance(stopped_at, int) or stopped_at != len(candidate[0].values(decided_on)):
        return None  # its looks ended before its runs did: not what the test decided on
    if not _same_baseline(record, baseline, decided_on):
        return None
    if decided_on != metric:
        # Another metric of a run whose length was chosen by looking at ``decided_on``: its
        # plain test is no valid one either, and it was never tested sequentially.
        return Sequential(repetitions=stopped_at, shares=shares, decision=None, decided_on=decided_on)
    decision = record.get("decision")
    if decision not in ("significant", "equivalent", None):
        return None
    return Sequential(repetitions=stopped_at, shares=shares, decision=decision)


def family_level(
    results: Iterable[Any], name: str, metric: str, correction: str, alpha: float
) -> tuple[float, int]:
    """(level, family size): the level ``correction`` leaves ``name``'s comparison on ``metric``
    among the other comparisons of ``results`` (their p-values as they are), for a run that
    decides sequentially to decide what the corrected views will show."""
    from benchdoc.stats.multiple import level_left

    others = [
        result.comparisons[metric].p_tested for result in results
        if result.name != name and metric in result.comparisons and result.comparisons[metric].estimate is not None
    ]
    if correction == "none" or not others:
        return alpha, len(others) + 1
    return level_left([*others, 0.0], len(others), correction, alpha), len(others) + 1


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
