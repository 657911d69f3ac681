"""Drawing charts with matplotlib: same data, same bytes.

matplotlib is imported here only, inside the functions, and only through its object
API (Figure + the Agg canvas): no pyplot, so no global figure registry and no GUI
backend. Determinism comes from a fixed hash salt for SVG ids, no date in the
metadata, the DejaVu Sans font that ships with matplotlib, and text kept as SVG text
(smaller, searchable and readable by screen readers; its metrics are DejaVu's).
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from benchdoc.errors import UsageError
from benchdoc.plots.draw_cdf import draw_latency_cdf
from benchdoc.plots.draw_series import draw_server_series
from benchdoc.plots.model import (
    Bar,
    BarChart,
    BeforeAfterChart,
    Chart,
    HistoryChart,
    LatencyCdfChart,
    LatencyThroughputChart,
    ServerSeriesChart,
    axis_label,
    format_value,
    unit_label,
)
from benchdoc.plots.style import NEUTRAL_GREY, OKABE_ITO, TEXT_COLOUR, caption_width, legend, shorten, wrap
from benchdoc.results.status import Status

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text

    from benchdoc.config import MetricConfig

FORMATS: tuple[str, ...] = ("svg", "png")
PNG_DPI = 150

STATUS_COLOURS: dict[Status, str] = {
    Status.REFERENCE: OKABE_ITO["blue"],
    Status.WORKS: OKABE_ITO["bluish_green"],
    Status.SLOWER: OKABE_ITO["vermillion"],
    Status.WORSE: OKABE_ITO["vermillion"],
    Status.NO_DIFFERENCE: OKABE_ITO["sky_blue"],
    Status.INCONCLUSIVE: OKABE_ITO["yellow"],
    Status.MEASURED: OKABE_ITO["orange"],
    Status.SUPERSEDED: NEUTRAL_GREY,
}
# Colour is never the only cue: losing bars are hatched as well.
STATUS_HATCHES: dict[Status, str] = {status: "//" for status in Status if status.loses}
BEFORE_COLOUR = NEUTRAL_GREY
AFTER_COLOUR = OKABE_ITO["blue"]
FAILED_COLOUR = OKABE_ITO["vermillion"]

STYLE: dict[str, Any] = {
    "svg.hashsalt": "benchdoc",  # element ids derived from content, not from a random salt
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 10,
    "text.parse_math": False,  # an experiment called "$x$" is text, not TeX
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.axisbelow": True,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#dddddd",
    "grid.linewidth": 0.8,
    "hatch.color": "#ffffff",
    "hatch.linewidth": 1.2,
    "legend.frameon": False,
    "legend.fontsize": 9,
}

LABEL_WIDTH = 16  # characters per line of an experiment's tick label
CROWDED = 8  # more bars than this: narrower slots, slanted one-line labels
LABEL_ZORDER = 4  # value labels sit above reference lines (zorder 3)


def render(chart: Chart, fmt: str = "svg") -> bytes:
    """The chart as SVG (default) or PNG bytes; the same chart always gives the same bytes."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown chart format '{fmt}' (expected one of: {', '.join(FORMATS)})")
    with _style():
        if isinstance(chart, LatencyThroughputChart):
            return _save(_draw_latency_throughput(chart), chart, fmt)
        if isinstance(chart, LatencyCdfChart):
            return _save(draw_latency_cdf(chart), chart, fmt)
        if isinstance(chart, ServerSeriesChart):
            return _save(draw_server_series(chart), chart, fmt)
        figure = _new_figure(chart)
        axes = figure.add_subplot()
        if isinstance(chart, BarChart):
            _draw_bar_chart(figure, axes, chart)
        elif isinstance(chart, BeforeAfterChart):
            _draw_before_after(figure, axes, chart)
        else:
            _draw_history(figure, axes, chart)
        axes.set_title(chart.title, loc="left", fontsize=12, fontweight="bold", color=TEXT_COLOUR)
        axes.set_ylabel(axis_label(chart.metric))
        figure.supxlabel(wrap(chart.caption, caption_width(figure)), fontsize=8, color="#444444", x=0.01, ha="left")
        return _save(figure, chart, fmt)


@contextmanager
def _style() -> Iterator[None]:
    import matplotlib

    with matplotlib.rc_context(cast(Any, STYLE)):
        yield


def _new_figure(chart: Chart) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    slots = _slots(chart)
    per_slot = 1.05 if slots <= CROWDED else 0.62
    width = min(30.0, max(7.0, 3.0 + per_slot * slots))
    height = 5.0 if slots <= CROWDED or isinstance(chart, HistoryChart) else 6.2  # room for slanted labels
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _draw_latency_throughput(chart: LatencyThroughputChart) -> Figure:
    """TTFT and TPOT side by side against throughput: one colour per experiment, solid p50,
    dashed p99, a marker at each level."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from benchdoc.plots.latency_throughput import LATENCIES

    figure = Figure(figsize=(11.0, 5.0), layout="constrained")
    FigureCanvasAgg(figure)
    panels = {"TTFT": figure.add_subplot(1, 2, 1), "TPOT": figure.add_subplot(1, 2, 2)}
    colours = [c for name, c in OKABE_ITO.items() if name not in ("black", "yellow")]
    markers = "osD^vP"
    handles: list[Any] = []
    for index, series in enumerate(chart.series):
        colour = colours[index % len(colours)]
        for metric, panel, pct in LATENCIES:
            points = [(p.throughput, p.latencies[metric]) for p in series.points if metric in p.latencies]
            if not points:
                continue
            xs, ys = zip(*points)
            (line,) = panels[panel].plot(
                xs, ys, color=colour, linestyle="-" if pct == "p50" else "--", marker=markers[index % len(markers)],
                markersize=5, linewidth=1.6, label=f"{series.label} {pct}",
            )
            line.set_gid(f"line-{index}-{metric}")
        handles.append(Line2D([], [], color=colour, marker=markers[index % len(markers)], markersize=5, linewidth=1.6,
                              label=shorten(series.label, 40)))
    x_label = f"{unit_label(chart.x_metric)}, achieved"
    for name, axes in panels.items():
        axes.set_title(f"{name} (ms)", loc="left", fontsize=11, fontweight="bold", color=TEXT_COLOUR)
        axes.set_xlabel(x_label)
        axes.set_ylabel(f"{name}, ms, lower is better")
        axes.grid(True, axis="both")
        axes.set_ylim(bottom=0)
        axes.set_xlim(left=0)
    # The legend above the panels, never over the data: a colour per experiment, a style per percentile.
    handles += [Line2D([], [], color="#555555", linestyle="-", linewidth=1.6, label="p50"),
                Line2D([], [], color="#555555", linestyle="--", linewidth=1.6, label="p99")]
    # The title heads the legend: a title and a legend both above the panels would collide.
    figure.legend(handles=handles, loc="outside upper left", ncols=min(len(handles), 6), handlelength=1.6,
                  columnspacing=1.4, title=chart.title, alignment="left",
                  title_fontproperties={"weight": "bold", "size": 12})
    figure.supxlabel(wrap(chart.caption, caption_width(figure)), fontsize=8, color="#444444", x=0.01, ha="left")
    return figure


def _slots(chart: Chart) -> float:
    """How many bar-widths the chart needs across."""
    if isinstance(chart, BarChart):
        return len(chart.bars)
    if isinstance(chart, BeforeAfterChart):
        return len(chart.pairs) * 1.6
    if isinstance(chart, HistoryChart):
        return len(chart.points) * 0.45
    return 12.0  # a latency-throughput chart sets its own size


def _save(figure: Figure, chart: Chart, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "svg":
        metadata = {"Date": None, "Creator": "benchdoc", "Title": chart.title, "Description": chart.describe()}
        figure.savefig(buffer, format="svg", metadata=metadata)
    else:
        figure.savefig(buffer, format="png", dpi=PNG_DPI, metadata={"Software": "benchdoc", "Title": chart.title})
    return buffer.getvalue()


def _set_labels(axes: Axes, labels: list[str]) -> None:
    """Experiment names under their bars: wrapped when there is room, slanted when crowded."""
    if len(labels) <= CROWDED:
        axes.set_xticks(range(len(labels)), [wrap(shorten(label, 72), LABEL_WIDTH) for label in labels], fontsize=9)
    else:
        axes.set_xticks(
            range(len(labels)), [shorten(label, 40) for label in labels], fontsize=8.5,
            rotation=40, ha="right", rotation_mode="anchor",
        )


def _top(bar: Bar) -> float:
    if bar.median is None:
        return 0.0
    return max(bar.median, bar.ci_high if bar.ci_high is not None else bar.median)


def _draw_slot(axes: Axes, x: float, width: float, bar: Bar, colour: str, hatch: str, gid: str, gap_height: float,
               metric: MetricConfig, show_delta: bool) -> GapLabel | None:
    """One bar with its interval and value, or the labelled gap standing in for it."""
    if bar.gap is not None:
        (band,) = axes.bar(x, gap_height, width=width, color="#f4f4f4", edgecolor="#aaaaaa", linewidth=0.8, linestyle="--")
        band.set_gid(f"gap-band-{gid}")
        gap_colour = FAILED_COLOUR if bar.status is Status.FAILED else "#555555"
        text = axes.text(
            x, gap_height * 0.03, wrap(shorten(bar.gap), 34), rotation=90, ha="center", va="bottom",
            fontsize=8.5, color=TEXT_COLOUR, linespacing=1.1,
            bbox={"boxstyle": "round,pad=0.25", "facecolor": "#ffffff", "edgecolor": gap_colour, "linewidth": 1.0},
        )
        text.set_gid(f"gap-{gid}")
        return GapLabel(text, band, bar.gap)
    assert bar.median is not None
    # A hatch is drawn in the figure-wide "hatch.color": white lines on the bar's colour.
    (rect,) = axes.bar(x, bar.median, width=width, color=colour, hatch=hatch or None, linewidth=0)
    rect.set_gid(f"bar-{gid}")
    if bar.has_interval:
        assert bar.ci_low is not None and bar.ci_high is not None
        container = axes.errorbar(
            x, bar.median, yerr=[[bar.median - bar.ci_low], [bar.ci_high - bar.median]],
            fmt="none", ecolor=TEXT_COLOUR, elinewidth=1.2, capsize=4, capthick=1.2,
        )
        _, caps, (lines,) = container.lines
        lines.set_gid(f"errorbar-{gid}")
        for number, cap in enumerate(caps):
            cap.set_gid(f"errorbar-cap-{gid}-{number}")
    value = format_value(bar.median, metric)
    caption = f"{value}\n{bar.delta}" if show_delta and bar.delta else value
    if bar.n:
        caption += f"\nn={bar.n}"
    label = axes.annotate(
        caption, xy=(x, _top(bar)), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
        fontsize=8, color=TEXT_COLOUR, linespacing=1.05, zorder=LABEL_ZORDER,
        # Opaque and above the reference lines: a line never strikes through a value.
        bbox={"boxstyle": "square,pad=0.15", "facecolor": "#ffffff", "edgecolor": "none"},
    )
    label.set_gid(f"value-{gid}")
    return None


@dataclass
class GapLabel:
    """A failed or untested experiment's text and the dashed band it must stay inside."""

    text: Text
    band: Rectangle
    full: str


def _fit_gap_labels(figure: Figure, labels: list[GapLabel]) -> None:
    """Shorten each gap's text until it lies inside its band once the figure is laid out.

    The band's size in points is known only after layout, and a text's extent only
    from the renderer: measure, shorten by a fifth, measure again (a few rounds at most).
    """
    if not labels:
        return
    for _ in range(8):
        figure.draw_without_rendering()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        overflowing = [g for g in labels if not _inside(g.text.get_window_extent(renderer), g.band.get_window_extent(renderer))]
        if not overflowing:
            return
        for gap in overflowing:
            limit = max(8, int(len(gap.text.get_text().replace("\n", " ")) * 0.8))
            gap.text.set_text(wrap(shorten(gap.full, limit), max(8, int(limit / 2.5))))
            gap.text.set_fontsize(max(6.5, float(gap.text.get_fontsize()) - 0.5))


def _inside(inner: Any, outer: Any, slack: float = 1.0) -> bool:
    return (inner.x0 >= outer.x0 - slack and inner.x1 <= outer.x1 + slack
            and inner.y0 >= outer.y0 - slack and inner.y1 <= outer.y1 + slack)


def _draw_bar_chart(figure: Figure, axes: Axes, chart: BarChart) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    top = max([_top(b) for b in chart.bars] + [r.value for r in chart.references] + [0.0]) or 1.0
    gap_height = top * 0.8
    gaps: list[GapLabel] = []
    for index, bar in enumerate(chart.bars):
        colour = STATUS_COLOURS.get(bar.status, OKABE_ITO["orange"])
        gap = _draw_slot(axes, index, 0.7, bar, colour, STATUS_HATCHES.get(bar.status, ""), str(index), gap_height, chart.metric, True)
        if gap is not None:
            gaps.append(gap)
    handles: list[Any] = []
    for index, reference in enumerate(chart.references):
        style: Any = ("--", ":", "-.")[index % 3]
        line = axes.axhline(reference.value, color=OKABE_ITO["black"], linestyle=style, linewidth=1.2, zorder=3)
        line.set_gid(f"reference-{index}")
        handles.append(
            Line2D([], [], color=OKABE_ITO["black"], linestyle=style, linewidth=1.2,
                   label=shorten(f"Reference: {reference.label} {format_value(reference.value, chart.metric)}", 60))
        )
    seen: list[Status] = []
    for bar in chart.bars:
        if bar.gap is None and bar.status not in seen:
            seen.append(bar.status)
    for status in seen:
        handles.append(Patch(facecolor=STATUS_COLOURS.get(status, OKABE_ITO["orange"]), hatch=STATUS_HATCHES.get(status), edgecolor="#ffffff", label=str(status)))
    _set_labels(axes, [b.label for b in chart.bars])
    axes.set_xlim(-0.6, len(chart.bars) - 0.4)
    axes.set_ylim(0, top * 1.22)
    if handles:
        legend(figure, handles)
    _fit_gap_labels(figure, gaps)


def _draw_before_after(figure: Figure, axes: Axes, chart: BeforeAfterChart) -> None:
    from matplotlib.patches import Patch

    bars = [side for pair in chart.pairs for side in (pair.before, pair.after)]
    top = max([_top(b) for b in bars] + [0.0]) or 1.0
    gap_height = top * 0.8
    width = 0.38
    gaps: list[GapLabel] = []
    for index, pair in enumerate(chart.pairs):
        for offset, side, colour, name in ((-0.2, pair.before, BEFORE_COLOUR, "before"), (0.2, pair.after, AFTER_COLOUR, "after")):
            gap = _draw_slot(axes, index + offset, width, side, colour, "", f"{name}-{index}", gap_height, chart.metric, False)
            if gap is not None:
                gaps.append(gap)
        if pair.delta_pct is not None:
            change = axes.annotate(
                f"{pair.delta_pct:+.1f}%", xy=(index, max(_top(pair.before), _top(pair.after))), xytext=(0, 34),
                textcoords="offset points", ha="center", va="bottom", fontsize=10, fontweight="bold", color=TEXT_COLOUR,
            )
            change.set_gid(f"change-{index}")
    labels = [wrap(f"{shorten(p.before.label, 40)} → {shorten(p.after.label, 40)}", LABEL_WIDTH + 4) for p in chart.pairs]
    axes.set_xticks(range(len(chart.pairs)), labels, fontsize=9)
    axes.set_xlim(-0.7, len(chart.pairs) - 0.3)
    axes.set_ylim(0, top * 1.35)
    legend(figure, [Patch(facecolor=BEFORE_COLOUR, label="Before (superseded)"), Patch(facecolor=AFTER_COLOUR, label="After")])
    _fit_gap_labels(figure, gaps)


def _draw_history(figure: Figure, axes: Axes, chart: HistoryChart) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    measured = [(i, p) for i, p in enumerate(chart.points) if p.median is not None]
    if measured:
        trend = axes.plot([i for i, _ in measured], [cast(float, p.median) for _, p in measured], color="#bbbbbb", linewidth=1.0, zorder=1)[0]
        trend.set_gid("trend")
    for index, point in measured:
        assert point.median is not None
        if point.has_interval:
            assert point.ci_low is not None and point.ci_high is not None
            container = axes.errorbar(
                index, point.median, yerr=[[point.median - point.ci_low], [point.ci_high - point.median]],
                fmt="none", ecolor=TEXT_COLOUR, elinewidth=1.1, capsize=3, capthick=1.1, zorder=2,
            )
            _, caps, (lines,) = container.lines
            lines.set_gid(f"errorbar-{index}")
            for number, cap in enumerate(caps):
                cap.set_gid(f"errorbar-cap-{index}-{number}")
        marker = axes.plot(
            [index], [point.median], marker="o", markersize=7, linestyle="none", zorder=3,
            color=OKABE_ITO["blue"], markerfacecolor=OKABE_ITO["blue"] if point.pooled else "#ffffff", markeredgewidth=1.5,
        )[0]
        marker.set_gid(f"point-{index}")
    bottom_band = blended_transform_factory(axes.transData, axes.transAxes)
    for index, point in enumerate(chart.points):
        if point.gap is None:
            continue
        cross = axes.plot([index], [0.04], marker="X", markersize=8, linestyle="none", color=FAILED_COLOUR, transform=bottom_band, zorder=3)[0]
        cross.set_gid(f"gap-mark-{index}")
        text = axes.text(index, 0.09, shorten(point.gap, 40), rotation=90, ha="center", va="bottom", fontsize=8, color=TEXT_COLOUR, transform=bottom_band)
        text.set_gid(f"gap-{index}")
    handles: list[Any] = [
        Line2D([], [], marker="o", linestyle="none", color=OKABE_ITO["blue"], label="Run (pooled)"),
        Line2D([], [], marker="o", linestyle="none", color=OKABE_ITO["blue"], markerfacecolor="#ffffff", label="Run (not pooled)"),
    ]
    if any(p.gap for p in chart.points):
        handles.append(Line2D([], [], marker="X", linestyle="none", color=FAILED_COLOUR, label="Failed / no data"))
    if chart.current is not None:
        current = axes.axhline(chart.current, color=OKABE_ITO["bluish_green"], linestyle="--", linewidth=1.2, zorder=1)
        current.set_gid("current")
        handles.append(Line2D([], [], color=OKABE_ITO["bluish_green"], linestyle="--", label=f"Current result {format_value(chart.current, chart.metric)}"))
    values = [v for _, p in measured for v in (p.median, p.ci_low, p.ci_high) if v is not None]
    if values:
        low, high = min(values), max(values)
        pad = (high - low) * 0.15 or abs(high) * 0.05 or 1.0
        # Room below the lowest point for the failure labels.
        axes.set_ylim(low - pad * (4 if any(p.gap for p in chart.points) else 1), high + pad)
    # A tick label ("#12" over a date) needs about an inch; label every step-th run.
    room = max(1, int((figure.get_size_inches()[0] - 3.0) / 0.95))
    step = max(1, math.ceil(len(chart.points) / room))
    ticks = list(range(0, len(chart.points), step))
    axes.set_xticks(ticks, [f"#{chart.points[i].run_id}\n{chart.points[i].started_at:%Y-%m-%d}" for i in ticks], fontsize=8)
    axes.set_xlim(-0.6, len(chart.points) - 0.4)
    axes.set_xlabel("run, oldest to newest", fontsize=9)
    legend(figure, handles)
