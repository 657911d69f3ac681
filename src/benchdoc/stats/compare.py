"""Comparing a candidate sample against a baseline: shift, its interval, a test, a verdict."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from benchdoc.errors import UsageError
from benchdoc.stats._checks import as_values, check_alpha, check_direction, check_level, check_margin
from benchdoc.stats.ranktest import mann_whitney
from benchdoc.stats.shift import shift
from benchdoc.stats.summary import Summary, summarize

Verdict = Literal["better", "worse", "same", "equivalent", "insufficient", "undecided"]
VERDICTS: tuple[str, ...] = ("better", "worse", "same", "equivalent", "insufficient", "undecided")

TEST_NAME = "Mann-Whitney U, two-sided"
EQUIVALENCE_TEST_NAME = "two one-sided Mann-Whitney U tests (TOST) against the baseline scaled by 1 ± margin"
# Largest run count searched when asking how many runs each side needs.
_MAX_RUNS_SEARCHED = 10_000


@dataclass(frozen=True)
class Sequential:
    """How a sequential test (`run --until-decided`) ended for the candidate's run."""

    repetitions: int  # the candidate's runs when it stopped
    shares: int  # alpha was split into this many equal shares, one per look
    decision: str | None  # "significant", "equivalent", or None: stopped undecided


@dataclass(frozen=True)
class Comparison:
    """Candidate ``a`` against baseline ``b`` for one metric.

    ``delta_pct`` is the Hodges-Lehmann shift in percent: the median over all pairs of
    (a_i / b_j - 1) * 100 (on the log scale; see ``benchdoc.stats.shift``), signed,
    whatever the direction; ``delta_ci_low``/``delta_ci_high`` bound it by inverting
    the same rank test, so delta, interval and test agree. ``median_delta_pct`` is the
    plain ratio of medians, kept for reference. ``p_value`` is the two-sided
    Mann-Whitney U p-value (``test_method`` says exact or approximate). A sequential
    test scales it by its number of looks (``p_sequential``); a family correction
    adjusts that (``p_adjusted``, ``correction``), and the verdict uses the last one.
    """

    candidate: Summary
    baseline: Summary
    direction: str
    ratio: float
    delta_pct: float
    median_delta_pct: float
    confidence: float
    delta_ci_low: float | None
    delta_ci_high: float | None
    delta_ci_coverage: float | None
    delta_ci_reason: str | None
    scale: str  # "log" (a ratio) or "difference" (a side has values <= 0)
    test: str
    test_method: str
    u_statistic: float
    p_value: float
    alpha: float
    alpha_left: float | None  # set when a correction leaves a level these sizes cannot reach
    min_attainable_p: float
    runs_needed: int | None  # set when the sample sizes can never reach alpha_left
    equivalence_margin: float | None  # a fraction: 0.01 is ±1%
    equivalence_p: float | None
    sequential: Sequential | None
    p_sequential: float | None
    equivalence_p_sequential: float | None
    p_adjusted: float | None
    equivalence_p_adjusted: float | None
    correction: str | None
    significant: bool
    equivalent: bool | None  # None when no margin was given or sizes are insufficient
    verdict: Verdict

    @property
    def p_tested(self) -> float:
        """The p-value before any family correction (after the sequential one, if any)."""
        return self.p_sequential if self.p_sequential is not None else self.p_value

    @property
    def equivalence_p_tested(self) -> float | None:
        return self.equivalence_p_sequential if self.equivalence_p_sequential is not None else self.equivalence_p

    @property
    def p_used(self) -> float:
        """The p-value the verdict was decided on (adjusted when a correction applies)."""
        return self.p_adjusted if self.p_adjusted is not None else self.p_tested

    @property
    def p_label(self) -> str:
        """What adjusted the p-value shown: '', ' holm-adjusted', ' sequential'."""
        if self.p_adjusted is not None and self.correction:
            return f" {self.correction}-adjusted"
        return " sequential" if self.p_sequential is not None else ""

    @property
    def medians_disagree(self) -> bool:
        """A significant shift one way while the medians moved the other way."""
        return self.significant and self.delta_pct * self.median_delta_pct < 0

    def verdict_text(self, better_word: str = "faster", worse_word: str = "slower", digits: int = 1) -> str:
        """The verdict in words: '3.8% faster', '~ (no significant difference, p=0.41)',
        'equivalent within ±1%', 'need >= 4 runs each', 'undecided after 20 runs (sequential test)'."""
        if self.verdict == "undecided":
            assert self.sequential is not None
            return f"undecided after {self.sequential.repetitions} runs (sequential test)"
        if self.verdict == "insufficient":
            return f"need >= {self.runs_needed} runs each"
        if self.verdict in ("better", "worse"):
            word = better_word if self.verdict == "better" else worse_word
            text = f"{abs(self.delta_pct):.{digits}f}% {word}"
            if self.medians_disagree:
                text += f" (the medians differ the other way: {self.median_delta_pct:+.{digits}f}%)"
            return text
        if self.verdict == "equivalent":
            assert self.equivalence_margin is not None
            return f"equivalent within ±{self.equivalence_margin * 100:g}%"
        return f"~ (no significant difference, p={format_p(self.p_used)}{self.p_label})"

    def redecided(self, **changes: object) -> Comparison:
        """The same comparison with ``changes`` applied and its verdict derived again."""
        updated = dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        significant, equivalent, verdict = _decide(updated)
        return dataclasses.replace(updated, significant=significant, equivalent=equivalent, verdict=verdict)

    def with_adjusted(
        self,
        p_adjusted: float,
        correction: str,
        equivalence_p_adjusted: float | None = None,
        alpha_left: float | None = None,
    ) -> Comparison:
        """The same comparison re-decided on p-values adjusted for multiple comparisons.

        ``alpha_left``, given when the correction leaves this comparison a level its
        sample sizes cannot reach, makes the verdict ``insufficient`` with the runs
        needed at that level.
        """
        level = self.alpha if alpha_left is None else float(alpha_left)
        return self.redecided(
            p_adjusted=float(p_adjusted),
            equivalence_p_adjusted=None if equivalence_p_adjusted is None else float(equivalence_p_adjusted),
            correction=correction,
            alpha_left=None if alpha_left is None else level,
            runs_needed=_runs_needed_at(self.min_attainable_p, level) if self.sequential is None else None,
        )


def compare(
    a: Sequence[float],
    b: Sequence[float],
    *,
    direction: str = "higher",
    alpha: float = 0.05,
    confidence: float = 0.95,
    equivalence_margin: float | None = None,
    candidate_summary: Summary | None = None,
    baseline_summary: Summary | None = None,
) -> Comparison:
    """Compare candidate ``a`` against baseline ``b``.

    ``candidate_summary``/``baseline_summary`` may pass summaries of ``a`` and ``b``
    already computed at this ``confidence`` (a project compares thousands of them).

    The verdict is, in order:

    - ``insufficient`` when the sample sizes can never give p <= alpha (even with every
      candidate value beyond every baseline value); ``runs_needed`` is then the smallest
      equal size per side from which every larger size could, with the same test;
    - ``better``/``worse`` when the Mann-Whitney p-value is <= alpha, read through
      ``direction`` ('higher': a larger value is better; 'lower': a smaller one is) from
      the sign of the shift, which agrees with the side the test found;
    - ``equivalent`` when not significantly different and, with ``equivalence_margin``
      given, equivalence is shown by TOST: two one-sided Mann-Whitney tests, a against
      the baseline scaled by (1 - margin) ("a is not lower than that") and by
      (1 + margin) ("a is not higher than that"), both at alpha. A significant
      difference that also lies within the margin keeps its better/worse verdict;
      ``equivalent`` still records that it is practically negligible;
    - ``same`` otherwise: no significant difference (printed ``~``).

    The p-values are exact permutation p-values (ties included) up to 20 runs on the
    smaller side, the normal approximation with tie correction beyond
    (``benchdoc.stats.ranktest``).
    """
    check_direction(direction)
    level = check_alpha(alpha)
    check_level(confidence)
    margin = check_margin(equivalence_margin)
    values_a = as_values(a, "candidate")
    values_b = as_values(b, "baseline")
    summary_a = _reuse(candidate_summary, values_a, confidence)
    summary_b = _reuse(baseline_summary, values_b, confidence)
    if summary_b.median <= 0 or summary_a.median < 0:
        raise UsageError(
            "a ratio needs a positive baseline median and a non-negative candidate median, "
            f"got {summary_a.median:g} against {summary_b.median:g}"
        )
    return _tested(summary_a, summary_b, direction=direction, alpha=level, confidence=confidence, margin=margin).redecided()


def _tested(
    summary_a: Summary, summary_b: Summary, *, direction: str, alpha: float, confidence: float, margin: float | None
) -> Comparison:
    """The tests and the shift estimate of two checked samples, before any verdict."""
    import numpy as np

    array_a = np.asarray(summary_a.values, dtype=float)
    array_b = np.asarray(summary_b.values, dtype=float)
    test = mann_whitney(array_a, array_b)
    equivalence_p = None
    if margin is not None:
        p_not_lower = mann_whitney(array_a, array_b * (1 - margin), "greater").p_value
        p_not_higher = mann_whitney(array_a, array_b * (1 + margin), "less").p_value
        equivalence_p = max(p_not_lower, p_not_higher)
    min_p = min_attainable_p(len(array_a), len(array_b))
    estimate = shift(array_a, array_b, summary_b.median, confidence)
    return Comparison(
        candidate=summary_a,
        baseline=summary_b,
        direction=direction,
        ratio=1.0 + estimate.delta_pct / 100.0,
        delta_pct=estimate.delta_pct,
        median_delta_pct=(summary_a.median / summary_b.median - 1.0) * 100.0,
        confidence=float(confidence),
        delta_ci_low=estimate.ci_low,
        delta_ci_high=estimate.ci_high,
        delta_ci_coverage=estimate.ci_coverage,
        delta_ci_reason=estimate.ci_reason,
        scale=estimate.scale,
        test=TEST_NAME,
        test_method=test.method,
        u_statistic=test.u,
        p_value=test.p_value,
        alpha=alpha,
        alpha_left=None,
        min_attainable_p=min_p,
        runs_needed=_runs_needed_at(min_p, alpha),
        equivalence_margin=margin,
        equivalence_p=equivalence_p,
        sequential=None,
        p_sequential=None,
        equivalence_p_sequential=None,
        p_adjusted=None,
        equivalence_p_adjusted=None,
        correction=None,
        significant=False,
        equivalent=None,
        verdict="same",
    )


def _reuse(summary: Summary | None, values: list[float], confidence: float) -> Summary:
    """The given summary when it is of these values at this level, else a new one."""
    if summary is not None and summary.confidence == confidence and list(summary.values) == values:
        return summary
    return summarize(values, confidence)


def min_attainable_p(n_a: int, n_b: int) -> float:
    """The smallest two-sided p-value the test can give for these sample sizes.

    Computed, not tabulated: the test is run on the most extreme arrangement (every
    candidate value above every baseline value, no ties).
    """
    if n_a < 1 or n_b < 1:
        raise UsageError(f"sample sizes must be at least 1, got {n_a} and {n_b}")
    return _min_attainable_p(int(n_a), int(n_b))


@lru_cache(maxsize=1024)  # a pure function of two sizes, asked for again on every comparison
def _min_attainable_p(n_a: int, n_b: int) -> float:
    above = [float(n_b + i) for i in range(n_a)]
    below = [float(i) for i in range(n_b)]
    return mann_whitney(above, below).p_value


def runs_needed(alpha: float = 0.05) -> int:
    """The smallest N such that p <= alpha is attainable with n runs each for every n >= N.

    Found by search, not by assuming the attainable p falls as n grows: it does not where
    the exact test hands over to the normal approximation (20 runs each reach 1.5e-11,
    21 each only 3e-8).
    """
    return _runs_needed(check_alpha(alpha))


@lru_cache(maxsize=256)
def _runs_needed(level: float) -> int:
    from benchdoc.stats.ranktest import EXACT_MAX_SMALLER

    # Beyond the exact range the approximate floor falls steadily with n: the first
    # size that reaches the level there is where every larger size does too.
    first_approximate = EXACT_MAX_SMALLER + 1
    low, high = first_approximate, first_approximate
    while min_attainable_p(high, high) > level:
        low, high = high, high * 2
        if high > _MAX_RUNS_SEARCHED:
            raise UsageError(f"alpha {level!r} is too small to reach with up to {_MAX_RUNS_SEARCHED} runs each")
    while low < high:  # the smallest approximate size that reaches the level
        middle = (low + high) // 2
        if min_attainable_p(middle, middle) <= level:
            high = middle
        else:
            low = middle + 1
    needed = high
    if needed > first_approximate:  # a size just above the exact range fails: no smaller N holds
        return needed
    for n in range(first_approximate - 1, 0, -1):  # extend downwards while every size reaches it
        if min_attainable_p(n, n) > level:
            break
        needed = n
    return needed


def _runs_needed_at(min_p: float, level: float) -> int | None:
    """None when ``min_p`` reaches ``level``; otherwise the runs each side needs."""
    return runs_needed(level) if min_p > level else None


def format_p(p: float) -> str:
    """A p-value for people: two significant digits, '<0.001' below that."""
    if p < 0.001:
        return "<0.001"
    return f"{p:.2g}"


def _decide(comparison: Comparison) -> tuple[bool, bool | None, Verdict]:
    """(significant, equivalent, verdict) from a comparison's p-values and direction."""
    if comparison.sequential is not None and comparison.sequential.decision is None:
        return False, None, "undecided"
    if comparison.runs_needed is not None:
        return False, None, "insufficient"
    significant = comparison.p_used <= comparison.alpha
    equivalent = None
    p_equivalence = (
        comparison.equivalence_p_adjusted
        if comparison.equivalence_p_adjusted is not None
        else comparison.equivalence_p_tested
    )
    if p_equivalence is not None:
        equivalent = p_equivalence <= comparison.alpha
    if significant:
        return True, equivalent, _direction_verdict(comparison)
    if equivalent:
        return False, True, "equivalent"
    return False, equivalent, "same"


def _direction_verdict(comparison: Comparison) -> Verdict:
    """'better' or 'worse' for a significant difference, read through the direction."""
    if comparison.delta_pct != 0:
        candidate_higher = comparison.delta_pct > 0
    else:
        # A zero shift yet a significant rank difference (heavy ties): the side the
        # test found is where more pairs lie.
        pairs = comparison.candidate.n * comparison.baseline.n
        candidate_higher = comparison.u_statistic > pairs / 2.0
    higher_is_better = comparison.direction == "higher"
    return "better" if candidate_higher == higher_is_better else "worse"


__all__ = [
    "Comparison",
    "EQUIVALENCE_TEST_NAME",
    "Sequential",
    "TEST_NAME",
    "VERDICTS",
    "Verdict",
    "compare",
    "format_p",
    "min_attainable_p",
    "runs_needed",
]
