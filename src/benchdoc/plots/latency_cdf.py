"""The data of a latency distribution chart: the CDF of TTFT and TPOT per request (no matplotlib here).

A run's ``ttft_ms_p50`` is one number; the requests kept with it (``bench --record`` and
``run`` keep them) show the whole distribution behind it: a long tail, two modes, a
few stragglers. Each experiment's curve holds every successful request of its pooled
runs, read through the results layer; an experiment whose runs kept no requests is
named in the caption, never drawn as an empty curve.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from benchdoc.config import MetricConfig
from benchdoc.errors import UsageError
from benchdoc.ledger.metadata import ServedBy
from benchdoc.naming import is_level_experiment
from benchdoc.plots.labels import is_simulated

if TYPE_CHECKING:
    from benchdoc.results import ResultSet
    from benchdoc.results.requests import RequestLatencies

KIND = "latency-cdf"
# The per-request latencies drawn, each in its own panel: (metric, panel name).
PANELS: tuple[tuple[str, str], ...] = (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"))
MAX_STEPS = 400  # points per curve: beyond it the curve is drawn through evenly spaced quantiles
NAMED_LIMIT = 12  # experiments without records named one by one in the caption
RECORD_HINT = "record some with `benchdoc bench --record EXP` or `benchdoc run` (kept unless [ledger] keep_requests = false)"


@dataclass(frozen=True)
class CdfSeries:
    """One experiment's distributions: for each panel, the steps of its CDF and its percentiles."""

    experiment: str
    label: str
    requests: int  # successful requests in its curves
    failed: int  # kept requests that failed (in no curve)
    runs: tuple[int, ...]
    steps: dict[str, tuple[tuple[float, float], ...]]  # metric -> (latency, share of requests at or below it)
    p50: dict[str, float]
    p99: dict[str, float]


@dataclass(frozen=True)
class LatencyCdfChart:
    metric: MetricConfig  # the x axis: a latency in ms
    panels: tuple[tuple[str, str], ...]
    series: tuple[CdfSeries, ...]
    without_records: tuple[str, ...]  # labels of the experiments asked for whose runs kept no requests
    caption: str
    simulated: bool
    kind: str = KIND

    @property
    def title(self) -> str:
        return "Latency distribution per request"

    def describe(self) -> str:
        parts = []
        for series in self.series:
            figures = "; ".join(
                f"{panel} p50 {series.p50[metric]:.1f} ms, p99 {series.p99[metric]:.1f} ms"
                for metric, panel in self.panels if metric in series.p50
            )
            parts.append(f"{series.label} ({series.requests} requests: {figures})")
        names = " and ".join(panel for _, panel in self.panels)
        text = f"Cumulative distribution of {names} per request (ms, lower is better): " + "; ".join(parts) + "."
        if self.without_records:
            text += f" {_without_text(self.without_records)}"
        return text + (" Simulated numbers." if self.simulated else "")


def latency_cdf_data(results: ResultSet, metric: str | None = None, experiments: Sequence[str] = ()) -> LatencyCdfChart:
    """One curve per experiment with kept requests (default: every experiment not superseded
    and not a sweep level); ``metric`` ttft_ms or tpot_ms draws that panel alone."""
    panels = _panels(metric)
    names = ([r.name for r in results.select(experiments)] if experiments
             else [r.name for r in results if not r.superseded_by and not is_level_experiment(r.name)])
    if not names:
        raise UsageError("no experiments to chart")
    found = results.request_latencies(names)
    series = [_series(results, found[name], panels) for name in names if name in found]
    series = [s for s in series if s.steps]
    drawn = {s.experiment for s in series}
    without = tuple(results[name].label for name in names if name not in found)
    # Kept requests, but none with a latency to draw (every one failed, or one output token and no TPOT).
    empty = tuple(results[name].label for name in names if name in found and name not in drawn)
    if not series and empty:
        raise UsageError(f"no kept request of {_listing(empty)} has a {' or '.join(p for _, p in panels)} to draw")
    if not series:
        raise UsageError(f"no per-request records for {_listing([results[n].label for n in names])}: {RECORD_HINT}")
    simulated = any(is_simulated(run) for s in series for run in results[s.experiment].pooled if run.id in s.runs)
    servers = {s.experiment: server_of(results, s) for s in series}
    mixed = len(set(servers.values())) > 1
    if mixed:  # each curve says which server it measured
        series = [replace(s, label=f"{s.label} ({servers[s.experiment]})") for s in series]
    caption = (
        "Each curve: the share of an experiment's successful requests at or below each latency, over the requests "
        f"kept with its pooled runs (n = requests; failed requests are in no curve). Pooled: {results.pooling.describe()}."
    )
    if without:
        caption += f" {_without_text(without)}"
    if empty:
        names_drawn = " or ".join(panel for _, panel in panels)
        caption += f" Kept requests, none with a {names_drawn} to draw (not drawn): {_listing(empty)}."
    if mixed:
        caption += (f" Different servers on one axis ({', '.join(sorted(set(servers.values())))}): "
                    "their curves compare the servers as much as the configurations.")
    if simulated:
        caption += " Simulated: measured against the built-in simulator, not real hardware."
    x_metric = MetricConfig(name="latency_ms", label="Latency", unit="ms", direction="lower")
    return LatencyCdfChart(x_metric, panels, tuple(series), without, caption, simulated)


def server_of(results: ResultSet, series: CdfSeries) -> str:
    """What answered an experiment's drawn runs: 'simulator', the server's own name for itself
    and its model ('llamacpp qwen2-0.5b'), or 'server unknown'; several joined with '+'."""
    seen = []
    for run in results[series.experiment].pooled:
        if run.id not in series.runs:
            continue
        server = run.metadata.server or ServedBy()
        words = [str(w) for w in (*server.owned_by, server.model) if w]
        name = "simulator" if is_simulated(run) else (" ".join(words) or "server unknown")
        if name not in seen:
            seen.append(name)
    return " + ".join(seen) or "server unknown"


def cdf_steps(values: Sequence[float], limit: int = MAX_STEPS) -> tuple[tuple[float, float], ...]:
    """The CDF of sorted ``values`` as (value, share at or below): every value, or ``limit``
    evenly spaced quantiles of a larger sample (the curve a reader sees, in fewer points)."""
    n = len(values)
    if n <= limit:
        return tuple((float(v), (i + 1) / n) for i, v in enumerate(values))
    picks = [min(n - 1, max(0, round(k * n / limit) - 1)) for k in range(1, limit + 1)]
    return tuple((float(values[i]), (i + 1) / n) for i in picks)


def _series(results: ResultSet, latencies: RequestLatencies, panels: Sequence[tuple[str, str]]) -> CdfSeries:
    from benchdoc.workloads.aggregate import percentile

    steps: dict[str, tuple[tuple[float, float], ...]] = {}
    p50: dict[str, float] = {}
    p99: dict[str, float] = {}
    for metric, _ in panels:
        values = latencies.values(metric)
        if not values:
            continue
        steps[metric] = cdf_steps(values)
        p50[metric] = percentile(values, 50.0)
        p99[metric] = percentile(values, 99.0)
    result = results[latencies.experiment]
    return CdfSeries(result.name, result.label, latencies.succeeded, latencies.failed, latencies.runs, steps, p50, p99)


def _panels(metric: str | None) -> tuple[tuple[str, str], ...]:
    if not metric:
        return PANELS
    for name, panel in PANELS:
        if metric.lower() in (name, panel.lower()):
            return ((name, panel),)
    raise UsageError(f"a latency-cdf chart draws ttft_ms or tpot_ms per request (got '{metric}'; default: both)")


def _listing(labels: Sequence[str]) -> str:
    shown = ", ".join(labels[:NAMED_LIMIT])
    return shown + (f" and {len(labels) - NAMED_LIMIT} more" if len(labels) > NAMED_LIMIT else "")


def _without_text(labels: Sequence[str]) -> str:
    return f"Without per-request records (not drawn): {_listing(labels)}."
