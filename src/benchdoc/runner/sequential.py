"""`--until-decided`: add repetitions until a comparison is decided, without inflating
the false-positive rate.

Testing after every repetition at the full alpha and stopping at the first p <= alpha
("peeking") declares far more differences than alpha promises, because each look is
another chance for noise to cross the line. The rule here spends alpha over the planned
looks in equal shares (Bonferroni, the simplest alpha-spending plan): with K looks,
each is tested at alpha / K, so by the union bound the chance that ANY look declares a
difference that is not there is at most alpha, whatever the test and however the looks
are correlated. It is conservative (Pocock's constant boundary would be a little less
strict for normal data), but it needs no distributional assumption, and the same split
makes the intervals of all looks hold at once (repeated confidence intervals).

The looks count server starts (the unit a comparison counts), and the baseline counts by
its starts. Looks where the test cannot be made at all (fewer than two server starts on a
side) are not taken, and do not count in K: a look that can never reject spends nothing. K is the smallest count for which the looks that can
reject at alpha / K number at most K. The same per-look level decides equivalence (TOST
within the metric's margin), so "equivalent" is equally protected.

Pure functions over numbers: the runner and the benchmark in ``benchmarks/`` share them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from benchdoc.ledger.metadata import SequentialLook, SequentialTest

Decision = Literal["significant", "equivalent"]


@dataclass(frozen=True)
class StoppingPlan:
    """When to look and at what level: ``looks`` are the candidate's server start counts;
    ``baseline_n`` counts the baseline's starts."""

    alpha: float
    first: int  # server starts always run before the first look can happen
    maximum: int
    baseline_n: int
    looks: tuple[int, ...]
    alpha_per_look: float
    shares: int  # K: how many equal shares alpha was split into

    def describe(self) -> str:
        if not self.looks:
            return (
                f"no look can reach significance with {self.maximum} server starts against a baseline of "
                f"{self.baseline_n}; running {self.first}"
            )
        return (
            f"Bonferroni alpha spending: alpha {self.alpha:g} split over {self.shares} looks "
            f"(at {_ranges(self.looks)} server starts), {self.alpha_per_look:.3g} each"
        )


@dataclass(frozen=True)
class Look:
    """One interim comparison of the candidate's values so far against the baseline."""

    repetitions: int  # the candidate's values so far
    p_value: float
    equivalence_p: float | None
    delta_pct: float
    decision: Decision | None
    verdict: str  # the comparison's verdict at the per-look level
    starts: int = 0  # the candidate's server starts so far
    baseline_starts: int = 0  # the baseline's server starts it was compared with


def plan_stopping(alpha: float, first: int, maximum: int, baseline_n: int) -> StoppingPlan:
    """The looks (candidate server start counts in [first, maximum]) and the level of each.

    K is the smallest share count such that the sizes at which a rejection at alpha / K
    is attainable number at most K; looks elsewhere are skipped.
    """
    from benchdoc.stats import MIN_STARTS

    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if first < 1 or maximum < first:
        raise ValueError(f"need 1 <= first ({first}) <= maximum ({maximum})")
    if baseline_n < 1:
        return StoppingPlan(alpha, first, maximum, baseline_n, (), alpha, 0)
    sizes = range(first, maximum + 1)
    floors = {n: 0.0 if min(n, baseline_n) >= MIN_STARTS else 1.0 for n in sizes}
    for shares in range(1, len(sizes) + 1):
        level = alpha / shares
        looks = tuple(n for n in sizes if floors[n] <= level)
        if len(looks) <= shares:
            return StoppingPlan(alpha, first, maximum, baseline_n, looks, level, shares)
    raise AssertionError("unreachable: with one share per size the condition holds")


def take_look(
    plan: StoppingPlan,
    candidate: Sequence[float],
    baseline: Sequence[float],
    *,
    direction: str = "higher",
    equivalence_margin: float | None = None,
    candidate_starts: Sequence[Hashable] | None = None,
    baseline_starts: Sequence[Hashable] | None = None,
) -> Look:
    """Compare at the plan's per-look level and say whether the question is decided; the
    starts label the server start of each value (None: every value a start of its own)."""
    from benchdoc.stats import compare

    comparison = compare(
        candidate,
        baseline,
        direction=direction,
        alpha=plan.alpha_per_look,
        equivalence_margin=equivalence_margin,
        candidate_starts=candidate_starts,
        baseline_starts=baseline_starts,
    )
    decision: Decision | None = None
    if comparison.significant:
        decision = "significant"
    elif comparison.equivalent:
        decision = "equivalent"
    return Look(
        repetitions=len(candidate),
        p_value=comparison.p_value,
        equivalence_p=comparison.equivalence_p,
        delta_pct=comparison.delta_pct,
        decision=decision,
        verdict=comparison.verdict,
        starts=comparison.starts_candidate,
        baseline_starts=comparison.starts_baseline,
    )


def stopping_record(
    plan: StoppingPlan | None,
    looks: Sequence[Look],
    decision: Decision | str | None,
    *,
    compare_to: str | None,
    metric: str | None,
    baseline_runs: Sequence[int],
    baseline_n: int,
    alpha: float,
    max_repetitions: int,
    notes: Sequence[str] = (),
) -> SequentialTest:
    """What a run records of its sequential test (``metadata.until_decided``).

    Views read it back (``benchdoc.results``) to show the run as the test decided it:
    ``shares`` and ``decision``, the runs of ``compare_to`` it looked at (and how many of
    their starts: a baseline running alongside goes on for other candidates), and the
    repetitions and starts of the last look.
    """
    last = looks[-1] if looks else None
    return SequentialTest(
        method="bonferroni alpha spending over the planned looks",
        compare_to=compare_to,
        metric=metric,
        baseline_n=baseline_n,
        baseline_runs=tuple(baseline_runs),
        baseline_starts=last.baseline_starts if last is not None else None,
        alpha=alpha,
        alpha_per_look=plan.alpha_per_look if plan else None,
        shares=plan.shares if plan else None,
        looks_planned=tuple(plan.looks) if plan else (),
        max_repetitions=max_repetitions,  # the most server starts (named before looks counted starts)
        looks=tuple(
            SequentialLook(repetitions=look.repetitions, starts=look.starts, p=look.p_value,
                           equivalence_p=look.equivalence_p, delta_pct=look.delta_pct, decision=look.decision)
            for look in looks
        ),
        decision=decision,
        notes=tuple(notes),
    )


def _ranges(values: Sequence[int]) -> str:
    """(5, 6, 7, 9) -> '5-7, 9'."""
    parts: list[str] = []
    start = prev = values[0]
    for value in [*values[1:], None]:
        if value is not None and value == prev + 1:
            prev = value
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if value is not None:
            start = prev = value
    return ", ".join(parts)
