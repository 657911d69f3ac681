"""What a chart shows, as plain data: built from a ResultSet, drawn by `benchdoc.plots.draw`.

Keeping the numbers apart from matplotlib lets documents and the report describe a chart
in words (alt text) from the very data it draws, and lets tests check what a chart says
without parsing pictures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from benchdoc.config import MetricConfig
from benchdoc.errors import UsageError
from benchdoc.ledger.models import Outcome
from benchdoc.plots.labels import is_simulated, unit_label
from benchdoc.plots.latency_cdf import LatencyCdfChart, latency_cdf_data
from benchdoc.plots.latency_throughput import LatencyThroughputChart, latency_throughput_data
from benchdoc.plots.server_series import ServerSeriesChart
from benchdoc.results.status import Status
from benchdoc.results.words import delta_mark, failure_reason

if TYPE_CHECKING:
    from benchdoc.results import ExperimentResult, ResultSet, Summary

CHART_KINDS: tuple[str, ...] = ("bar", "before-after", "history", "latency-throughput", "latency-cdf")


@dataclass(frozen=True)
class Bar:
    """One experiment's slot in a bar chart: a bar with its interval, or a labelled gap."""

    experiment: str
    label: str
    status: Status
    median: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    gap: str | None = None  # "Failed: CUDA OOM", "Untested", ...: why there is no bar
    delta: str | None = None  # "+3.8%" or "~" against the experiment's compare_to

    @property
    def has_interval(self) -> bool:
        return self.median is not None and self.ci_low is not None and self.ci_high is not None


@dataclass(frozen=True)
class ReferenceLine:
    """The reference experiment's median, drawn across the chart."""

    experiment: str
    label: str
    value: float


@dataclass(frozen=True)
class BarChart:
    """One metric across experiments."""

    metric: MetricConfig
    bars: tuple[Bar, ...]
    references: tuple[ReferenceLine, ...]
    confidence: float
    caption: str
    simulated: bool
    kind: str = "bar"

    @property
    def title(self) -> str:
        return f"{self.metric.label} by experiment"

    def describe(self) -> str:
        """The chart in words, for alt text and screen readers."""
        parts = []
        for bar in self.bars:
            if bar.gap:
                parts.append(f"{bar.label}: {bar.gap}")
            else:
                delta = f" ({bar.delta})" if bar.delta else ""
                parts.append(f"{bar.label} {format_value(bar.median, self.metric)}{delta}")
        what = (
            f"Bar chart of {unit_label(self.metric)}: medians of the pooled runs "
            f"with {confidence_text(self.confidence)} intervals"
        )
        refs = "".join(f"; reference line at {r.label} {format_value(r.value, self.metric)}" for r in self.references)
        return f"{what}{refs}. " + "; ".join(parts) + "." + (" Simulated numbers." if self.simulated else "")


@dataclass(frozen=True)
class BeforeAfterPair:
    """A superseded experiment (before) and the experiment that replaced it (after)."""

    before: Bar
    after: Bar
    delta_pct: float | None  # change of the median, new/old - 1, in percent


@dataclass(frozen=True)
class BeforeAfterChart:
    metric: MetricConfig
    pairs: tuple[BeforeAfterPair, ...]
    confidence: float
    caption: str
    simulated: bool
    kind: str = "before-after"

    @property
    def title(self) -> str:
        return f"{self.metric.label}: before and after"

    def describe(self) -> str:
        parts = []
        for pair in self.pairs:
            before = pair.before.gap or format_value(pair.before.median, self.metric)
            after = pair.after.gap or format_value(pair.after.median, self.metric)
            delta = f" ({pair.delta_pct:+.1f}%)" if pair.delta_pct is not None else ""
            parts.append(f"{pair.before.label} {before} -> {pair.after.label} {after}{delta}")
        return (
            f"Before/after chart of {unit_label(self.metric)}: medians of the pooled runs "
            f"with {confidence_text(self.confidence)} intervals. "
            + "; ".join(parts)
            + "."
            + (" Simulated numbers." if self.simulated else "")
        )


@dataclass(frozen=True)
class HistoryPoint:
    """One run of the experiment: its median and interval, or why it has none."""

    run_id: int
    started_at: datetime
    median: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    pooled: bool  # part of the experiment's current result
    gap: str | None = None  # "Failed: ..." or "No data"

    @property
    def has_interval(self) -> bool:
        return self.median is not None and self.ci_low is not None and self.ci_high is not None


@dataclass(frozen=True)
class HistoryChart:
    metric: MetricConfig
    experiment: str
    label: str
    points: tuple[HistoryPoint, ...]  # oldest first
    current: float | None  # the median of the pooled runs
    confidence: float
    caption: str
    simulated: bool
    kind: str = "history"

    @property
    def title(self) -> str:
        return f"{self.label}: {self.metric.label} run by run"

    def describe(self) -> str:
        parts = []
        for point in self.points:
            when = f"{point.started_at:%Y-%m-%d}"
            value = point.gap or format_value(point.median, self.metric)
            parts.append(f"run {point.run_id} ({when}) {value}")
        current = f"; current result {format_value(self.current, self.metric)}" if self.current is not None else ""
        return (
            f"History of {self.label}, {unit_label(self.metric)} per run: median of each run's repetitions "
            f"with {confidence_text(self.confidence)} intervals{current}. "
            + "; ".join(parts)
            + "."
            + (" Simulated numbers." if self.simulated else "")
        )


Chart = BarChart | BeforeAfterChart | HistoryChart | LatencyThroughputChart | LatencyCdfChart | ServerSeriesChart


# --- shared with the drawing and the report ---------------------------------------------


def format_value(value: float | None, metric: MetricConfig) -> str:
    return "—" if value is None else f"{value:.{metric.digits}f}"


def confidence_text(confidence: float) -> str:
    return f"{confidence * 100:g}%"


def axis_label(metric: MetricConfig) -> str:
    """The value axis: unit and which way is better, 'TTFT p50 (ms), lower is better'."""
    return f"{unit_label(metric)}, {metric.direction} is better"


def resolve_metric(results: ResultSet, metric: str | None) -> MetricConfig:
    """The metric to chart: the one named (or labelled), else the primary metric, else the only one measured."""
    return results.metric(metric)


def select_experiments(results: ResultSet, patterns: Sequence[str]) -> list[str]:
    """Experiment names matching names, aliases or glob patterns, in the order given (see ResultSet.select)."""
    return [result.name for result in results.select(patterns)]


def pooling_caption(results: ResultSet, *, what: str, bars: Sequence[Bar]) -> str:
    """What the bars are, which runs they pool, and what the whiskers are (only if any is drawn)."""
    level = confidence_text(results.config.stats.confidence)
    measured = [b for b in bars if b.median is not None]
    if measured and all(b.has_interval for b in measured):
        whiskers = f"Whiskers: {level} interval of the median."
    elif any(b.has_interval for b in measured):
        whiskers = f"Whiskers: {level} interval of the median, drawn where there are enough values for one."
    else:
        whiskers = f"No whiskers: too few values for a {level} interval of the median."
    return f"{what} Pooled: {results.pooling.describe()}. {whiskers}"


# --- building each chart ----------------------------------------------------------------


def bar_chart_data(
    results: ResultSet, metric: str | None = None, experiments: Sequence[str] = (), *, levels: bool = False
) -> BarChart:
    """One metric across experiments (default: every experiment that is not superseded).

    The load levels of a sweep (``EXP@rate=4``) are drawn by a latency-throughput chart, not as
    bars: by default they are left out, with the swept experiment that has no runs of its own,
    unless named or ``levels`` is set."""
    spec = resolve_metric(results, metric)
    names = select_experiments(results, experiments) if experiments else [
        r.name for r in results if not r.superseded_by and (levels or not (r.level_of or (r.levels and not r.runs)))
    ]
    if not names:
        raise UsageError("no experiments to chart")
    chosen = [results.experiments[name] for name in names]
    bars = tuple(_bar(result, spec) for result in chosen)
    references = _reference_lines(results, chosen, spec)
    simulated = any(is_simulated(run) for result in chosen for run in result.pooled)
    caption = pooling_caption(
        results, what="Bars: median of each experiment's pooled runs; % against its compare_to, ~ where the difference is noise.",
        bars=bars,
    )
    return BarChart(spec, bars, references, results.config.stats.confidence, _simulated(caption, simulated), simulated)


def before_after_data(results: ResultSet, metric: str | None = None, experiments: Sequence[str] = ()) -> BeforeAfterChart:
    """Each superseded experiment next to the one that replaced it.

    With ``experiments``, the pairs where either side is named; else every pair.
    """
    spec = resolve_metric(results, metric)
    named = set(select_experiments(results, experiments)) if experiments else None
    pairs = []
    for result in results:
        old_name = result.supersedes
        if not old_name or old_name not in results.experiments:
            continue
        if named is not None and result.name not in named and old_name not in named:
            continue
        old = results.experiments[old_name]
        change = result.changes.get(spec.name)
        pairs.append(
            BeforeAfterPair(
                before=_bar(old, spec),
                after=_bar(result, spec),
                delta_pct=change.delta_pct if change else None,
            )
        )
    if not pairs:
        which = f" among {', '.join(sorted(named))}" if named else ""
        raise UsageError(f"no experiment supersedes another{which}: a before/after chart needs `supersedes` in benchdoc.toml")
    involved = [results.experiments[p.before.experiment] for p in pairs] + [results.experiments[p.after.experiment] for p in pairs]
    simulated = any(is_simulated(run) for result in involved for run in result.pooled)
    caption = pooling_caption(
        results, what="Before: the superseded experiment; after: the experiment that replaced it; % is the change of the median.",
        bars=[side for pair in pairs for side in (pair.before, pair.after)],
    )
    return BeforeAfterChart(spec, tuple(pairs), results.config.stats.confidence, _simulated(caption, simulated), simulated)


def history_data(results: ResultSet, metric: str | None, experiment: str) -> HistoryChart:
    """Every run of one experiment, oldest first: the median and interval of each run."""
    spec = resolve_metric(results, metric)
    name = select_experiments(results, [experiment])
    if len(name) != 1:
        raise UsageError(f"a history chart shows one experiment; '{experiment}' matches {len(name)}")
    result = results.experiments[name[0]]
    if not result.runs:
        raise UsageError(f"{result.name} has no runs yet: nothing to show in its history")
    pooled_ids = {run.id for run in result.pooled}
    confidence = results.config.stats.confidence
    points = []
    for run in sorted(result.runs, key=lambda r: (r.started_at, r.id)):
        summary = results.run_summary(run, spec.name)
        if run.outcome != Outcome.OK:
            gap = f"{Status.FAILED}: {failure_reason(run)}"
            points.append(HistoryPoint(run.id, run.started_at, None, None, None, 0, False, gap=gap))
        elif summary is None:
            points.append(HistoryPoint(run.id, run.started_at, None, None, None, 0, run.id in pooled_ids, gap="No data"))
        else:
            points.append(
                HistoryPoint(
                    run.id, run.started_at, summary.median, summary.ci_low, summary.ci_high, summary.n, run.id in pooled_ids
                )
            )
    simulated = any(is_simulated(run) for run in result.runs)
    level = confidence_text(confidence)
    caption = (
        f"Each point: median of one run's repetitions, whiskers its {level} interval (none when too few). "
        f"Filled: runs pooled into the current result ({results.pooling.describe()}); x: failed runs."
    )
    return HistoryChart(
        spec, result.name, result.label, tuple(points), result.value(spec.name), confidence,
        _simulated(caption, simulated), simulated,
    )


def chart_data(
    kind: str, results: ResultSet, metric: str | None = None, experiments: Sequence[str] = (), *, levels: bool = False
) -> Chart:
    """The data of a chart of ``kind`` (one of CHART_KINDS); ``levels`` draws a sweep's levels as bars."""
    if kind == "bar":
        return bar_chart_data(results, metric, experiments, levels=levels)
    if kind == "before-after":
        return before_after_data(results, metric, experiments)
    if kind == "history":
        if len(experiments) != 1:
            raise UsageError(f"a history chart shows exactly one experiment (got {len(experiments)})")
        return history_data(results, metric, experiments[0])
    if kind == "latency-throughput":
        return latency_throughput_data(results, metric, experiments)
    if kind == "latency-cdf":
        return latency_cdf_data(results, metric, experiments)
    raise UsageError(f"unknown chart kind '{kind}' (expected one of: {', '.join(CHART_KINDS)})")


def _simulated(caption: str, simulated: bool) -> str:
    if not simulated:
        return caption
    return caption + " Simulated: measured against the built-in simulator, not real hardware."


def _bar(result: ExperimentResult, spec: MetricConfig) -> Bar:
    if result.status is Status.FAILED:
        reason = result.reason or "failed"
        return Bar(result.name, result.label, result.status, None, None, None, 0, gap=f"{Status.FAILED}: {reason}")
    if result.status is Status.UNTESTED:
        return Bar(result.name, result.label, result.status, None, None, None, 0, gap=str(Status.UNTESTED))
    summary: Summary | None = result.summaries.get(spec.name)
    if summary is None:
        return Bar(result.name, result.label, result.status, None, None, None, 0, gap=f"No {spec.label} data")
    return Bar(
        result.name, result.label, result.status, summary.median, summary.ci_low, summary.ci_high, summary.n,
        delta=delta_mark(result.comparisons.get(spec.name)),
    )


def _reference_lines(results: ResultSet, chosen: Sequence[ExperimentResult], spec: MetricConfig) -> tuple[ReferenceLine, ...]:
    """The reference experiments among those charted; else the experiments they compare to."""
    candidates = [r for r in chosen if r.config.is_reference]
    if not candidates:
        targets = []
        for result in chosen:
            if result.compare_to and result.compare_to in results.experiments and result.compare_to not in targets:
                targets.append(result.compare_to)
        candidates = [results.experiments[name] for name in targets]
    lines = []
    for result in candidates:
        value = result.value(spec.name)
        if value is not None:
            lines.append(ReferenceLine(result.name, result.label, value))
    return tuple(lines)
