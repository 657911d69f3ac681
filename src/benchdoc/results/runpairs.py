"""Two runs compared by their ids (`benchdoc compare 41 44`), whatever their experiments.

Each run stands as a result of its own: its repetitions are its sample, summarised and
compared with the same test, interval and verdict words as two experiments are. The pair
is not part of the project's corrected family, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchdoc.config import ExperimentConfig
from benchdoc.ledger.models import Outcome, RunRecord
from benchdoc.results.model import ExperimentResult, NoComparison, PairComparison, ResultSet
from benchdoc.results.pairs import can_compare, compare_summaries
from benchdoc.results.status import Status

RUN_NOTE = ("two runs, each one's repetitions its sample (compared start by start); not part of the corrected "
            "family: p is uncorrected")


def run_result(results: ResultSet, run: RunRecord) -> ExperimentResult:
    """One run as a result: named ``run#ID``, labelled with its experiment and date."""
    if run.retraction is not None:
        raise NoComparison(f"run {run.id} was retracted ({run.retraction}): it is no result to compare")
    if run.outcome != Outcome.OK:
        raise NoComparison(f"run {run.id} of {run.experiment} has no result to compare: it {run.outcome}"
                           + (f" ({run.failure_reason})" if run.failure_reason else ""))
    label = f"run {run.id} ({run.experiment}, {run.started_at:%Y-%m-%d %H:%M})"
    summaries = {
        metric: summary
        for metric in sorted({s.metric for s in run.samples})
        if (summary := results.run_summary(run, metric)) is not None
    }
    config = ExperimentConfig(name=f"run#{run.id}", label=label)
    return ExperimentResult(name=config.name, config=config, status=Status.MEASURED, reason=None, failure_log_line=None,
                            runs=(run,), pooled=(run,), summaries=summaries)


def compare_runs(
    results: ResultSet, candidate: RunRecord, baseline: RunRecord, metrics: Sequence[str] = ()
) -> tuple[ExperimentResult, ExperimentResult, list[PairComparison]]:
    """``candidate`` against ``baseline`` on ``metrics`` (default: the declared metrics both
    runs recorded, else every metric both recorded)."""
    if candidate.id == baseline.id:
        raise NoComparison(f"cannot compare run {candidate.id} with itself")
    a, b = run_result(results, candidate), run_result(results, baseline)
    # A metric either run recorded is named as recorded; else by a declared metric's name or label.
    names = [m if m in a.summaries or m in b.summaries else results.metric(m).name for m in metrics] if metrics \
        else _shared(results, a, b)
    pairs = []
    for metric in names:
        mine, theirs = a.summaries.get(metric), b.summaries.get(metric)
        if mine is None or theirs is None:
            raise NoComparison(f"metric '{metric}' is not recorded by both run {candidate.id} and run {baseline.id}")
        if not can_compare(theirs):
            raise NoComparison(f"cannot compare {metric}: run {baseline.id}'s median is {theirs.median:g}, "
                               "and a ratio needs a positive baseline")
        comparison = compare_summaries(results.config, metric, mine, theirs, (candidate,), (baseline,))
        pairs.append(PairComparison(a.name, b.name, metric, comparison, False, RUN_NOTE))
    return a, b, pairs


def _shared(results: ResultSet, a: ExperimentResult, b: ExperimentResult) -> list[str]:
    shared = [m for m in a.summaries if m in b.summaries and can_compare(b.summaries[m])]
    declared = [m for m in shared if m in results.config.metrics]
    if not (declared or shared):
        raise NoComparison(f"{a.label} and {b.label} share no metric")
    return declared or shared
