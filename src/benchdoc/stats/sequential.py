"""A comparison read through the sequential test that decided when its runs stopped.

`benchdoc run --until-decided` looks at the comparison after each planned look, each at
alpha / K (Bonferroni alpha spending over K looks), and stops at the first decision. The
fixed-sample p-value of the data it stopped with is then no longer a valid p-value: the
number of starts depended on it. The valid one scales it by K, which is exactly the
per-look level the run decided at; that is the p every view shows. The interval shown
is drawn at the same level (1 - alpha / K, lowered further by a family correction):
a repeated confidence interval, which covers the true shift at every look at once and so
after a stop chosen by the data too. A run that stopped undecided stays undecided,
whatever its last p-value.
"""

from __future__ import annotations

from benchdoc.errors import UsageError
from benchdoc.stats.compare import Comparison, Sequential


def read_sequentially(comparison: Comparison, outcome: Sequential) -> Comparison:
    """``comparison`` (of the data the sequential test stopped with) decided as that test did."""
    if outcome.shares < 1:
        raise UsageError(f"a sequential test needs at least one look, got {outcome.shares}")
    if outcome.decision not in (None, "significant", "equivalent"):
        raise UsageError(f"unknown sequential decision {outcome.decision!r}")
    equivalence = comparison.equivalence_p
    return comparison.redecided(
        sequential=outcome,
        p_sequential=min(1.0, comparison.p_value * outcome.shares),
        equivalence_p_sequential=None if equivalence is None else min(1.0, equivalence * outcome.shares),
    )


__all__ = ["read_sequentially"]
