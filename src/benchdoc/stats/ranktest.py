"""The Mann-Whitney U test: an exact permutation p-value for small samples, ties included.

Under the null hypothesis every way of splitting the pooled values into a candidate
group of m and a baseline group of n is equally likely. The exact p-value counts, over
all C(m + n, m) splits, those whose candidate rank sum is at least as extreme as the
observed one. Ranks are midranks, so tied values share a rank and the count stays exact
with ties. Doubled midranks are integers, and a dynamic programme over the pooled
values counts the splits by (group size, rank sum) without listing them.

Two-sided p = min(1, 2 * min(P(S >= s), P(S <= s))), the same definition as
``scipy.stats.permutation_test``; with no ties it equals scipy's ``mannwhitneyu``
with ``method="exact"``. Beyond ``EXACT_MAX_SMALLER`` runs on the smaller side (or
``EXACT_MAX_TOTAL`` together) the normal approximation with tie and continuity
correction is used instead, where it is accurate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np

Alternative = Literal["two-sided", "greater", "less"]

# The exact count is used when the smaller side has at most this many values ...
EXACT_MAX_SMALLER = 20
# ... and both sides together at most this many (the count's table grows with both).
EXACT_MAX_TOTAL = 100

EXACT = "exact permutation"
ASYMPTOTIC = "normal approximation with tie correction"


@dataclass(frozen=True)
class RankTest:
    """A Mann-Whitney U p-value and how it was computed."""

    p_value: float
    u: float  # the candidate's U: pairs (a_i, b_j) with a_i > b_j, ties counting one half
    method: str  # EXACT or ASYMPTOTIC


def uses_exact(m: int, n: int) -> bool:
    """Whether samples of these sizes get the exact permutation p-value."""
    return min(m, n) <= EXACT_MAX_SMALLER and m + n <= EXACT_MAX_TOTAL


def mann_whitney(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, alternative: Alternative = "two-sided"
) -> RankTest:
    """Test whether ``a`` tends to be larger ('greater'), smaller ('less') or either than ``b``."""
    import numpy as np

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    m, n = len(x), len(y)
    doubled = _doubled_midranks(np.concatenate([x, y]))
    observed = int(doubled[:m].sum())
    u = observed / 2.0 - m * (m + 1) / 2.0
    if not uses_exact(m, n):
        return RankTest(_normal_p(u, m, n, doubled, alternative), u, ASYMPTOTIC)
    counts = _sum_counts(m, tuple(int(r) for r in np.sort(doubled)))
    total = float(counts.sum())
    at_most = float(counts[: observed + 1].sum()) / total
    at_least = float(counts[observed:].sum()) / total
    if alternative == "greater":
        p = at_least
    elif alternative == "less":
        p = at_most
    else:
        p = 2.0 * min(at_least, at_most)
    return RankTest(min(1.0, p), u, EXACT)


def _normal_p(u: float, m: int, n: int, doubled: np.ndarray, alternative: Alternative) -> float:
    """The normal approximation of U's null distribution, with the variance reduced for
    ties and a continuity correction of 1/2 (the same as scipy's ``method="asymptotic"``)."""
    import numpy as np

    total = m + n
    _, ties = np.unique(doubled, return_counts=True)
    tie_term = float(np.sum(ties.astype(float) ** 3 - ties)) / (total * (total - 1))
    variance = m * n / 12.0 * ((total + 1) - tie_term)
    if variance <= 0:
        return 1.0  # every value tied: no evidence either way
    centre = m * n / 2.0
    if alternative == "greater":
        excess = u - centre
    elif alternative == "less":
        excess = centre - u
    else:
        excess = abs(u - centre)
    tail = 0.5 * math.erfc((excess - 0.5) / math.sqrt(variance) / math.sqrt(2.0))
    return min(1.0, 2.0 * tail if alternative == "two-sided" else tail)


def _doubled_midranks(values: np.ndarray) -> np.ndarray:
    """Twice each value's rank, tied values sharing the mean of their ranks (integers).

    A group of equal values holding sorted places s..e (0-based) has mean rank
    (s + e + 2) / 2; with c values ending at cumulative count t that doubles to 2t - c + 1.
    Plain numpy: this runs for every comparison of a project.
    """
    import numpy as np

    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (2 * ends - counts + 1)[inverse].astype(np.int64)


@lru_cache(maxsize=256)  # untied samples of one size pair share one table; ties vary
def _sum_counts(m: int, doubled_ranks: tuple[int, ...]) -> np.ndarray:
    """counts[s]: how many size-m subsets of the pooled values have doubled rank sum s.

    Counts are float64: exact up to 2**53 (C(56, 28) and beyond lose only the last
    bits, which a p-value never shows).
    """
    import numpy as np

    top = sum(sorted(doubled_ranks)[-m:]) if m else 0
    table = np.zeros((m + 1, top + 1), dtype=float)
    table[0, 0] = 1.0
    for rank in doubled_ranks:
        # Taking this value into the subset: size k-1 -> k, sum s -> s + rank. The
        # right-hand side is evaluated before assignment, so each value is used once.
        table[1:, rank:] += table[:-1, : top + 1 - rank].copy()
    counts = table[m]
    counts.setflags(write=False)
    return counts


def null_u_cdf(m: int, n: int) -> np.ndarray:
    """P(U <= u) for u = 0..m*n under the null hypothesis, untied samples (exact)."""
    return _null_u_cdf(int(m), int(n))


@lru_cache(maxsize=256)
def _null_u_cdf(m: int, n: int) -> np.ndarray:
    import numpy as np

    # Untied ranks 1..m+n doubled; a rank sum S maps to U = S/2 - m(m+1)/2.
    counts = _sum_counts(m, tuple(range(2, 2 * (m + n) + 1, 2)))
    offset = m * (m + 1)  # the smallest doubled rank sum
    by_u = counts[offset::2][: m * n + 1]
    cdf = np.cumsum(by_u) / by_u.sum()
    cdf.setflags(write=False)
    return cdf


__all__ = ["ASYMPTOTIC", "EXACT", "EXACT_MAX_SMALLER", "EXACT_MAX_TOTAL", "RankTest", "mann_whitney", "null_u_cdf", "uses_exact"]
