"""How much larger the candidate is than the baseline, as the rank test sees it.

The estimate is the Hodges-Lehmann shift on the log scale: the median, over every pair
(candidate run, baseline run), of log(candidate / baseline) — so the ratio reported is
the median of all pairwise ratios. Its interval inverts the Mann-Whitney test: the
k-th smallest and k-th largest pairwise log-ratios, k taken from the exact null
distribution of U, so its coverage is what it claims (for a multiplicative shift) at any
sample size it is shown for. The estimate, the interval and the test all rank the same
pairs, so they cannot point in different directions: the shift is positive exactly when
more pairs have the candidate above than below, which is what the test measures.

When a side has a value <= 0 (an error count of 0, say) logs do not exist; the shift is
then taken on the values themselves and expressed relative to the baseline median.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from benchdoc.stats._checks import percent
from benchdoc.stats.ranktest import null_u_cdf, uses_exact

if TYPE_CHECKING:
    import numpy as np

# Pairwise differences held in memory at once (about 32 MB of float64); larger samples
# find the order statistics they need by bisection on the value instead.
_MAX_PAIRS_IN_MEMORY = 4_000_000

LOG_SCALE = "log"
DIFFERENCE_SCALE = "difference"


@dataclass(frozen=True)
class Shift:
    """The shift estimate as a percentage of the baseline, with its interval."""

    delta_pct: float
    ci_low: float | None
    ci_high: float | None
    ci_coverage: float | None  # the interval's exact coverage (>= the level asked for)
    ci_reason: str | None  # why there is no interval
    scale: str  # LOG_SCALE or DIFFERENCE_SCALE


def shift(a: np.ndarray, b: np.ndarray, baseline_median: float, confidence: float) -> Shift:
    """The Hodges-Lehmann shift of ``a`` over ``b`` in percent, and its interval at ``confidence``."""
    import numpy as np

    on_log = bool(np.all(a > 0) and np.all(b > 0))
    x, y = (np.log(a), np.log(b)) if on_log else (a, b)

    def to_pct(value: float) -> float:
        return float(np.expm1(value) * 100.0) if on_log else float(value / baseline_median * 100.0)

    m, n = len(x), len(y)
    pairs = m * n
    middle = _pairwise_order_stats(x, y, sorted({(pairs + 1) // 2, pairs // 2 + 1}))
    estimate = to_pct(sum(middle) / len(middle))
    scale = LOG_SCALE if on_log else DIFFERENCE_SCALE
    k, coverage = interval_rank(m, n, confidence)
    if k is None:
        reason = f"interval needs >= {runs_for_interval(confidence)} runs each for {percent(confidence)} coverage"
        return Shift(estimate, None, None, None, reason, scale)
    low, high = _pairwise_order_stats(x, y, [k, pairs - k + 1])
    return Shift(estimate, to_pct(low), to_pct(high), coverage, None, scale)


def interval_rank(m: int, n: int, confidence: float) -> tuple[int | None, float | None]:
    """(k, coverage): the interval [d(k), d(mn-k+1)] of the sorted pairwise differences
    with the largest k whose coverage 1 - 2 P(U <= k-1) still reaches ``confidence``;
    (None, None) when even the widest, [d(1), d(mn)], does not."""
    return _interval_rank(int(m), int(n), float(confidence))


@lru_cache(maxsize=1024)
def _interval_rank(m: int, n: int, confidence: float) -> tuple[int | None, float | None]:
    import numpy as np

    if uses_exact(m, n):
        cdf = null_u_cdf(m, n)
        coverages = 1.0 - 2.0 * cdf[: (m * n + 1) // 2]  # index u = k - 1
        reaching = np.nonzero(coverages >= confidence)[0]
        if reaching.size == 0:
            return None, None
        last = int(reaching[-1])  # coverage falls as k grows
        return last + 1, float(coverages[last])
    from scipy.stats import norm

    # Large samples: U is close to normal with mean mn/2 and variance mn(m+n+1)/12.
    z = float(norm.ppf(0.5 + confidence / 2.0))
    k = int(np.floor(m * n / 2.0 - z * np.sqrt(m * n * (m + n + 1) / 12.0)))
    return (k, float(confidence)) if k >= 1 else (None, None)


def runs_for_interval(confidence: float) -> int:
    """The smallest equal number of runs per side whose widest interval reaches ``confidence``."""
    n = 1
    while interval_rank(n, n, confidence)[0] is None:
        n += 1
    return n


def _pairwise_order_stats(x: np.ndarray, y: np.ndarray, ranks: list[int]) -> list[float]:
    """The given 1-based order statistics of all differences x_i - y_j."""
    import numpy as np

    if len(x) * len(y) <= _MAX_PAIRS_IN_MEMORY:
        differences = np.subtract.outer(x, y).ravel()
        chosen = np.partition(differences, [r - 1 for r in ranks])
        return [float(chosen[r - 1]) for r in ranks]
    return [_order_stat_by_bisection(np.sort(x), np.sort(y), r) for r in ranks]


def _order_stat_by_bisection(x: np.ndarray, y: np.ndarray, rank: int) -> float:
    """The rank-th smallest x_i - y_j without forming all pairs: the smallest t with
    at least ``rank`` differences <= t, found by bisection on t (to float resolution)."""
    import numpy as np

    def at_most(t: float) -> int:  # differences <= t: y_j >= x_i - t
        return int(len(x) * len(y) - np.searchsorted(y, x - t, side="left").sum())

    low, high = float(x[0] - y[-1]), float(x[-1] - y[0])
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if at_most(middle) >= rank:
            high = middle
        else:
            low = middle
    return high


__all__ = ["DIFFERENCE_SCALE", "LOG_SCALE", "Shift", "interval_rank", "runs_for_interval", "shift"]
