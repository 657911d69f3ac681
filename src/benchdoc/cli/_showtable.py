"""`benchdoc show`'s table: each experiment's status, runs, medians, comparison and p, as text cells.

The terminal and ``--markdown`` draw this same table (see :mod:`benchdoc.cli._tables`), so
both carry the same numbers and words; every verdict and status is worded by
:mod:`benchdoc.results.words`, every p is the one the results computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchdoc.cli._tables import Column, TextTable

if TYPE_CHECKING:
    from benchdoc.config import MetricConfig
    from benchdoc.results import Comparison, ExperimentResult, ResultSet, Summary

MAX_OUTLIERS_LISTED = 3  # per cell, in the footnote


def show_table(results: ResultSet, chosen: list[ExperimentResult], metrics: list[str]) -> TextTable:
    """The table of ``chosen`` experiments over ``metrics`` (the first one the comparison's, when primary)."""
    from benchdoc.cli._common import format_when
    from benchdoc.results.words import OUTLIER_MARK, p_text, summary_text

    config = results.config
    primary = config.primary_metric if config.primary_metric in metrics else (metrics[0] if metrics else None)
    # The name to type (run, history, compare take names) beside the label, when they differ.
    named = any(result.name != result.label for result in chosen)
    columns = [Column("experiment", role="key"), *([Column("name", role="key")] if named else []),
               Column("status"), Column("runs", right=True)]
    columns += [Column(_metric_header(results, m), right=True, role="metric") for m in metrics]
    columns += [Column("vs compare_to" + (f" ({config.metric_or_default(primary).label})" if primary else "")),
                Column("p", right=True), Column("measured (UTC)")]
    rows = []
    shown = {result.name for result in chosen}
    for result in chosen:
        cells = []
        for metric in metrics:
            summary = result.summaries.get(metric)
            text = summary_text(summary, config.metric_or_default(metric).digits) if summary else "—"
            cells.append(f"{text} {OUTLIER_MARK}" if summary and summary.outliers else text)
        comparison = result.comparisons.get(primary) if primary else None
        vs, p = "—", "—"
        if primary and comparison is not None:
            vs = vs_text(comparison, config.metric_or_default(primary), result.compare_to or "")
            p = p_text(comparison)
        elif result.compare_to:
            vs = f"vs {result.compare_to}: no data"
        n = f"{len(result.pooled)}/{len(result.runs)}" if result.runs else "0"
        name = (result.name,) if named else ()
        rows.append((_label(result, shown), *name, _status(result), n, *cells, vs, p, format_when(result.measured_at)))
    title = f"{len(chosen)} experiment(s) — {results.pooling.describe()}"
    return TextTable(title, tuple(columns), tuple(rows), notes=tuple(_notes(results, chosen, metrics, primary)))


def _label(result: ExperimentResult, shown: set[str]) -> str:
    """The label; a sweep's load level listed under its sweep reads '  └ @ 4 req/s'."""
    if result.level_of in shown and " @ " in result.label:
        return "  └ @ " + result.label.rsplit(" @ ", 1)[1]
    return result.label


def vs_text(comparison: Comparison, metric: MetricConfig, target: str) -> str:
    """A comparison said once: 'vs baseline: 3.8% faster'; where the verdict gives no size,
    the delta beside it: 'vs baseline: +0.2%, ~ (no significant difference, p=0.41)'."""
    from benchdoc.results.words import verdict_text

    verdict = verdict_text(comparison, metric, metric.digits)
    if comparison.verdict in ("better", "worse", "undecided") or comparison.single_start:
        return f"vs {target}: {verdict}"  # a single start's verdict carries its shift
    return f"vs {target}: {comparison.delta_pct:+.1f}%, {verdict}"


def _metric_header(results: ResultSet, metric: str) -> str:
    spec = results.config.metric_or_default(metric)
    return spec.label + (f" [{spec.unit}]" if spec.unit and spec.unit != spec.label else "")


def _status(result: ExperimentResult) -> str:
    from benchdoc.results.words import unreliable_flag

    status = f"{result.status}" + (f" ({result.reason})" if result.reason else "")
    if result.setup_error is not None:
        status += f" (setup error: {result.setup_error})"
    if result.unreliable and result.reliability is not None:
        status += f" ({unreliable_flag(result.reliability)})"
    return status + (" (config changed since)" if result.config_changed else "")


def _notes(results: ResultSet, chosen: list[ExperimentResult], metrics: list[str], primary: str | None) -> list[str]:
    from benchdoc.results import TEST_NAME
    from benchdoc.results.words import interval_note

    config = results.config
    notes = [f"medians of {results.pooling.describe()}; runs = pooled/recorded",
             interval_note(config.stats.confidence)]
    if primary and any(primary in r.comparisons for r in chosen):
        correction = results.correction_note(primary)
        label = config.metric_or_default(primary).label
        notes.append(f"p: {TEST_NAME}, against compare_to ({label})" + (f", with the {correction}" if correction else ""))
    outliers = _outliers(results, chosen, metrics)
    if outliers:
        notes.append(outliers)
    if any(r.config_changed for r in chosen):
        notes.append("config changed since: benchdoc.toml now runs these differently than their latest run did; "
                     "rerun them with: benchdoc run --missing")
    for result in chosen:  # a mix of workloads is said on stderr, one line per experiment (see show)
        mixed = result.mixed_workloads.sentence() if result.mixed_workloads else None
        notes.extend(w for w in result.warnings if w != mixed)
    return notes


def _outliers(results: ResultSet, chosen: list[ExperimentResult], metrics: list[str]) -> str | None:
    """'† outliers (outside 3×IQR ...): Baseline TTFT p50 60.0', or None when no value was flagged."""
    from benchdoc.results.words import OUTLIER_MARK, outlier_rule

    found = []
    for result in chosen:
        for metric in metrics:
            summary = result.summaries.get(metric)
            if summary is not None and summary.outliers:
                spec = results.config.metric_or_default(metric)
                found.append(f"{result.label} {spec.label} {_flagged(summary, spec.digits)}")
    if not found:
        return None
    return f"{OUTLIER_MARK} outliers ({outlier_rule()}): " + "; ".join(found)


def _flagged(summary: Summary, digits: int) -> str:
    values = [f"{summary.values[i]:.{digits}f}" for i in summary.outliers[:MAX_OUTLIERS_LISTED]]
    more = len(summary.outliers) - len(values)
    return ", ".join(values) + (f" and {more} more" if more > 0 else "")
