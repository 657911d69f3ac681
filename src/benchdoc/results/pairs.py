"""One comparison of two experiments' values, with the project's statistical settings.

Every comparison benchdoc shows is made here: the configured ``compare_to`` pairs (which
`compute_results` then corrects as one family per metric) and the pairs asked for ad hoc
(`benchdoc compare A B`, a table's ``compare=``). Same test, level, confidence and
equivalence margin for both, so a pair reads the same wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchdoc.stats import TEST_NAME as TEST_NAME  # re-exported: the test behind every p-value, as captions name it
from benchdoc.stats import compare

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.models import RunRecord
    from benchdoc.stats import Comparison, Summary

def compare_summaries(
    config: Config,
    metric: str,
    candidate: Summary,
    baseline: Summary,
    candidate_runs: Sequence[RunRecord],
    baseline_runs: Sequence[RunRecord],
) -> Comparison:
    """``candidate`` against ``baseline`` for ``metric``, uncorrected, with the project's settings.

    The runs each summary pools (in the order their values were pooled) say which server
    start measured each value, so the comparison is made between starts."""
    spec = config.metric_or_default(metric)
    return compare(
        candidate.values,
        baseline.values,
        direction=spec.direction,
        alpha=config.stats.alpha,
        confidence=config.stats.confidence,
        equivalence_margin=spec.equivalence_margin,
        candidate_summary=candidate,
        baseline_summary=baseline,
        candidate_starts=start_labels(candidate_runs, metric),
        baseline_starts=start_labels(baseline_runs, metric),
    )


def start_labels(runs: Sequence[RunRecord], metric: str) -> list[tuple[int, int]]:
    """The server start of every pooled value of ``metric``, in pooling order."""
    return [label for run in runs for label in run.start_labels(metric)]


def can_compare(baseline: Summary) -> bool:
    """A relative comparison needs a positive baseline (an error rate of 0 has none)."""
    return baseline.median > 0
