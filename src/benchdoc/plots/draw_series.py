"""Drawing the server-metrics chart (matplotlib imported inside the function, as in draw.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchdoc.plots.server_series import ServerSeriesChart
from benchdoc.plots.style import OKABE_ITO, TEXT_COLOUR, caption_width, wrap

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LINE_STYLES: tuple[str, ...] = ("-", "--", "-.", ":")  # one per repetition
# A marker per series too: two series with the same values (running and waiting) stay told apart.
MARKERS = {"running": "o", "waiting": "s", "kv_cache_usage": "D", "prefix_cache_hit_rate": "^", "spec_accept_length": "v"}
NAMES = {"running": "running", "waiting": "waiting", "kv_cache_usage": "KV-cache usage",
         "prefix_cache_hit_rate": "prefix-cache hit rate", "spec_accept_length": "accept length"}


def draw_server_series(chart: ServerSeriesChart) -> Figure:
    """A panel per kind of figure, a colour per series, a line style per repetition."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    count = len(chart.panels)
    figure = Figure(figsize=(max(6.5, 4.6 * count), 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    colours = [c for name, c in OKABE_ITO.items() if name not in ("yellow",)]
    colour_of = {name: colours[i % len(colours)] for i, name in enumerate(NAMES)}
    axes = {}
    for index, (title, unit, names) in enumerate(chart.panels):
        ax = figure.add_subplot(1, count, index + 1)
        ax.set_title(title, loc="left", fontsize=11, fontweight="bold", color=TEXT_COLOUR)
        ax.set_xlabel("seconds from the start of the measured phase")
        ax.set_ylabel(unit)
        ax.grid(True, axis="both")
        for name in names:
            axes[name] = ax
    for line in chart.lines:
        if line.series not in axes:
            continue
        xs, ys = zip(*line.points)
        style: Any = LINE_STYLES[line.repetition % len(LINE_STYLES)]
        (drawn,) = axes[line.series].plot(xs, ys, color=colour_of.get(line.series, "#555555"), linestyle=style,
                                          marker=MARKERS.get(line.series, "o"), markersize=4, markerfacecolor="none",
                                          linewidth=1.5)
        drawn.set_gid(f"series-{line.series}-{line.repetition}")
    for ax in {id(a): a for a in axes.values()}.values():
        ax.set_ylim(bottom=0)
    present = [name for name in NAMES if any(line.series == name for line in chart.lines)]
    handles: list[Any] = [Line2D([], [], color=colour_of[name], linewidth=1.5, marker=MARKERS[name], markersize=4,
                                 markerfacecolor="none", label=NAMES[name]) for name in present]
    # The title heads the legend: a title and a legend both above the panels would collide.
    figure.legend(handles=handles, loc="outside upper left", ncols=min(len(handles), 5), handlelength=1.6,
                  columnspacing=1.4, title=chart.title, alignment="left",
                  title_fontproperties={"weight": "bold", "size": 12})
    figure.supxlabel(wrap(chart.caption, caption_width(figure)), fontsize=8, color="#444444", x=0.01, ha="left")
    return figure
