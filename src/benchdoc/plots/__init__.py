"""Charts of results: a metric across experiments, before/after, one experiment's history.

Each chart is built in two steps: its data from a ResultSet (`benchdoc.plots.model`,
no matplotlib), then its picture (`benchdoc.plots.draw`, matplotlib imported on use).
The functions here do both and return the bytes of an SVG (default) or a PNG; the
same ledger always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchdoc.plots.draw import FORMATS  # matplotlib itself is imported only when drawing
from benchdoc.plots.latency_cdf import LatencyCdfChart, latency_cdf_data
from benchdoc.plots.model import (
    CHART_KINDS,
    Bar,
    BarChart,
    BeforeAfterChart,
    BeforeAfterPair,
    Chart,
    HistoryChart,
    HistoryPoint,
    ReferenceLine,
    axis_label,
    bar_chart_data,
    before_after_data,
    chart_data,
    history_data,
    is_simulated,
    resolve_metric,
    select_experiments,
    unit_label,
)

if TYPE_CHECKING:
    from benchdoc.results import ResultSet


def render(chart: Chart, fmt: str = "svg") -> bytes:
    """Draw a chart's data as SVG or PNG bytes."""
    from benchdoc.plots.draw import render as draw

    return draw(chart, fmt)


def bar_chart(results: ResultSet, metric: str | None = None, experiments: Sequence[str] = (), *, fmt: str = "svg") -> bytes:
    """One metric across experiments: medians with intervals, the reference as a line, gaps labelled."""
    return render(bar_chart_data(results, metric, experiments), fmt)


def before_after_chart(
    results: ResultSet, metric: str | None = None, experiments: Sequence[str] = (), *, fmt: str = "svg"
) -> bytes:
    """Each superseded experiment (before) next to the experiment that replaced it (after)."""
    return render(before_after_data(results, metric, experiments), fmt)


def history_chart(results: ResultSet, metric: str | None, experiment: str, *, fmt: str = "svg") -> bytes:
    """One experiment's runs over time: each run's median and interval; failed runs marked."""
    return render(history_data(results, metric, experiment), fmt)


def chart(
    kind: str, results: ResultSet, metric: str | None = None, experiments: Sequence[str] = (), *, fmt: str = "svg",
    levels: bool = False,
) -> tuple[Chart, bytes]:
    """The data and the bytes of a chart of ``kind`` (one of CHART_KINDS); ``levels``: a bar chart
    draws the load levels of sweeps too."""
    data = chart_data(kind, results, metric, experiments, levels=levels)
    return data, render(data, fmt)


__all__ = [
    "Bar",
    "BarChart",
    "BeforeAfterChart",
    "BeforeAfterPair",
    "CHART_KINDS",
    "Chart",
    "FORMATS",
    "HistoryChart",
    "HistoryPoint",
    "LatencyCdfChart",
    "ReferenceLine",
    "axis_label",
    "bar_chart",
    "bar_chart_data",
    "before_after_chart",
    "before_after_data",
    "chart",
    "chart_data",
    "history_chart",
    "history_data",
    "is_simulated",
    "latency_cdf_data",
    "render",
    "resolve_metric",
    "select_experiments",
    "unit_label",
]
