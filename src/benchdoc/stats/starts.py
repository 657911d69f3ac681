"""Values grouped by the server start that measured them, and what the starts tell.

Repetitions within one server start share its GPU clocks, memory layout, communication
rings and compiled graphs, so they are not independent draws: two starts of the same
configuration differ more than two repetitions of one start do. The unit a comparison
can generalise over is therefore the start (Kalibera & Jones 2013; Hurlbert 1984 calls
treating the repetitions as replicates pseudo-replication). Each start is summarised by
the mean of its repetitions on the analysis scale (the log of the values when all are
positive), and those per-start means are what a comparison tests.

The variance components follow Kalibera & Jones: the within-start variance is the
pooled variance of repetitions around their start's mean; the between-start variance is
the variance of the start means less the share the within-start noise explains
(``S_w^2 / r``), never below zero.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

LOG_SCALE = "log"
DIFFERENCE_SCALE = "difference"


@dataclass(frozen=True)
class Starts:
    """One side of a comparison at the level of its server starts (on the analysis scale)."""

    means: tuple[float, ...]  # one per start, in first-seen order
    repetitions: tuple[int, ...]  # repetitions behind each mean
    within_ss: float  # sum of squared deviations of repetitions from their start's mean
    within_df: int  # sum over starts of (repetitions - 1)

    @property
    def n(self) -> int:
        return len(self.means)

    @property
    def mean(self) -> float:
        return math.fsum(self.means) / len(self.means)

    @property
    def variance(self) -> float | None:
        """The sample variance of the start means (None with one start)."""
        if self.n < 2:
            return None
        centre = self.mean
        return math.fsum((m - centre) ** 2 for m in self.means) / (self.n - 1)


@dataclass(frozen=True)
class Components:
    """Between-start and within-start spread, as coefficients of variation (fractions)."""

    between_cv: float | None  # None when no side has two starts
    within_cv: float | None  # None when no start has two repetitions
    repetitions: int  # the typical repetitions per start (the median)


def analysis_scale(a: Sequence[float], b: Sequence[float]) -> str:
    """The log scale when every value is positive (a ratio), else plain differences."""
    return LOG_SCALE if all(v > 0 for v in a) and all(v > 0 for v in b) else DIFFERENCE_SCALE


def group(values: Sequence[float], labels: Sequence[Hashable] | None, scale: str) -> Starts:
    """``values`` grouped by their start ``labels`` (None: every value is its own start)."""
    keys: Sequence[Hashable] = labels if labels is not None else range(len(values))
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} start labels for {len(values)} values")
    grouped: dict[Hashable, list[float]] = {}
    for key, value in zip(keys, values):
        grouped.setdefault(key, []).append(math.log(value) if scale == LOG_SCALE else float(value))
    means, counts, within_ss, within_df = [], [], 0.0, 0
    for members in grouped.values():
        centre = math.fsum(members) / len(members)
        means.append(centre)
        counts.append(len(members))
        within_ss += math.fsum((v - centre) ** 2 for v in members)
        within_df += len(members) - 1
    return Starts(tuple(means), tuple(counts), within_ss, within_df)


def components(a: Starts, b: Starts, scale: str, baseline_centre: float) -> Components:
    """Kalibera & Jones's variance components, pooled over both sides (same hardware, same
    kind of start): CVs on the log scale are the standard deviations themselves."""
    reps = sorted(a.repetitions + b.repetitions)
    typical = reps[len(reps) // 2]
    within_df = a.within_df + b.within_df
    within_var = (a.within_ss + b.within_ss) / within_df if within_df else None
    between_parts = [(s.n - 1, s.variance) for s in (a, b) if s.variance is not None]
    between_var = None
    if between_parts:
        df = sum(part[0] for part in between_parts)
        means_var = sum(part[0] * (part[1] or 0.0) for part in between_parts) / df
        mean_reps = sum(a.repetitions + b.repetitions) / (a.n + b.n)
        between_var = max(0.0, means_var - (within_var or 0.0) / mean_reps)

    def cv(variance: float | None) -> float | None:
        if variance is None or (scale != LOG_SCALE and baseline_centre == 0):
            return None  # a spread relative to a mean of zero is no coefficient of variation
        spread = math.sqrt(variance)
        return spread if scale == LOG_SCALE else spread / abs(baseline_centre)

    return Components(cv(between_var), cv(within_var), typical)


__all__ = ["Components", "DIFFERENCE_SCALE", "LOG_SCALE", "Starts", "analysis_scale", "components", "group"]
