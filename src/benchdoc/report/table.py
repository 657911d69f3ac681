"""The report's results table: one row per experiment, a card per experiment on a phone.

The table fits a laptop's width with every failure's reason visible: the comparison says
its verdict once (``3.8% faster (p=0.008)``, then what it is against and the interval of
the delta), the last run is a date, and the notes wrap. A sweep's load levels follow their
swept experiment as indented rows that stay with it when the table is sorted. Below
700 px (see ``assets.STYLE``) every row becomes a card whose cells are labelled by their
column (``data-label``); cells with nothing to say are left out of the card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from benchdoc.ledger.models import Outcome
from benchdoc.plots.labels import is_simulated, unit_label
from benchdoc.plots.model import format_value
from benchdoc.report.sections import (
    esc,
    experiment_anchor,
    metrics_shown,
    simulated_badge,
    sort_number,
    status_badge,
    unreliable_badge,
    when,
)
from benchdoc.results.model import run_median
from benchdoc.results.status import STATUSES, Status
from benchdoc.results.words import interval_text, shift_interval_text, vs_cell

if TYPE_CHECKING:
    from benchdoc.config import MetricConfig
    from benchdoc.results import ExperimentResult, ResultSet

SPARK_WIDTH, SPARK_HEIGHT = 64, 18  # px of a run-history sparkline


def results_table(results: ResultSet) -> str:
    metrics = metrics_shown(results)
    primary = metrics[0] if metrics else None
    present = [s for s in STATUSES if any(r.status == s for r in results)]
    boxes = "".join(
        f'<label><input type="checkbox" value="{esc(s)}" checked> {status_badge(s)}</label>' for s in present
    )
    changes = primary is not None and any(primary.name in r.changes for r in results)
    heads: list[tuple[str, str]] = [("Experiment", "text"), ("Status", "number")]
    heads += [(unit_label(m), "number") for m in metrics]
    if primary is not None:
        heads.append((f"vs compare_to ({primary.label})", "number"))
        if changes:
            heads.append((f"Before → after ({primary.label})", "number"))
    heads += [("Runs", "number"), ("Last run", "text"), ("Notes", "text")]
    head_cells = "".join(
        f'<th scope="col" data-type="{kind}"><button type="button">{esc(title)}</button></th>' for title, kind in heads
    )
    index = {result.name: i for i, result in enumerate(results)}
    rows = [_row(index, result, metrics, primary, changes, results) for result in results]
    return "\n".join(
        [
            '<section id="results-section">',
            "<h2>Results</h2>",
            '<p class="muted">Click a column header to sort by it (again to reverse); untick a status to hide its rows. '
            "A sweep's load levels are listed under it.</p>",
            f'<fieldset id="status-filter"><legend>Status</legend>{boxes}<span id="row-count"></span></fieldset>',
            '<div class="scroll"><table id="results">',
            f"<thead><tr>{head_cells}</tr></thead>",
            "<tbody>",
            *rows,
            "</tbody></table></div>",
            "</section>",
        ]
    )


def _row(
    index: dict[str, int],
    result: ExperimentResult,
    metrics: Sequence[MetricConfig],
    primary: MetricConfig | None,
    changes: bool,
    results: ResultSet,
) -> str:
    parent = result.level_of if result.level_of in index else None
    cells = [_name_cell(index[result.name], result, results if parent else None)]
    order = STATUSES.index(result.status) if result.status in STATUSES else len(STATUSES)
    cells.append(f'<td data-label="Status" data-sort="{order}">{status_badge(result.status)}{unreliable_badge(result)}</td>')
    cells.extend(_metric_cell(result, metric) for metric in metrics)
    if primary is not None:
        cells.append(_comparison_cell(result, primary))
        if changes:
            change = result.changes.get(primary.name)
            cells.append(
                _empty("Before → after") if change is None else
                f'<td data-label="Before → after" data-sort="{sort_number(change.delta_pct)}">'
                f'{esc(change.text(primary.digits).replace(" -> ", " → "))}<br><span class="muted">from {esc(result.supersedes)}</span></td>'
            )
    cells.append(_runs_cell(result, primary))
    latest = result.latest_run
    cells.append(
        _empty("Last run") if latest is None else
        f'<td data-label="Last run" class="date" data-sort="{esc(latest.started_at.isoformat())}" '
        f'title="{esc(when(latest.started_at))}">{latest.started_at:%Y-%m-%d}</td>'
    )
    cells.append(_notes_cell(result))
    level = f' class="level" data-parent="{esc(parent)}"' if parent else ""
    return (
        f'<tr data-status="{esc(result.status)}" data-experiment="{esc(result.name)}" data-index="{index[result.name]}"{level}>'
        + "".join(cells) + "</tr>"
    )


def _empty(label: str) -> str:
    return f'<td data-label="{esc(label)}" class="empty" data-sort="">—</td>'


def _name_cell(index: int, result: ExperimentResult, level_of: ResultSet | None) -> str:
    """The label (a level: its load only, under its sweep), the name to type, and a simulated mark."""
    sim = simulated_badge() if any(is_simulated(run) for run in result.pooled) else ""
    label = result.label
    if level_of is not None and " @ " in label:
        label = "@ " + label.rsplit(" @ ", 1)[1]
    name = f'<code class="name">{esc(result.name)}</code>' if result.name != result.label else ""
    return (
        f'<td class="experiment" data-sort="{esc(result.label)}"><a href="#{experiment_anchor(index)}">{esc(label)}</a>'
        f"{name}{sim}</td>"
    )


def _metric_cell(result: ExperimentResult, metric: MetricConfig) -> str:
    summary = result.summaries.get(metric.name)
    if summary is None:
        return _empty(unit_label(metric))
    shown = interval_text(summary)  # '± 0.4%', or the interval itself when lopsided, as show gives it
    interval = f' <span class="interval">{esc(shown)}</span>' if shown is not None else ""
    return (
        f'<td class="num metric" data-label="{esc(unit_label(metric))}" data-sort="{sort_number(summary.median)}">'
        f'<span class="value">{esc(format_value(summary.median, metric))}</span> '
        f'<span class="spread">{interval.strip()} <span class="muted">n={summary.n}</span></span></td>'
    )


def _comparison_cell(result: ExperimentResult, primary: MetricConfig) -> str:
    """The verdict once, with its p ('3.8% faster (p=0.008)'), then what it is against and
    the interval of the delta (or why there is none)."""
    comparison = result.comparisons.get(primary.name)
    label = f"vs {result.compare_to}" if result.compare_to else "vs compare_to"
    if comparison is None:
        return _empty(label)
    interval = delta_interval(comparison)
    # The card's label already says what it is against; the table's column does not.
    against = f'<span class="against">vs {esc(result.compare_to)}{", " if interval else ""}</span>'
    return (
        f'<td data-label="{esc(label)}" data-sort="{sort_number(comparison.delta_pct)}">{esc(vs_cell(comparison, primary))}'
        f'<br><span class="muted">{against}{esc(interval or "")}</span></td>'
    )


def delta_interval(comparison: Any) -> str | None:
    """The delta's interval, or why there is none (too few runs for its coverage to hold,
    or a sequential test that stopped without a direction)."""
    if comparison.verdict == "undecided":
        return None
    return shift_interval_text(comparison) or comparison.delta_ci_reason or None


def _runs_cell(result: ExperimentResult, primary: MetricConfig | None) -> str:
    pooled = f"{result.n_runs} pooled of {len(result.runs)}" if result.runs else "none"
    spark = sparkline(result, primary) if primary is not None else ""
    return f'<td class="num" data-label="Runs" data-sort="{len(result.runs)}">{esc(pooled)}{spark}</td>'


def sparkline(result: ExperimentResult, primary: MetricConfig) -> str:
    """The medians of an experiment's runs, oldest first, as a tiny inline line (two runs or
    more; the report draws a full history chart from three)."""
    medians = [m for run in reversed(result.runs) if run.outcome == Outcome.OK and (m := run_median(run, primary.name)) is not None]
    if len(medians) < 2:
        return ""
    low, high = min(medians), max(medians)
    span = (high - low) or 1.0
    step = (SPARK_WIDTH - 4) / (len(medians) - 1)
    points = " ".join(
        f"{2 + i * step:.1f},{SPARK_HEIGHT - 2 - (m - low) / span * (SPARK_HEIGHT - 4):.1f}" for i, m in enumerate(medians)
    )
    words = ", ".join(format_value(m, primary) for m in medians)
    return (
        f'<svg class="spark" width="{SPARK_WIDTH}" height="{SPARK_HEIGHT}" viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" '
        f'role="img" aria-label="{esc(f"medians of its runs, oldest first: {words}")}"><title>{esc(words)}</title>'
        f'<polyline points="{points}" fill="none" stroke="currentColor" stroke-width="1.5"/></svg>'
    )


def _notes_cell(result: ExperimentResult) -> str:
    reason = result.reason or ""
    if result.status is Status.SUPERSEDED and reason.startswith("by "):
        reason = f"{Status.SUPERSEDED} {reason}"
    parts = [esc(reason)] if reason else []
    if result.failure_log_line:
        parts.append(f'<code class="logline">{esc(result.failure_log_line)}</code>')
    parts.extend(f'<span class="warn">{esc(w)}</span>' for w in result.warnings)
    if not parts:
        return _empty("Notes")
    text = " ".join(filter(None, [reason, result.failure_log_line or "", *result.warnings]))
    return f'<td class="notes" data-label="Notes" data-sort="{esc(text)}">{"<br>".join(parts)}</td>'
