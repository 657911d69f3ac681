"""Drawing the latency distribution chart (matplotlib imported inside the function, as in draw.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchdoc.plots.latency_cdf import LatencyCdfChart
from benchdoc.plots.style import OKABE_ITO, TEXT_COLOUR, caption_width, legend, shorten, wrap

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# Colour and line style together tell the curves apart (colour is never the only cue).
LINE_STYLES: tuple[str, ...] = ("-", "--", "-.", ":")
SHARES = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)


def draw_latency_cdf(chart: LatencyCdfChart) -> Figure:
    """One panel per latency (TTFT, TPOT): a step curve per experiment, its share of requests
    at or below each latency; the legend alone above the panels (a title beside it could
    collide with it), the caption below."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    width = 11.0 if len(chart.panels) > 1 else 6.5
    figure = Figure(figsize=(width, 5.4), layout="constrained")
    FigureCanvasAgg(figure)
    axes = {metric: figure.add_subplot(1, len(chart.panels), index + 1) for index, (metric, _) in enumerate(chart.panels)}
    colours = [c for name, c in OKABE_ITO.items() if name not in ("yellow",)]
    handles: list[Any] = []
    for index, series in enumerate(chart.series):
        colour = colours[index % len(colours)]
        style: Any = LINE_STYLES[index % len(LINE_STYLES)]
        for metric, steps in series.steps.items():
            xs = [steps[0][0], *(x for x, _ in steps)]
            ys = [0.0, *(y for _, y in steps)]
            (line,) = axes[metric].step(xs, ys, where="post", color=colour, linestyle=style, linewidth=1.6)
            line.set_gid(f"cdf-{index}-{metric}")
        handles.append(Line2D([], [], color=colour, linestyle=style, linewidth=1.6,
                              label=f"{shorten(series.label, 40)} (n={series.requests})"))
    for metric, panel in chart.panels:
        ax = axes[metric]
        ax.set_title(f"{panel} per request (CDF)", loc="left", fontsize=11, fontweight="bold", color=TEXT_COLOUR)
        ax.set_xlabel(f"{panel}, ms (lower is better)")
        ax.set_ylabel("share of requests at or below")
        ax.grid(True, axis="both")
        # The floor sits a little below 0%: a "0%" tick on the bottom spine reaches down among
        # the x axis's first tick label whenever that tick falls on the left corner.
        ax.set_ylim(-0.05, 1.02)
        ax.set_yticks(SHARES, [f"{share:.0%}" for share in SHARES])
    legend(figure, handles)
    figure.supxlabel(wrap(chart.caption, caption_width(figure)), fontsize=8, color="#444444", x=0.01, ha="left")
    return figure
