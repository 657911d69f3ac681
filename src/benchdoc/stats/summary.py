"""Summaries of one sample: centre, spread, an interval for the median, flagged outliers."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from benchdoc.stats._checks import as_values, check_level, percent

if TYPE_CHECKING:
    import numpy as np

# Fences outside the quartiles, in IQRs, by sample size: Tukey's "far out" 3 IQR from 7
# values on, wider below, where the quartiles of a few values are themselves noisy. Each
# flags at least one value in at most about 5% of clean normal samples of its size
# (measured by benchmarks/stats_power.py); Tukey's 1.5 flagged one in 26-40%.
OUTLIER_IQR_FACTOR = 3.0
_SMALL_SAMPLE_FACTORS = {5: 6.0, 6: 3.5}
# Fewer values than this: no value can be told an outlier.
OUTLIER_MIN_VALUES = 5
# The spread used is never below this share of the median: a value within about a percent of
# identical others ([100, 100, 100, 100, 101]) is resolution, not an outlier.
OUTLIER_MIN_SPREAD = 0.0025


@dataclass(frozen=True)
class Summary:
    """What one sample says about a metric. Every number is a plain Python float.

    ``median`` is the centre benchdoc reports; ``ci_low``/``ci_high`` bound the median at
    ``confidence`` (actual coverage ``ci_coverage`` >= confidence for the order-statistic
    interval; None for the interval over server starts, whose coverage is nominal), or are
    None with ``ci_reason`` saying why. ``ci_method`` says which interval it is.
    ``outliers`` are indices into the input, flagged, never dropped.
    """

    n: int
    median: float
    mean: float
    stdev: float | None  # sample standard deviation (ddof=1); None when n < 2
    cv: float | None  # stdev / |mean|; None when stdev is None or mean is 0
    min: float
    max: float
    confidence: float
    ci_low: float | None
    ci_high: float | None
    ci_coverage: float | None
    ci_reason: str | None
    outliers: tuple[int, ...]
    values: tuple[float, ...] = field(repr=False, default=())
    ci_method: str = "order statistics"  # or "server starts": over the medians of several starts
    starts: int | None = None  # the server starts the values come from, when known

    @property
    def centre(self) -> float:
        """The centre benchdoc reports (the median)."""
        return self.median

    @property
    def ci_halfwidth_pct(self) -> float | None:
        """The interval's larger half-width as a percentage of the median (the "± 1%")."""
        if self.ci_low is None or self.ci_high is None or self.median == 0:
            return None
        half = max(self.median - self.ci_low, self.ci_high - self.median)
        return half / abs(self.median) * 100.0


def summarize(
    values: Iterable[float], confidence: float = 0.95, starts: Sequence[Hashable] | None = None
) -> Summary:
    """Summarize one sample: n, median, mean, stdev, cv, min/max, a CI of the median, outliers.

    The interval for the median is the exact binomial order-statistic interval
    [x(k), x(n-k+1)], with k the largest rank whose coverage
    P(k <= Binomial(n, 1/2) <= n-k) is still >= ``confidence``. It is chosen over a
    bootstrap because it is distribution-free, needs no resampling (same answer every
    time, no seed), and its coverage is guaranteed rather than approximate — the
    bootstrap of a median under-covers badly at the 3-10 runs a GPU benchmark affords.
    Its price is that small samples get no interval: at 95% it needs 6 values, and the
    Summary then says so in ``ci_reason`` instead of showing a misleading one.

    ``starts`` labels the server start of each value. When the values come from several
    starts and some start holds several of them, they are not independent (repetitions
    of one start share its clocks and memory layout), and an interval over them would be
    far too narrow; the interval is then Student's t on the log of the per-start medians
    (see :func:`_start_interval`), which holds whatever the start-to-start variance.
    """
    import numpy as np

    level = check_level(confidence)
    data = as_values(values, "summary")
    array = np.asarray(data, dtype=float)
    n = len(data)
    stdev = float(np.std(array, ddof=1)) if n >= 2 else None
    mean = float(np.mean(array))
    cv = stdev / abs(mean) if stdev is not None and mean != 0 else None
    median = float(np.median(array))
    groups = _by_start(data, starts)
    method = "order statistics"
    ci_low: float | None
    ci_high: float | None
    coverage: float | None
    reason: str | None
    if groups is not None and len(groups) >= 2 and any(len(g) > 1 for g in groups):
        ci_low, ci_high = _start_interval(groups, level, median)
        coverage, reason, method = None, None, "server starts"
    else:  # independent values (each its own start), or one start: the order statistics
        ci_low, ci_high, coverage, reason = _median_interval(array, level)
    return Summary(
        n=n,
        median=median,
        mean=mean,
        stdev=stdev,
        cv=cv,
        min=float(np.min(array)),
        max=float(np.max(array)),
        confidence=level,
        ci_low=ci_low,
        ci_high=ci_high,
        ci_coverage=coverage,
        ci_reason=reason,
        outliers=outlier_indices(data),
        values=tuple(data),
        ci_method=method,
        starts=len(groups) if groups is not None else None,
    )


def _by_start(data: list[float], starts: Sequence[Hashable] | None) -> list[list[float]] | None:
    """The values grouped by server start, in order of first appearance (None: not known)."""
    if starts is None:
        return None
    if len(starts) != len(data):
        raise ValueError(f"{len(starts)} start labels for {len(data)} values")
    groups: dict[Hashable, list[float]] = {}
    for value, start in zip(data, starts):
        groups.setdefault(start, []).append(value)
    return list(groups.values())


def _start_interval(groups: list[list[float]], level: float, median: float) -> tuple[float, float]:
    """Student's t interval at ``level`` over the per-start medians (on their logs when all
    are positive, so it is a ratio around their geometric mean), widened to hold the pooled
    ``median`` shown beside it. Each start is one independent draw of the configuration,
    so k starts give k - 1 degrees of freedom however many repetitions each ran."""
    import numpy as np
    from scipy.special import stdtrit

    medians = np.asarray([float(np.median(g)) for g in groups], dtype=float)
    log = bool(np.all(medians > 0))
    points = np.log(medians) if log else medians
    k = len(points)
    half = float(stdtrit(k - 1, 0.5 + level / 2.0)) * float(np.std(points, ddof=1)) / float(np.sqrt(k))
    centre = float(np.mean(points))
    low, high = centre - half, centre + half
    if log:
        low, high = float(np.exp(low)), float(np.exp(high))
    return min(low, median), max(high, median)


def min_samples_for_interval(confidence: float = 0.95) -> int:
    """The smallest n whose widest order-statistic interval [min, max] reaches ``confidence``."""
    return _min_samples_for_interval(check_level(confidence))


@lru_cache(maxsize=64)
def _min_samples_for_interval(level: float) -> int:
    n = 1
    while _coverage(n, 1) < level:
        n += 1
    return n


def outlier_factor(n: int) -> float | None:
    """How many IQRs outside the quartiles a value of a sample of ``n`` must lie to be
    flagged; None when ``n`` is too small to tell."""
    if n < OUTLIER_MIN_VALUES:
        return None
    return _SMALL_SAMPLE_FACTORS.get(n, OUTLIER_IQR_FACTOR)


def outlier_indices(values: Iterable[float]) -> tuple[int, ...]:
    """Indices of values beyond the fences: ``outlier_factor(n)`` IQRs outside the quartiles,
    the IQR taken as at least 0.25% of the median."""
    import numpy as np

    data = as_values(values, "outlier check")
    factor = outlier_factor(len(data))
    if factor is None:
        return ()
    array = np.asarray(data, dtype=float)
    q1, q3 = (float(q) for q in np.percentile(array, [25.0, 75.0]))
    spread = factor * max(q3 - q1, OUTLIER_MIN_SPREAD * abs(float(np.median(array))))
    low, high = q1 - spread, q3 + spread
    return tuple(i for i, value in enumerate(data) if value < low or value > high)


def _coverage(n: int, k: int) -> float:
    """Coverage of [x(k), x(n-k+1)] for the median: P(k <= Binomial(n, 1/2) <= n-k)."""
    from scipy.special import bdtr  # the binomial CDF as a plain ufunc (no distribution-object overhead)

    if 2 * k > n:
        return 0.0
    return float(bdtr(n - k, n, 0.5) - bdtr(k - 1, n, 0.5))


def _median_interval(array: np.ndarray, level: float) -> tuple[float | None, float | None, float | None, str | None]:
    """(low, high, coverage, reason): the narrowest order-statistic interval reaching ``level``."""
    import numpy as np
    from scipy.special import bdtr

    ordered = np.sort(array)
    n = len(ordered)
    ranks = np.arange(1, n // 2 + 1)  # k: the interval [x(k), x(n-k+1)]
    coverages = bdtr(n - ranks, n, 0.5) - bdtr(ranks - 1, n, 0.5)
    reaching = np.nonzero(coverages >= level)[0]
    if reaching.size == 0:
        needed = min_samples_for_interval(level)
        return None, None, None, f"need >= {needed} samples for a {percent(level)} interval"
    # Coverage falls as k grows, so the last k that still reaches the level is the narrowest.
    k = int(ranks[reaching[-1]])
    return float(ordered[k - 1]), float(ordered[n - k]), float(coverages[reaching[-1]]), None
