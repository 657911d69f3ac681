"""The data of a server-metrics chart: one run's /metrics series over its measured phase
(no matplotlib here). Requests running and waiting share one panel, KV-cache usage and
the prefix-cache hit rate (both 0 to 1) another, the accept length a third when present;
each repetition of the run is its own line style, its times from its own start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchdoc.ledger.models import RunRecord

KIND = "server-metrics"
# Panels: (title, y-axis label, series drawn in it).
PANELS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Requests in the server", "requests", ("running", "waiting")),
    ("KV cache and prefix cache", "fraction (0 to 1)", ("kv_cache_usage", "prefix_cache_hit_rate")),
    ("Speculative decoding", "tokens per step", ("spec_accept_length",)),
)


@dataclass(frozen=True)
class SeriesLine:
    series: str
    repetition: int
    points: tuple[tuple[float, float], ...]  # (seconds from the phase's start, value)


@dataclass(frozen=True)
class ServerSeriesChart:
    experiment: str
    label: str
    run_id: int
    dialect: str
    panels: tuple[tuple[str, str, tuple[str, ...]], ...]
    lines: tuple[SeriesLine, ...]
    caption: str
    simulated: bool
    kind: str = KIND

    @property
    def title(self) -> str:
        return f"{self.label}: the server over the run"

    def describe(self) -> str:
        drawn = sorted({line.series for line in self.lines})
        return (f"Line chart of the server's own metrics ({self.dialect} /metrics, scraped every second) over "
                f"run {self.run_id} of {self.label}: {', '.join(drawn)}. {self.caption}")


def server_series_data(label: str, run: RunRecord, simulated: bool = False) -> ServerSeriesChart | None:
    """The chart of ``run``'s server series, or None when it kept none."""
    kept = run.metadata.server_metrics
    if kept is None or not kept.repetitions:
        return None
    lines: list[SeriesLine] = []
    dialect = ""
    for entry in kept.repetitions:
        dialect = dialect or (entry.dialect or "")
        for name, values in entry.series.items():
            points = tuple((float(t), float(v)) for t, v in zip(entry.times_s, values) if v is not None and _number(v))
            if points:
                lines.append(SeriesLine(name, entry.repetition, points))
    if not lines:
        return None
    present = {line.series for line in lines}
    panels = tuple(panel for panel in PANELS if present & set(panel[2]))
    repetitions = len({line.repetition for line in lines})
    caption = (f"Scraped from the server's /metrics ({dialect} names) once a second of each measured phase; "
               f"{repetitions} repetition{'s' if repetitions != 1 else ''}, each from its own start.")
    if simulated:
        caption += " Simulated: benchdoc's simulator, not hardware."
    return ServerSeriesChart(run.experiment, label, run.id, dialect, panels, tuple(lines), caption, simulated)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
