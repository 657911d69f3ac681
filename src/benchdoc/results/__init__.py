"""THE query layer: every experiment's current result, status, comparisons and history.

For every experiment this computes which runs are pooled, the summary of each metric,
the comparison against its ``compare_to`` (corrected for multiple comparisons across the
whole project, so `show`, tables and the lint agree), the before -> after change against
the experiment it supersedes, its status, and the environment differences behind a
comparison. It also answers the questions every view asks: which experiments a name,
alias or glob names (:meth:`ResultSet.select`), which metric a name or label means
(:meth:`ResultSet.metric`), how one experiment compares with another
(:meth:`ResultSet.compare`), and how a verdict or status is said (:mod:`.words`).

Commands, documents, charts, the report and the lint ask this package; none of them
imports :mod:`benchdoc.stats`. The statistics types they hold are re-exported here.
"""

from __future__ import annotations

from benchdoc.results.catalog import experiment_catalog, select_recorded
from benchdoc.results.compute import (
    build_results,
    compute_results,
    effective_pooling,
    environment_differences,
    pooled_run_ids,
)
from benchdoc.results.lazy import LazyResults
from benchdoc.results.model import (
    ExperimentResult,
    NoComparison,
    PairComparison,
    Pooling,
    ResultSet,
    median_of,
    run_median,
)
from benchdoc.results.pairs import TEST_NAME
from benchdoc.results.status import STATUSES, Status
from benchdoc.stats import Change, Comparison, Summary

__all__ = [
    "Change",
    "Comparison",
    "ExperimentResult",
    "LazyResults",
    "NoComparison",
    "PairComparison",
    "Pooling",
    "ResultSet",
    "STATUSES",
    "Status",
    "Summary",
    "TEST_NAME",
    "build_results",
    "compute_results",
    "effective_pooling",
    "environment_differences",
    "experiment_catalog",
    "median_of",
    "pooled_run_ids",
    "run_median",
    "select_recorded",
]
