"""Welch's t on two sides' per-start means: the estimate, its p-values and its intervals.

Everything here is read off one (difference, standard error, degrees of freedom)
triple, so a p-value, the interval beside it and the equivalence test can never
disagree: the (1 - level) interval excludes 0 exactly when the two-sided p-value is
<= level, and TOST at level a declares equivalence exactly when the (1 - 2a) interval
lies inside the margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchdoc.stats.starts import Starts


@dataclass(frozen=True)
class Welch:
    """The difference of means (candidate - baseline), its standard error and Welch's df."""

    difference: float
    se: float
    df: float

    def p_value(self) -> float:
        """Two-sided p-value of 'no difference'."""
        from scipy.special import stdtr

        if self.se == 0:
            return 1.0 if self.difference == 0 else 0.0
        return float(min(1.0, 2.0 * stdtr(self.df, -abs(self.difference) / self.se)))

    def one_sided_above(self, bound: float) -> float:
        """p of 'the difference is <= bound' (small when it is clearly above)."""
        from scipy.special import stdtr

        if self.se == 0:
            return 0.0 if self.difference > bound else 1.0
        return float(stdtr(self.df, -(self.difference - bound) / self.se))

    def one_sided_below(self, bound: float) -> float:
        """p of 'the difference is >= bound' (small when it is clearly below)."""
        from scipy.special import stdtr

        if self.se == 0:
            return 0.0 if self.difference < bound else 1.0
        return float(stdtr(self.df, (self.difference - bound) / self.se))

    def interval(self, level: float) -> tuple[float, float]:
        """The two-sided interval at confidence ``level`` (0 < level < 1)."""
        from scipy.special import stdtrit

        if self.se == 0:
            return self.difference, self.difference
        half = float(stdtrit(self.df, 0.5 + level / 2.0)) * self.se
        return self.difference - half, self.difference + half


def welch(a: Starts, b: Starts) -> Welch | None:
    """Welch's test of a's start means against b's; None unless each side has two starts."""
    var_a, var_b = a.variance, b.variance
    if var_a is None or var_b is None:
        return None
    share_a, share_b = var_a / a.n, var_b / b.n
    se2 = share_a + share_b
    difference = a.mean - b.mean
    if se2 <= 0:
        return Welch(difference, 0.0, float(a.n + b.n - 2))
    # Welch-Satterthwaite; a side with no spread contributes nothing to the denominator.
    denominator = sum(s * s / (side.n - 1) for s, side in ((share_a, a), (share_b, b)) if s > 0)
    return Welch(difference, math.sqrt(se2), se2 * se2 / denominator)


__all__ = ["Welch", "welch"]
