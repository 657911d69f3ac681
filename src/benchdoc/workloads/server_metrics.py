"""The server's own figures over a run: its Prometheus ``/metrics`` scraped every second.

vLLM and SGLang export the same quantities under different names (checked against their
sources: vLLM's ``v1/metrics/loggers.py``, SGLang's ``srt/metrics/collector.py``):

=======================  ====================================  ==========================
series                   vLLM                                  SGLang
=======================  ====================================  ==========================
``running``              ``vllm:num_requests_running``         ``sglang:num_running_reqs``
``waiting``              ``vllm:num_requests_waiting``         ``sglang:num_queue_reqs``
``kv_cache_usage``       ``vllm:kv_cache_usage_perc``          ``sglang:token_usage``
                         (``vllm:gpu_cache_usage_perc`` before
                         its V1 engine)
``prefix_cache_hit_rate`` Δ``vllm:prefix_cache_hits_total`` ÷   ``sglang:cache_hit_rate``
                         Δ``vllm:prefix_cache_queries_total``  (its last prefill batch)
                         between two scrapes
``spec_accept_length``   1 + Δ``…num_accepted_tokens_total`` ÷  ``sglang:spec_accept_length``
                         Δ``…num_drafts_total`` between scrapes
=======================  ====================================  ==========================

The text is parsed with ``prometheus_client``'s parser. Counts (running, waiting) are
summed over label sets (data-parallel ranks, engines); fractions are averaged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchdoc.workloads.prometheus import ACCEPTED_TOKENS, DRAFTS

SCRAPE_INTERVAL_S = 1.0
SERIES: tuple[str, ...] = ("running", "waiting", "kv_cache_usage", "prefix_cache_hit_rate", "spec_accept_length")
LABELS: dict[str, str] = {
    "running": "running requests",
    "waiting": "waiting requests",
    "kv_cache_usage": "KV-cache usage",
    "prefix_cache_hit_rate": "prefix-cache hit rate",
    "spec_accept_length": "accept length",
}

PREFIX_HITS = "vllm:prefix_cache_hits_total"
PREFIX_QUERIES = "vllm:prefix_cache_queries_total"
# Each dialect's gauges by series: (names tried in order, summed over label sets or not).
_GAUGES: dict[str, dict[str, tuple[tuple[str, ...], bool]]] = {
    "vllm": {
        "running": (("vllm:num_requests_running",), True),
        "waiting": (("vllm:num_requests_waiting",), True),
        "kv_cache_usage": (("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"), False),
    },
    "sglang": {
        "running": (("sglang:num_running_reqs",), True),
        "waiting": (("sglang:num_queue_reqs",), True),
        "kv_cache_usage": (("sglang:token_usage",), False),
        "prefix_cache_hit_rate": (("sglang:cache_hit_rate",), False),
        "spec_accept_length": (("sglang:spec_accept_length",), False),
    },
}
_VLLM_COUNTERS = (PREFIX_HITS, PREFIX_QUERIES, ACCEPTED_TOKENS, DRAFTS)
WANTED: frozenset[str] = frozenset(
    {name for dialect in _GAUGES.values() for names, _ in dialect.values() for name in names} | set(_VLLM_COUNTERS)
)


# The families of the wanted samples (a counter's family drops its ``_total``).
_FAMILIES: frozenset[str] = frozenset(name.removesuffix("_total") for name in WANTED)


def wanted_lines(text: str) -> str:
    """Only the lines of the wanted metrics (their samples and their HELP and TYPE lines).

    A server's exposition runs to hundreds of kilobytes of histograms; parsing all of it
    every second would hold the client's event loop for tens of milliseconds. A sample
    line starts with its name, ended by ``{`` or a space."""
    kept = []
    for line in text.splitlines():
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE") and parts[2] in _FAMILIES:
                kept.append(line)
            continue
        end = len(line)
        for mark in ("{", " "):
            at = line.find(mark)
            if 0 <= at < end:
                end = at
        if line[:end] in WANTED:
            kept.append(line)
    return "\n".join(kept) + "\n"


def parse_samples(text: str) -> dict[str, list[float]]:
    """Every sample of the wanted metrics in a Prometheus text exposition, by sample name
    (one value per label set). A text the parser refuses gives nothing."""
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, list[float]] = {}
    try:
        for family in text_string_to_metric_families(wanted_lines(text)):
            for sample in family.samples:
                if sample.name in WANTED and not math.isnan(sample.value):
                    found.setdefault(sample.name, []).append(float(sample.value))
    except (ValueError, TypeError, IndexError):
        return {}
    return found


def dialect_of(samples: Mapping[str, list[float]], prefer: str = "vllm") -> str | None:
    """Which server's names the samples use (``prefer`` when both are there), or None."""
    has = {d: any(name.startswith(f"{d}:") for name in samples) for d in ("vllm", "sglang")}
    if has.get(prefer):
        return prefer
    return next((d for d, present in has.items() if present), None)


@dataclass
class ServerSeries:
    """The server's figures at each scrape of one measured phase (times from its start)."""

    dialect: str
    interval_s: float = SCRAPE_INTERVAL_S
    times_s: list[float] = field(default_factory=list)
    values: dict[str, list[float | None]] = field(default_factory=dict)
    _last: dict[str, float] = field(default_factory=dict, repr=False)

    def add(self, at_s: float, samples: Mapping[str, list[float]]) -> None:
        """One scrape's samples as a point of each series (None where the server had none)."""
        point: dict[str, float | None] = {}
        for series, (names, summed) in _GAUGES[self.dialect].items():
            values = next((samples[n] for n in names if samples.get(n)), None)
            point[series] = None if values is None else (sum(values) if summed else sum(values) / len(values))
        if self.dialect == "vllm":
            totals = {name: sum(samples[name]) for name in _VLLM_COUNTERS if samples.get(name)}
            point["prefix_cache_hit_rate"] = self._ratio(totals, PREFIX_HITS, PREFIX_QUERIES, 0.0)
            point["spec_accept_length"] = self._ratio(totals, ACCEPTED_TOKENS, DRAFTS, 1.0)
            self._last = totals
        self.times_s.append(at_s)
        for series in SERIES:
            self.values.setdefault(series, [None] * (len(self.times_s) - 1)).append(point.get(series))

    def _ratio(self, totals: Mapping[str, float], top: str, bottom: str, offset: float) -> float | None:
        """offset + Δtop ÷ Δbottom since the previous scrape (None before a second scrape,
        when nothing happened in between, or when a counter went down)."""
        if top not in totals or bottom not in totals or top not in self._last or bottom not in self._last:
            return None
        d_top, d_bottom = totals[top] - self._last[top], totals[bottom] - self._last[bottom]
        if d_bottom <= 0 or d_top < 0:
            return None
        return offset + d_top / d_bottom

    def present(self) -> list[str]:
        """The series the server exported at least once."""
        return [s for s in SERIES if any(v is not None for v in self.values.get(s, []))]

    def summary(self) -> dict[str, dict[str, float]]:
        """Mean and maximum of each series over the scrapes, and how many had a value."""
        result: dict[str, dict[str, float]] = {}
        for series in self.present():
            known = [v for v in self.values[series] if v is not None]
            result[series] = {"mean": sum(known) / len(known), "max": max(known), "points": float(len(known))}
        return result

    def to_dict(self) -> dict[str, Any]:
        return {
            "dialect": self.dialect,
            "interval_s": self.interval_s,
            "times_s": list(self.times_s),
            "series": {s: list(self.values[s]) for s in self.present()},
            "summary": self.summary(),
        }
