"""The data of a latency-against-throughput chart over load sweeps (no matplotlib here).

Each experiment swept with ``--rate`` or ``--concurrency`` has one recorded experiment per
level (``EXP@rate=4``, see ``benchdoc.naming``). The chart puts each level at its
achieved throughput (x) and its TTFT and TPOT percentiles (y), one line per experiment:
where latency turns up as the load grows is the server's usable capacity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdoc.config import MetricConfig
from benchdoc.errors import UsageError
from benchdoc.naming import split_level_experiment
from benchdoc.plots.labels import is_simulated, unit_label

if TYPE_CHECKING:
    from benchdoc.results import ResultSet

KIND = "latency-throughput"
# The latency percentiles drawn: (metric, panel, line style name).
LATENCIES: tuple[tuple[str, str, str], ...] = (
    ("ttft_ms_p50", "TTFT", "p50"),
    ("ttft_ms_p99", "TTFT", "p99"),
    ("tpot_ms_p50", "TPOT", "p50"),
    ("tpot_ms_p99", "TPOT", "p99"),
)
THROUGHPUTS = ("output_tok_s", "request_s", "goodput_req_s")


@dataclass(frozen=True)
class LevelPoint:
    """One level of a sweep: its load, achieved throughput and latency medians."""

    experiment: str  # the level's own experiment, e.g. "eagle3@rate=4"
    level: str  # "rate=4"
    throughput: float
    latencies: dict[str, float]  # metric -> median over the level's pooled runs


@dataclass(frozen=True)
class SweepSeries:
    """One experiment's sweep, its levels ordered by throughput."""

    experiment: str
    label: str
    points: tuple[LevelPoint, ...]


@dataclass(frozen=True)
class LatencyThroughputChart:
    metric: MetricConfig  # the y axis: latency in ms
    x_metric: MetricConfig
    series: tuple[SweepSeries, ...]
    caption: str
    simulated: bool
    kind: str = KIND

    @property
    def title(self) -> str:
        """'Latency against throughput', with the experiment's label when it is the only one."""
        one = f": {self.series[0].label}" if len(self.series) == 1 else ""
        return f"Latency against throughput{one}"

    def describe(self) -> str:
        parts = []
        for series in self.series:
            points = ", ".join(
                f"{p.level}: {p.throughput:.{self.x_metric.digits}f} {self.x_metric.unit}, "
                + " ".join(f"{_short(m)} {p.latencies[m]:.1f}" for m, _, _ in LATENCIES if m in p.latencies)
                for p in series.points
            )
            parts.append(f"{series.label} ({points})")
        return (
            f"Latency (ms, lower is better) against {unit_label(self.x_metric)} over load sweeps, "
            "TTFT and TPOT p50 and p99, medians of each level's pooled runs. "
            + "; ".join(parts)
            + "."
            + (" Simulated numbers." if self.simulated else "")
        )


def latency_throughput_data(
    results: ResultSet, metric: str | None = None, experiments: Sequence[str] = ()
) -> LatencyThroughputChart:
    """One line per swept experiment; ``metric`` is the throughput on x (default output_tok_s)."""
    x_name = metric or "output_tok_s"
    if x_name not in THROUGHPUTS:
        raise UsageError(f"a latency-throughput chart puts a throughput on x: one of {', '.join(THROUGHPUTS)} "
                         f"(got '{x_name}')")
    levels: dict[str, list[tuple[str, str]]] = {}
    for name in results.experiments:
        parts = split_level_experiment(name)
        if parts is not None:
            levels.setdefault(parts[0], []).append((name, parts[1].label))
    wanted = list(experiments) or sorted(levels)
    series = []
    simulated = False
    for wanted_name in wanted:
        base = _base_name(results, wanted_name)
        if base not in levels:
            raise UsageError(f"'{wanted_name}' has no recorded sweep levels ({_how_to_sweep(results, base)})")
        points = []
        for name, level in levels[base]:
            result = results.experiments[name]
            simulated = simulated or any(is_simulated(run) for run in result.pooled)
            throughput = result.median(x_name)
            if throughput is None:
                continue
            latencies = {m: v for m, _, _ in LATENCIES if (v := result.median(m)) is not None}
            points.append(LevelPoint(name, level, throughput, latencies))
        if points:
            points.sort(key=lambda p: p.throughput)
            label = results.experiments[base].label if base in results.experiments else base
            series.append(SweepSeries(base, label, tuple(points)))
    if not series:
        raise UsageError("no sweep levels with results to chart")
    config = results.config
    x_metric = config.metric_or_default(x_name)
    if x_metric.label == x_name:
        from benchdoc.workloads.metrics import describe

        known = describe(x_name)
        x_metric = MetricConfig(name=x_name, label=known.label, unit=known.unit, direction=known.direction)
    y_metric = MetricConfig(name="latency_ms", label="Latency", unit="ms", direction="lower")
    caption = (f"Each point: one load level of a sweep (EXP@rate=R or EXP@concurrency=N) at the median of its "
               f"pooled runs; solid p50, dashed p99. Pooled: {results.pooling.describe()}.")
    if simulated:
        caption += " Simulated: measured against the built-in simulator, not real hardware."
    return LatencyThroughputChart(y_metric, x_metric, tuple(series), caption, simulated)


def _how_to_sweep(results: ResultSet, name: str) -> str:
    """The command that records a sweep of ``name``: `run` when benchdoc.toml gives it a server
    and a workload (whose rate or concurrency list sweeps the load), else `bench --record`."""
    declared = results.config.experiments.get(name)
    if declared is not None and declared.server and declared.workload:
        return f"run it with benchdoc run {name}, its workload's rate = [1, 2, 4] or concurrency list sweeping the load"
    return f"record one with benchdoc bench --url URL --rate 1,2,4 --record {name}"


def _base_name(results: ResultSet, name: str) -> str:
    try:
        return results[name].name  # a name or alias, declared or only recorded
    except UsageError:  # a base named only through its levels (EXP@rate=R)
        return name


def _short(metric: str) -> str:
    return metric.replace("_ms_", " ").replace("ttft", "TTFT").replace("tpot", "TPOT")
