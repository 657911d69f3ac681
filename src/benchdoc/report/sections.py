"""The parts of the HTML report, each a function from results to escaped HTML text.

Every value that comes from the ledger, the config or a log goes through `esc`
(html.escape with quotes) before it reaches the page; nothing else builds markup.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.errors import BenchdocError
from benchdoc.ledger.models import Outcome
from benchdoc.plots.labels import is_simulated, unit_label
from benchdoc.plots.model import confidence_text, format_value
from benchdoc.report.logs import log_tail
from benchdoc.results.model import run_median
from benchdoc.results.status import Status
from benchdoc.results.words import p_text, shift_interval_text, tested, verdict_text

if TYPE_CHECKING:
    from benchdoc.config import MetricConfig
    from benchdoc.ledger.models import RunRecord
    from benchdoc.plots import Chart
    from benchdoc.results import ExperimentResult, ResultSet

MAX_FAILED_RUNS = 200  # failure excerpts listed; older ones are counted, not shown
VALUES_SHOWN = 8  # a run's values listed before "…"


def esc(value: Any) -> str:
    """Text made safe for HTML content and attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


def sort_number(value: float) -> str:
    """A number as the sort key the page's script parses (never NumPy's repr)."""
    return repr(float(value))


def status_badge(status: Status) -> str:
    css = "s-" + "-".join(status.lower().split())
    return f'<span class="badge {esc(css)}">{esc(status)}</span>'


def unreliable_badge(result: ExperimentResult) -> str:
    """A badge beside the status of a result whose requests failed too often ('' otherwise)."""
    from benchdoc.results.words import unreliable_flag, unreliable_note

    if not result.unreliable or result.reliability is None:
        return ""
    title = esc(unreliable_note(result.reliability))
    return f' <span class="badge s-failed" title="{title}">{esc(unreliable_flag(result.reliability))}</span>'


def simulated_badge() -> str:
    return '<span class="sim" title="measured against the built-in simulator, not real hardware">simulated</span>'


def when(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC" if moment is not None else "—"


def metrics_shown(results: ResultSet) -> list[MetricConfig]:
    """Declared metrics with data (primary first), then undeclared metrics seen in the ledger."""
    config = results.config
    measured = {m for result in results for m in result.summaries}
    names = [m for m in config.metrics if m in measured] + sorted(measured - set(config.metrics))
    if config.primary_metric in names:
        names.remove(config.primary_metric)
        names.insert(0, config.primary_metric)
    return [config.metric_or_default(name) for name in names]


def experiment_anchor(index: int) -> str:
    return f"exp-{index}"


# --- the header ---------------------------------------------------------------------------


def header(results: ResultSet, source: str | None) -> str:
    config = results.config
    runs = [run for result in results for run in result.runs]
    latest = max((run.started_at for run in runs), default=None)
    project = config.root.name or "benchdoc project"
    origin = f"the ledger {esc(source)}" if source else "the ledger"
    level = confidence_text(config.stats.confidence)
    corrections = sorted({note for m in metrics_shown(results) if (note := results.correction_note(m.name))})
    correction = f" with {esc('; '.join(corrections))}" if corrections else ""
    parts = [
        '<header class="page">',
        f"<h1>Experiment results: {esc(project)}</h1>",
        f'<p class="source">From {origin}: {len(runs)} runs of {len(results.experiments)} experiments; '
        f"latest run {esc(when(latest))}.</p>",
        f'<p class="lede">Each number is the median of the pooled runs ({esc(results.pooling.describe())}), '
        f"with the {esc(level)} interval of the median (exact order-statistic interval; none when an experiment has "
        f"too few values). Comparisons against each experiment's <code>compare_to</code> are made between "
        f"server starts: Welch's two-sided t-test on the per-start means of log values{correction}; a delta is the "
        f"ratio of the two sides' geometric means, with the interval at the level the verdict is decided at; "
        f"~ marks a comparison the test could not decide.</p>",
    ]
    simulated = [run for run in runs if is_simulated(run)]
    if simulated:
        parts.append(
            f'<p class="banner"><strong>Simulated numbers.</strong> {len(simulated)} of {len(runs)} runs were '
            "measured against the built-in inference-server simulator (their metadata says so); their numbers "
            "describe the simulator, not real hardware. They are marked " + simulated_badge() + " below.</p>"
        )
    parts.append(
        '<nav class="toc"><a href="#results-section">Results</a><a href="#charts">Charts</a>'
        '<a href="#failures">Failures</a><a href="#experiments">Experiments</a></nav>'
    )
    parts.append("</header>")
    return "\n".join(parts)


# --- charts ---------------------------------------------------------------------------------


def figure(chart: Chart, image: bytes) -> str:
    """A chart as an <img> with a data: URI (an image cannot run script) and a caption."""
    uri = "data:image/svg+xml;base64," + base64.b64encode(image).decode("ascii")
    # The caption is drawn inside the chart; the alt text says what the chart shows in words.
    return f'<figure class="chart"><img src="{uri}" alt="{esc(chart.describe())}"></figure>'


def latency_cdf_figure(results: ResultSet) -> str:
    """The distribution of TTFT and TPOT per request, when some experiment's runs kept their
    requests (none is drawn, and nothing said, for a project that records only summaries)."""
    from benchdoc.plots import render
    from benchdoc.plots.latency_cdf import latency_cdf_data

    if results.read_requests is None:
        return ""
    try:
        chart = latency_cdf_data(results)
    except BenchdocError:
        return ""
    return figure(chart, render(chart))


def charts_section(results: ResultSet) -> str:
    """A bar chart per metric some experiment (not a load level) measured, the before/after
    pairs, one latency-throughput chart per load sweep, and the latency distribution."""
    from benchdoc.plots import bar_chart_data, before_after_data, render

    parts = ['<section id="charts">', "<h2>Charts</h2>", '<div class="chart-grid">']
    metrics = metrics_shown(results)
    for metric in metrics:
        if not any(metric.name in r.summaries for r in results if r.level_of is None):
            continue  # measured only at a sweep's levels: the latency-throughput charts show it
        try:
            chart = bar_chart_data(results, metric.name)
        except BenchdocError as err:
            parts.append(f'<p class="muted">No chart of {esc(metric.label)}: {esc(err.message)}</p>')
            continue
        parts.append(figure(chart, render(chart)))
    if metrics and any(result.supersedes for result in results):
        try:
            pairs = before_after_data(results, metrics[0].name)
        except BenchdocError as err:
            parts.append(f'<p class="muted">No before/after chart: {esc(err.message)}</p>')
        else:
            parts.append(figure(pairs, render(pairs)))
    parts.extend(sweep_figures(results))
    cdf = latency_cdf_figure(results)
    if cdf:
        parts.append(cdf)
    if not metrics:
        parts.append('<p class="muted">Nothing measured yet.</p>')
    parts.append("</div>")
    parts.append("</section>")
    return "\n".join(parts)


def sweep_figures(results: ResultSet) -> list[str]:
    """One latency-throughput chart per swept experiment with measured levels."""
    from benchdoc.plots import render
    from benchdoc.plots.latency_throughput import latency_throughput_data

    figures = []
    for result in results:
        if not result.levels:
            continue
        try:
            sweep = latency_throughput_data(results, experiments=[result.name])
        except BenchdocError as err:
            figures.append(f'<p class="muted">No latency-throughput chart of {esc(result.label)}: {esc(err.message)}</p>')
        else:
            figures.append(figure(sweep, render(sweep)))
    return figures


# --- failures -------------------------------------------------------------------------------


def failures_section(results: ResultSet, root: Path | None) -> str:
    failed: list[tuple[ExperimentResult, RunRecord]] = sorted(
        ((result, run) for result in results for run in result.runs if run.outcome != Outcome.OK),
        key=lambda pair: (pair[1].started_at, pair[1].id),
        reverse=True,
    )
    untested = [result for result in results if result.status is Status.UNTESTED]
    parts = ['<section id="failures">', "<h2>Failures</h2>"]
    if not failed:
        parts.append('<p class="muted">No run has failed.</p>')
    for result, run in failed[:MAX_FAILED_RUNS]:
        current = f" (latest run: the experiment is {Status.FAILED})" if result.status is Status.FAILED and run is result.latest_run else ""
        reason = run.failure_reason or "failed"
        parts.append(f'<div class="failure"><h3>{esc(result.label)} — run #{run.id}, {esc(when(run.started_at))}{esc(current)}</h3>')
        parts.append(f"<p><strong>{Status.FAILED}:</strong> {esc(reason)}</p>")
        if run.failure_cause:
            parts.append(f"<p><strong>Cause:</strong> {esc(run.failure_cause)}</p>")
        if run.failure_log_line:
            parts.append(f"<p>Log line:</p><pre>{esc(run.failure_log_line)}</pre>")
        excerpt = log_tail(run.metadata.log_path, root)
        if excerpt is not None:
            cut = " (earlier lines left out)" if excerpt.truncated else ""
            parts.append(
                f"<details><summary>Last {len(excerpt.lines)} lines of {esc(excerpt.path)}{esc(cut)}</summary>"
                f"<pre>{esc(chr(10).join(excerpt.lines))}</pre></details>"
            )
        elif run.metadata.log_path:
            parts.append(f'<p class="muted">Log file {esc(run.metadata.log_path)} no longer exists.</p>')
        parts.append("</div>")
    if len(failed) > MAX_FAILED_RUNS:
        parts.append(f'<p class="muted">{len(failed) - MAX_FAILED_RUNS} older failed runs not shown.</p>')
    if untested:
        parts.append("<h3>Not run yet</h3><ul>")
        for result in untested:
            notes = f": {esc(result.reason)}" if result.reason else ""
            if result.setup_error is not None:
                notes += f" (setup error: {esc(result.setup_error)})"
            parts.append(f'<li>{esc(result.label)} <code class="name">{esc(result.name)}</code>{notes}</li>')
        parts.append("</ul>")
    parts.append("</section>")
    return "\n".join(parts)


# --- one section per experiment --------------------------------------------------------------


HISTORY_POINTS = 3  # runs with a value before an experiment's history gets a chart (a sparkline below)


def experiments_section(results: ResultSet, max_history_charts: int) -> str:
    """One folded block per experiment (a sweep's levels inside their sweep's), opened by a
    click or a link from the table: its facts, history chart (from three runs) and runs."""
    metrics = metrics_shown(results)
    primary = metrics[0] if metrics else None
    index = {result.name: i for i, result in enumerate(results)}
    budget = [max_history_charts]
    parts = ['<section id="experiments">', "<h2>Experiments</h2>",
             '<p class="muted">Click an experiment to open its history, runs and environments.</p>']
    for result in results:
        if result.level_of in index:
            continue  # inside its sweep's block
        levels = [results.experiments[name] for name in result.levels if name in index]
        parts.append(_experiment_block(results, result, index, primary, budget, levels))
    if budget[0] < 0:
        parts.append(f'<p class="muted">History charts are drawn for the first {max_history_charts} experiments only.</p>')
    parts.append("</section>")
    return "\n".join(parts)


def _experiment_block(
    results: ResultSet, result: ExperimentResult, index: dict[str, int], primary: MetricConfig | None,
    budget: list[int], levels: Sequence[ExperimentResult] = (),
) -> str:
    name = f' <code class="name">{esc(result.name)}</code>' if result.name != result.label else ""
    parts = [f'<details class="experiment" id="{experiment_anchor(index[result.name])}">',
             f"<summary>{esc(result.label)}{name} {status_badge(result.status)}</summary>"]
    parts.extend(_experiment_facts(results, result))
    parts.extend(_history_figure(results, result, primary, budget))
    parts.extend(_server_figure(result))
    if result.runs or not levels:
        parts.append(runs_table(result, primary))
    if levels:
        parts.append(f"<p>{len(levels)} load level{'s' if len(levels) != 1 else ''}:</p>")
        parts.extend(_experiment_block(results, level, index, primary, budget) for level in levels)
    parts.append("</details>")
    return "\n".join(parts)


def _history_figure(results: ResultSet, result: ExperimentResult, primary: MetricConfig | None, budget: list[int]) -> list[str]:
    """The history chart of an experiment with three runs or more that have a value (fewer are
    a sparkline in the table); ``budget`` counts down the charts still allowed (-1: some left out)."""
    from benchdoc.plots import history_data, render

    if primary is None or sum(1 for run in result.runs if run.values(primary.name)) < HISTORY_POINTS:
        return []
    if budget[0] <= 0:
        budget[0] = -1
        return []
    try:
        chart = history_data(results, primary.name, result.name)
    except BenchdocError:
        return []
    budget[0] -= 1
    return [figure(chart, render(chart))]


def _server_figure(result: ExperimentResult) -> list[str]:
    """The server's own metrics over the latest run that kept them (its /metrics, every second)."""
    from benchdoc.plots import is_simulated, render
    from benchdoc.plots.server_series import server_series_data

    run = next((r for r in result.runs if r.metadata.server_metrics), None)
    if run is None:
        return []
    chart = server_series_data(result.label, run, is_simulated(run))
    return [figure(chart, render(chart))] if chart is not None else []


def _experiment_facts(results: ResultSet, result: ExperimentResult) -> list[str]:
    facts = []
    if result.reason and result.status is not Status.SUPERSEDED:  # a superseded one says so just below
        label = Status.FAILED if result.status is Status.FAILED else "Notes"
        facts.append(f"<p><strong>{label}:</strong> {esc(result.reason)}</p>")
    if result.config.notes and result.config.notes != result.reason:
        facts.append(f"<p><strong>Notes:</strong> {esc(result.config.notes)}</p>")
    if result.supersedes:
        facts.append(f"<p>Supersedes {esc(_label(results, result.supersedes))}.</p>")
    if result.superseded_by:
        facts.append(f"<p>Superseded by {esc(_label(results, result.superseded_by))}.</p>")
    for warning in result.warnings:
        facts.append(f'<p class="warning">{esc(warning)}</p>')
    if result.comparisons:
        items = []
        for metric_name, comparison in result.comparisons.items():
            spec = results.config.metric_or_default(metric_name)
            shown = shift_interval_text(comparison)
            interval = f" {shown}" if shown else ""
            verdict = verdict_text(comparison, spec)
            p_value = "" if "p=" in verdict or not tested(comparison) else f"p={p_text(comparison)}{comparison.p_label}, "
            shift = "" if comparison.verdict == "undecided" else f"{comparison.delta_pct:+.1f}%{interval} — "
            items.append(
                f"<li>{esc(spec.label)}: {esc(shift)}{esc(verdict)} "
                f"({esc(p_value)}n={comparison.candidate.n}+{comparison.baseline.n})</li>"
            )
        facts.append(f"<p>Against {esc(_label(results, result.compare_to or ''))}:</p><ul>{''.join(items)}</ul>")
    if result.compare_to and result.pooled:
        if result.environment_diff:
            diffs = "".join(f"<li>{esc(d.text().replace(' -> ', ' → '))}</li>" for d in result.environment_diff)
            facts.append(
                f"<p>Environment, {esc(result.compare_to)} → {esc(result.name)} (latest pooled runs):</p>"
                f'<ul class="envdiff">{diffs}</ul>'
            )
        elif results.experiments.get(result.compare_to) and results.experiments[result.compare_to].pooled:
            facts.append(f'<p class="muted">Same environment as {esc(result.compare_to)}.</p>')
    return facts


def _label(results: ResultSet, name: str) -> str:
    found = results.experiments.get(name)
    return found.label if found else name


def runs_table(result: ExperimentResult, primary: MetricConfig | None) -> str:
    if not result.runs:
        return '<p class="muted">No runs recorded.</p>'
    pooled = {run.id for run in result.pooled}
    metric_head = esc(unit_label(primary)) if primary else "values"
    rows = [
        '<div class="scroll"><table class="runs"><thead><tr><th>Run</th><th>Started</th><th>Outcome</th>'
        f"<th>Median {metric_head}</th><th>Values</th><th>Source</th><th>Host</th><th>Commit</th><th>Note</th></tr></thead><tbody>"
    ]
    for run in result.runs:
        values = run.values(primary.name) if primary else []
        centre = run_median(run, primary.name) if primary else None
        median = format_value(centre, primary) if centre is not None and primary else "—"
        shown = ", ".join(f"{v:g}" for v in values[:VALUES_SHOWN]) + (" …" if len(values) > VALUES_SHOWN else "")
        outcome = str(run.outcome) + (": " + run.explanation if run.explanation else "")
        flags = (" (pooled)" if run.id in pooled else "")
        commit = (run.git_commit or "")[:12] + (" +dirty" if run.git_dirty else "")
        sim = simulated_badge() if is_simulated(run) else ""
        rows.append(
            f"<tr><td>#{run.id}{esc(flags)}{sim}</td><td>{esc(when(run.started_at))}</td><td>{esc(outcome)}</td>"
            f'<td class="num">{esc(median)}</td><td>{esc(shown) or "—"}</td><td>{esc(run.source)}</td>'
            f"<td>{esc(run.host or '')}</td><td>{f'<code>{esc(commit)}</code>' if commit else ''}</td>"
            f"<td>{esc(run.note or '')}</td></tr>"
        )
        rows.append(f'<tr class="env"><td colspan="9">{environment_details(run)}</td></tr>')
    rows.append("</tbody></table></div>")
    return "\n".join(rows)


def environment_details(run: RunRecord) -> str:
    from benchdoc.envdiff import flatten

    flat = flatten(run.environment)
    if run.command:
        flat = {"command": " ".join(run.command), **flat}
    if not flat:
        return '<span class="muted">No environment recorded.</span>'
    rows = "".join(f"<tr><th>{esc(key)}</th><td>{esc(_env_value(value))}</td></tr>" for key, value in sorted(flat.items()))
    return f'<details><summary>Environment of run #{run.id}</summary><div class="scroll"><table>{rows}</table></div></details>'


def _env_value(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    return str(value)
