"""`benchdoc compare`'s table: one row per metric, both medians, delta, interval, p and verdict.

The terminal and ``--markdown`` draw this same table (see :mod:`benchdoc.cli._tables`); the
verdicts are worded by :mod:`benchdoc.results.words`, the p-values are the results' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchdoc.cli._tables import Column, TextTable

if TYPE_CHECKING:
    from benchdoc.results import Comparison, ExperimentResult, PairComparison, ResultSet, Summary


def compare_table(results: ResultSet, a: ExperimentResult, b: ExperimentResult, pairs: list[PairComparison]) -> TextTable:
    """``a`` (the candidate) against ``b`` on each metric of ``pairs``."""
    from benchdoc.results.words import delta_text, format_p, p_text, tested, verdict_text

    config = results.config
    adjusted = any(pair.comparison.p_used != pair.comparison.p_value for pair in pairs)
    headers = ["metric", b.name, a.name, "delta", "interval (level)", "p"]
    headers += ["p uncorrected"] if adjusted else []
    columns = [Column(h, right=h not in ("metric",), role="key" if h == "metric" else "head") for h in headers]
    columns.append(Column("verdict"))
    rows = []
    for pair in pairs:
        c = pair.comparison
        spec = config.metric_or_default(pair.metric)
        cells = [
            f"{spec.label} ({'higher' if spec.direction == 'higher' else 'lower'} is better)",
            _cell(c.baseline, spec.digits),
            _cell(c.candidate, spec.digits),
            delta_text(c),
            _interval(c),
            f"{p_text(c)}{c.p_label if tested(c) else ''} (n={c.candidate.n}+{c.baseline.n})",
        ]
        if adjusted:
            cells.append(format_p(c.p_value) if c.p_used != c.p_value and tested(c) else "—")
        rows.append((*cells, verdict_text(c, spec)))
    return TextTable(f"{a.label}  vs  {b.label}", tuple(columns), tuple(rows), notes=tuple(_notes(results, a, b, pairs)))


def _interval(c: Comparison) -> str:
    from benchdoc.results.words import shift_interval_text

    if c.verdict == "undecided":
        return "—"  # a sequential test that stopped undecided shows no direction
    return shift_interval_text(c) or c.delta_ci_reason or "—"


def _cell(summary: Summary, digits: int) -> str:
    from benchdoc.cli._common import format_summary
    from benchdoc.results.words import OUTLIER_MARK

    mark = f" {OUTLIER_MARK}" if summary.outliers else ""
    return f"{format_summary(summary, digits)}{mark} (n={summary.n})"


def _notes(results: ResultSet, a: ExperimentResult, b: ExperimentResult, pairs: list[PairComparison]) -> list[str]:
    from benchdoc.results import TEST_NAME
    from benchdoc.results.words import design_note, interval_note, outlier_rule

    confidence = results.config.stats.confidence
    from benchdoc.results.runpairs import RUN_NOTE

    runs = f"{a.name} {_runs(a.n_runs)}, {b.name} {_runs(b.n_runs)}"
    pooled = "each side: one run's repetitions" if all(p.note == RUN_NOTE for p in pairs) else (
        f"pooled: {results.pooling.describe()} ({runs})")
    notes = [f"{pooled}; n = samples", interval_note(confidence)]
    if any(pair.comparison.candidate.outliers or pair.comparison.baseline.outliers for pair in pairs):
        notes.append(f"† values include outliers ({outlier_rule()})")
    notes.extend(dict.fromkeys(f"p: {pair.metric}: {pair.note}" if len(pairs) > 1 else f"p: {pair.note}" for pair in pairs))
    notes.append(f"test: {TEST_NAME}; delta: ratio of the geometric means of the server starts, with its interval "
                 "at the level the verdict is decided at")
    notes.extend(note for pair in pairs if (note := design_note(pair.comparison, pair.metric)))
    return notes


def _runs(n: int) -> str:
    return f"{n} run" if n == 1 else f"{n} runs"
