"""Runs that stopped themselves: a result `run --until-decided` recorded, read as its test decided.

The number of runs such a run took depended on its data, so its plain p-value is not a
valid one. When an experiment's result is exactly that run, compared on the metric it
decided against the very baseline runs it looked at, its comparison is read through the
sequential test (``benchdoc.stats.read_sequentially``); the run's other metrics are shown
as not decided (the test never looked at them, and the run's length was chosen on another
one); any other pooling is an ordinary comparison.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from benchdoc.ledger.metadata import SequentialTest
from benchdoc.ledger.models import RunRecord
from benchdoc.stats import Sequential


def sequential_outcome(
    candidate: Sequence[RunRecord], baseline: Sequence[RunRecord], metric: str, target: str
) -> Sequential | None:
    """How the candidate's sequential test ended, when its result is exactly what the test saw."""
    if len(candidate) != 1:
        return None
    record = candidate[0].metadata.until_decided
    decided_on = record.metric if record else None
    if record is None or record.compare_to != target or decided_on is None:
        return None
    shares = _shares(record)
    if not record.looks or shares is None:
        return None
    stopped_at = record.looks[-1].repetitions
    if stopped_at is None or stopped_at != len(candidate[0].values(decided_on)):
        return None  # its looks ended before its runs did: not what the test decided on
    if not _same_baseline(record, baseline, decided_on):
        return None
    starts = record.looks[-1].starts
    starts = starts if starts is not None and starts > 0 else None
    if decided_on != metric:
        # Another metric of a run whose length was chosen by looking at ``decided_on``: its
        # plain test is no valid one either, and it was never tested sequentially.
        return Sequential(repetitions=stopped_at, shares=shares, decision=None, decided_on=decided_on, starts=starts)
    decision = record.decision
    if decision not in ("significant", "equivalent", None):
        return None
    return Sequential(repetitions=stopped_at, shares=shares, decision=decision, starts=starts)


def seen_baseline(candidate: Sequence[RunRecord], baseline: Sequence[RunRecord]) -> list[RunRecord] | None:
    """The baseline as the candidate's sequential test last saw it: a baseline that ran
    alongside several candidates went on after this one stopped, and the starts it added
    are cut off, so the comparison shown is the one the test decided on. Otherwise (no
    sequential record, or nothing added since) None: the baseline as pooled."""
    record = candidate[0].metadata.until_decided if len(candidate) == 1 else None
    seen = record.baseline_starts if record else None
    if seen is None or seen < 1:
        return None
    kept: list[RunRecord] = []
    taken: set[tuple[int, int]] = set()
    for run in baseline:
        starts = []
        for start in sorted({s.start for s in run.samples}):
            if len(taken) < seen:
                taken.add((run.id, start))
                starts.append(start)
        if starts:
            kept.append(dataclasses.replace(run, samples=tuple(s for s in run.samples if s.start in starts)))
    total = sum(len({s.start for s in run.samples}) for run in baseline)
    return kept if len(taken) == seen < total else None


def family_level(
    results: Iterable[Any], name: str, metric: str, correction: str, alpha: float, *, running: Sequence[str] = ()
) -> tuple[float, int]:
    """(level, family size): the level ``correction`` leaves ``name``'s comparison on ``metric``
    among the other comparisons of ``results``, for a run that decides sequentially to decide
    what the corrected views will show. The others keep their p-values, except those in
    ``running`` (measured by the same run, so about to change), which count at p = 1: the
    least any correction then leaves (alpha / K for Holm, Bonferroni and BH alike), so a
    decision holds whatever they become. The level is the lower of the difference family's
    and the equivalence family's, since one look decides both."""
    from benchdoc.stats.multiple import level_left

    fresh = set(running)
    found = [result for result in results
             if result.name != name and result.name not in fresh and metric in result.comparisons
             and result.comparisons[metric].estimate is not None]
    size = len(found) + len(fresh - {name}) + 1
    if correction == "none" or size == 1:
        return alpha, size
    unknown = [1.0] * len(fresh - {name})
    tested = [result.comparisons[metric].p_tested for result in found]
    level = level_left([*tested, *unknown, 0.0], size - 1, correction, alpha)
    equivalence = [p for result in found if (p := result.comparisons[metric].equivalence_p_tested) is not None]
    level = min(level, level_left([*equivalence, *unknown, 0.0], len(equivalence) + len(unknown), correction, alpha))
    return level, size


def _shares(record: SequentialTest) -> int | None:
    shares = record.shares
    if shares is not None and shares >= 1:
        return shares
    alpha, per_look = record.alpha, record.alpha_per_look
    if alpha is not None and per_look is not None and per_look > 0:
        return max(1, round(alpha / per_look))  # recorded before the share count was
    return None


def _same_baseline(record: SequentialTest, baseline: Sequence[RunRecord], metric: str) -> bool:
    ids = record.baseline_runs
    if ids:
        return sorted(ids) == sorted(run.id for run in baseline)
    return record.baseline_n == sum(len(run.values(metric)) for run in baseline)
