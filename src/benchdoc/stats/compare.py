"""Comparing a candidate against a baseline at the level of server starts: shift, its
interval, a test, a verdict.

Each side's values are grouped by the server start that measured them
(``benchdoc.stats.starts``); each start becomes one mean on the log scale, and Welch's
t-test compares the two sides' start means (``benchdoc.stats.welch``). The shift, its
interval, the p-value and the equivalence test are all read off that one test, at the
level the test is decided at (after a sequential test's share and a family correction),
so no interval shown can disagree with the verdict beside it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from benchdoc.errors import UsageError
from benchdoc.stats._checks import as_values, check_alpha, check_direction, check_level, check_margin
from benchdoc.stats.starts import LOG_SCALE, Components, Starts, analysis_scale, components, group
from benchdoc.stats.summary import Summary, summarize
from benchdoc.stats.welch import Welch, welch

Verdict = Literal["better", "worse", "same", "equivalent", "insufficient", "undecided"]
VERDICTS: tuple[str, ...] = ("better", "worse", "same", "equivalent", "insufficient", "undecided")

TEST_NAME = "Welch's t-test on the per-start means of log values, two-sided"
EQUIVALENCE_TEST_NAME = "two one-sided Welch tests (TOST): the 1 - 2α interval inside ± margin"
# The fewest server starts a side needs before start-to-start variation can be measured.
MIN_STARTS = 2
# The power a suggested design aims at.
DESIGN_POWER = 0.8
MAX_STARTS_SUGGESTED = 1000


@dataclass(frozen=True)
class Sequential:
    """How a sequential test (`run --until-decided`) ended for the candidate."""

    repetitions: int  # the candidate's starts (or repetitions, in older records) when it stopped
    shares: int  # alpha was split into this many equal shares, one per look
    decision: str | None  # "significant", "equivalent", or None: stopped undecided
    decided_on: str | None = None  # set on another metric of the run: the one the test decided on
    starts: int | None = None  # the candidate's server starts when it stopped (None in older records)


@dataclass(frozen=True)
class Comparison:
    """Candidate ``a`` against baseline ``b`` for one metric, at the level of server starts.

    ``delta_pct`` is the ratio of the two sides' geometric means of per-start means, in
    percent (on the log scale; on the value scale, relative to the baseline, when a side
    has a value <= 0). ``delta_ci_low``/``delta_ci_high`` is the interval that matches the
    verdict: at ``1 - level`` for a direction or an inconclusive result (``level`` the
    one the test is decided at: alpha, divided by a sequential test's shares, lowered by
    the family correction), and the TOST interval ``1 - 2 level`` for ``equivalent``.
    ``delta_ci_level`` is its confidence. ``p_value`` is Welch's two-sided p of the
    start means; a sequential test scales it by its looks (``p_sequential``); a family
    correction adjusts that (``p_adjusted``).
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
    delta_ci_level: float | None
    delta_ci_reason: str | None
    scale: str  # "log" (a ratio) or "difference" (a side has values <= 0)
    test: str
    test_method: str  # "welch", or why no test could be made
    starts_candidate: int
    starts_baseline: int
    estimate: Welch | None  # on the analysis scale; None with fewer than MIN_STARTS a side
    within_delta: float  # the difference of start means on the analysis scale (exists with one start)
    baseline_centre: float  # the baseline's mean of start means (value scale), for the difference scale
    components: Components
    p_value: float
    alpha: float
    alpha_left: float | None  # the level a family correction leaves this comparison (before a sequential share)
    starts_needed: int | None  # starts each side would need to decide (the suggested design)
    equivalence_margin: float | None  # a fraction: 0.01 is ±1%
    equivalence_p: float | None
    equivalence_alpha_left: float | None
    sequential: Sequential | None
    p_sequential: float | None
    equivalence_p_sequential: float | None
    p_adjusted: float | None
    equivalence_p_adjusted: float | None
    correction: str | None
    significant: bool
    equivalent: bool | None  # None when no margin was given or no test could be made
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
        if self.p_adjusted is not None and self.correction and self.correction != "none":
            return f" {self.correction}-adjusted"
        return " sequential" if self.p_sequential is not None else ""

    @property
    def single_start(self) -> bool:
        """Each side is one server start: the configuration cannot be told from the start."""
        return self.starts_candidate < MIN_STARTS and self.starts_baseline < MIN_STARTS

    @property
    def level(self) -> float:
        """The two-sided level the difference is tested at, on the raw p-value."""
        shares = self.sequential.shares if self.sequential is not None else 1
        return (self.alpha_left if self.alpha_left is not None else self.alpha) / shares

    @property
    def equivalence_level(self) -> float:
        """The level each one-sided equivalence test is run at."""
        shares = self.sequential.shares if self.sequential is not None else 1
        left = self.equivalence_alpha_left if self.equivalence_alpha_left is not None else self.alpha
        return left / shares

    @property
    def medians_disagree(self) -> bool:
        """A significant shift one way while the medians moved the other way."""
        return self.significant and self.delta_pct * self.median_delta_pct < 0

    def to_pct(self, value: float) -> float:
        """A difference on the analysis scale as a percentage of the baseline."""
        if self.scale == LOG_SCALE:
            return math.expm1(value) * 100.0
        return value / self.baseline_centre * 100.0

    def redecided(self, **changes: object) -> Comparison:
        """The same comparison with ``changes`` applied and its verdict derived again."""
        updated = dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        return _decided(updated)

    def with_adjusted(
        self,
        p_adjusted: float,
        correction: str,
        equivalence_p_adjusted: float | None = None,
        alpha_left: float | None = None,
        equivalence_alpha_left: float | None = None,
    ) -> Comparison:
        """The same comparison re-decided within a corrected family: ``alpha_left`` is
        the largest p_tested the correction would still declare, the others as they are;
        the interval shown is then the one at that level."""
        return self.redecided(
            p_adjusted=float(p_adjusted),
            equivalence_p_adjusted=None if equivalence_p_adjusted is None else float(equivalence_p_adjusted),
            correction=correction,
            alpha_left=None if alpha_left is None else float(alpha_left),
            equivalence_alpha_left=None if equivalence_alpha_left is None else float(equivalence_alpha_left),
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
    candidate_starts: Sequence[Hashable] | None = None,
    baseline_starts: Sequence[Hashable] | None = None,
) -> Comparison:
    """Compare candidate ``a`` against baseline ``b``.

    ``candidate_starts``/``baseline_starts`` label the server start of each value
    (parallel to ``a`` and ``b``); without them every value is its own start, as for
    values that are already one per start. ``candidate_summary``/``baseline_summary``
    may pass summaries of ``a`` and ``b`` already computed at this ``confidence``.

    The verdict is, in order:

    - ``insufficient`` when a side has fewer than two starts: start-to-start variation
      is not measured, so the configuration cannot be told from its start;
    - ``better``/``worse`` when the interval at the tested level excludes 0 (Welch's p
      <= that level), read through ``direction`` from the sign of the shift;
    - ``equivalent`` when, with ``equivalence_margin`` given, the 1 - 2·level interval
      lies inside ± margin (TOST). A significant difference that also lies within the
      margin keeps its better/worse verdict and records ``equivalent``;
    - ``same`` otherwise: inconclusive (never "no difference"), with ``starts_needed``
      the starts each side would need to decide it (see :func:`starts_needed`).
    """
    check_direction(direction)
    level = check_alpha(alpha)
    check_level(confidence)
    margin = check_margin(equivalence_margin)
    values_a = as_values(a, "candidate")
    values_b = as_values(b, "baseline")
    summary_a = _reuse(candidate_summary, values_a, confidence, candidate_starts)
    summary_b = _reuse(baseline_summary, values_b, confidence, baseline_starts)
    if summary_b.median <= 0 or summary_a.median < 0:
        raise UsageError(
            "a ratio needs a positive baseline median and a non-negative candidate median, "
            f"got {summary_a.median:g} against {summary_b.median:g}"
        )
    scale = analysis_scale(values_a, values_b)
    try:
        starts_a = group(values_a, candidate_starts, scale)
        starts_b = group(values_b, baseline_starts, scale)
    except ValueError as err:
        raise UsageError(str(err)) from None
    tested = _tested(summary_a, summary_b, starts_a, starts_b, scale, direction=direction, alpha=level, margin=margin)
    return _decided(dataclasses.replace(tested, confidence=float(confidence)))


def _tested(
    summary_a: Summary, summary_b: Summary, starts_a: Starts, starts_b: Starts, scale: str,
    *, direction: str, alpha: float, margin: float | None,
) -> Comparison:
    """The test of two checked sides, before any verdict."""
    estimate = welch(starts_a, starts_b)
    centre = (
        math.exp(starts_b.mean) if scale == LOG_SCALE else starts_b.mean
    )
    within = starts_a.mean - starts_b.mean
    equivalence_p = None
    if estimate is not None and margin is not None:
        low, high = _margin_bounds(margin, scale, centre)
        equivalence_p = max(estimate.one_sided_above(low), estimate.one_sided_below(high))
    return Comparison(
        candidate=summary_a,
        baseline=summary_b,
        direction=direction,
        ratio=1.0,
        delta_pct=0.0,
        median_delta_pct=(summary_a.median / summary_b.median - 1.0) * 100.0,
        confidence=0.95,
        delta_ci_low=None,
        delta_ci_high=None,
        delta_ci_level=None,
        delta_ci_reason=None,
        scale=scale,
        test=TEST_NAME,
        test_method="welch" if estimate is not None else "fewer than two starts a side",
        starts_candidate=starts_a.n,
        starts_baseline=starts_b.n,
        estimate=estimate,
        within_delta=within,
        baseline_centre=centre if centre != 0 else 1.0,
        components=components(starts_a, starts_b, scale, centre),
        p_value=estimate.p_value() if estimate is not None else 1.0,
        alpha=alpha,
        alpha_left=None,
        starts_needed=None,
        equivalence_margin=margin,
        equivalence_p=equivalence_p,
        equivalence_alpha_left=None,
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


def _margin_bounds(margin: float, scale: str, centre: float) -> tuple[float, float]:
    """The equivalence margin on the analysis scale: (low, high) around 0."""
    if scale == LOG_SCALE:
        return math.log1p(-margin), math.log1p(margin)
    return -margin * abs(centre), margin * abs(centre)


def _reuse(
    summary: Summary | None, values: list[float], confidence: float, starts: Sequence[Hashable] | None
) -> Summary:
    """The given summary when it is of these values at this level, else a new one."""
    if summary is not None and summary.confidence == confidence and list(summary.values) == values:
        return summary
    try:
        return summarize(values, confidence, starts)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _decided(c: Comparison) -> Comparison:
    """``c`` with its interval, verdict and suggested design derived from its levels."""
    shown = c.estimate.difference if c.estimate is not None else c.within_delta
    base = dataclasses.replace(c, delta_pct=c.to_pct(shown), ratio=1.0 + c.to_pct(shown) / 100.0)
    if c.sequential is not None and c.sequential.decision is None:
        return _with_interval(base, None, "undecided", False, None, None)
    if c.estimate is None:
        reason = f"need >= {MIN_STARTS} server starts each to measure start-to-start variation"
        return dataclasses.replace(
            base, delta_ci_low=None, delta_ci_high=None, delta_ci_level=None, delta_ci_reason=reason,
            significant=False, equivalent=None, verdict="insufficient", starts_needed=MIN_STARTS,
        )
    level = c.level
    low, high = c.estimate.interval(1.0 - level)
    significant = low > 0 or high < 0
    equivalent, tost = _equivalence(c)
    if significant:
        verdict: Verdict = _direction_verdict(c.estimate.difference, c.direction)
        return _with_interval(base, (low, high, 1.0 - level), verdict, True, equivalent, None)
    if equivalent:
        assert tost is not None
        return _with_interval(base, tost, "equivalent", False, True, None)
    bounds = _margin_bounds(c.equivalence_margin, c.scale, c.baseline_centre) if c.equivalence_margin else None
    needed = starts_needed(c.estimate, c.starts_candidate, c.starts_baseline, level, bounds)
    return _with_interval(base, (low, high, 1.0 - level), "same", False, equivalent, needed)


def _equivalence(c: Comparison) -> tuple[bool | None, tuple[float, float, float] | None]:
    """(equivalent, the TOST interval) at the comparison's equivalence level."""
    if c.estimate is None or c.equivalence_margin is None:
        return None, None
    level = c.equivalence_level
    if 2.0 * level >= 1.0:
        return False, None
    low, high = c.estimate.interval(1.0 - 2.0 * level)
    lowest, highest = _margin_bounds(c.equivalence_margin, c.scale, c.baseline_centre)
    return (lowest < low and high < highest), (low, high, 1.0 - 2.0 * level)


def _with_interval(
    c: Comparison, interval: tuple[float, float, float] | None, verdict: Verdict,
    significant: bool, equivalent: bool | None, needed: int | None,
) -> Comparison:
    if interval is None:
        low = high = level = None
    else:
        low, high, level = c.to_pct(interval[0]), c.to_pct(interval[1]), interval[2]
    return dataclasses.replace(
        c, delta_ci_low=low, delta_ci_high=high, delta_ci_level=level, delta_ci_reason=None,
        significant=significant, equivalent=equivalent, verdict=verdict, starts_needed=needed,
    )


def _direction_verdict(difference: float, direction: str) -> Verdict:
    """'better' or 'worse' for a significant difference, read through the direction."""
    return "better" if (difference > 0) == (direction == "higher") else "worse"


def starts_needed(
    estimate: Welch,
    starts_a: int,
    starts_b: int,
    level: float,
    margin: tuple[float, float] | None = None,
    power: float = DESIGN_POWER,
) -> int | None:
    """Starts each side would need, with start means as spread as these, for the test at
    ``level`` to find a shift the size of this estimate with probability ``power`` or,
    given the equivalence ``margin`` (bounds on the analysis scale), for TOST to show a
    shift this size inside it (Kalibera & Jones dimension a benchmark the same way).
    The fewer of the two; None when neither is reachable within MAX_STARTS_SUGGESTED."""
    import numpy as np
    from scipy.special import stdtrit

    spread2 = estimate.se**2 / (1.0 / starts_a + 1.0 / starts_b)  # the variance of one start's mean
    size = abs(estimate.difference)
    room = min(margin[1] - size, size - margin[0]) if margin is not None else 0.0
    sizes = np.arange(max(MIN_STARTS, min(starts_a, starts_b)), MAX_STARTS_SUGGESTED + 1)
    df = 2.0 * sizes - 2.0
    spread = np.sqrt(2.0 * spread2 / sizes)
    found = np.zeros(len(sizes), dtype=bool)
    if size > 0:
        found |= (stdtrit(df, 1.0 - level / 2.0) + stdtrit(df, power)) * spread <= size
    if room > 0:
        found |= (stdtrit(df, 1.0 - level) + stdtrit(df, 0.5 + power / 2.0)) * spread <= room
    hits = np.nonzero(found)[0]
    return int(sizes[hits[0]]) if hits.size else None


def format_p(p: float) -> str:
    """A p-value for people: two significant digits, '<0.001' below that."""
    if p < 0.001:
        return "<0.001"
    return f"{p:.2g}"


__all__ = [
    "Comparison",
    "EQUIVALENCE_TEST_NAME",
    "MAX_STARTS_SUGGESTED",
    "MIN_STARTS",
    "Sequential",
    "TEST_NAME",
    "VERDICTS",
    "Verdict",
    "compare",
    "format_p",
    "starts_needed",
]
