"""Statistics over samples grouped by server start: summaries, comparisons and verdicts, multiple comparisons,
before/after changes. Pure functions over sequences of floats; no storage, no config.

numpy and scipy are imported inside the functions that use them, so importing this
package costs nothing for commands that never compute a statistic.
"""

from __future__ import annotations

from benchdoc.stats.change import Change, change
from benchdoc.stats.compare import (
    EQUIVALENCE_TEST_NAME,
    MAX_STARTS_SUGGESTED,
    MIN_STARTS,
    TEST_NAME,
    VERDICTS,
    Comparison,
    Sequential,
    Verdict,
    compare,
    format_p,
    starts_needed,
)
from benchdoc.stats.multiple import CORRECTION_NAMES, CORRECTIONS, adjust_comparisons, adjust_pvalues, compare_many
from benchdoc.stats.sequential import read_sequentially
from benchdoc.stats.summary import Summary, min_samples_for_interval, outlier_indices, summarize

__all__ = [
    "CORRECTIONS",
    "CORRECTION_NAMES",
    "Change",
    "Comparison",
    "EQUIVALENCE_TEST_NAME",
    "Sequential",
    "Summary",
    "TEST_NAME",
    "VERDICTS",
    "Verdict",
    "adjust_comparisons",
    "adjust_pvalues",
    "change",
    "compare",
    "compare_many",
    "MAX_STARTS_SUGGESTED",
    "MIN_STARTS",
    "format_p",
    "min_samples_for_interval",
    "outlier_indices",
    "read_sequentially",
    "starts_needed",
    "summarize",
]
