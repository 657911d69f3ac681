"""Comparing a candidate sample against a baseline: delta, its interval, a test, a verdict."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from benchdoc.errors import UsageError
from benchdoc.stats._checks import as_values, check_alpha, check_direction, check_level, check_margin
from benchdoc.stats.summary import Summary, summarize

if TYPE_CHECKING:
    import numpy as np

Verdict = Literal["better", "worse", "same", "equivalent", "insufficient"]
VERDICTS: tuple[str, ...] = ("better", "worse", "same", "equivalent", "insufficient")

TEST_NAME = "Mann-Whitney U, two-sided"
EQUIVALENCE_TEST_NAME = "two one-sided Mann-Whitney U tests (TOST) against the baseline scaled by 1 ± margin"
DEFAULT_BOOTSTRAP = 10_000
# Largest run count searched when asking how many runs each side needs.
_MAX_RUNS_SEARCHED = 10_000
# Resampled values held in memory at once by the bootstrap (about 16 MB of float64).
_BOOTSTRAP_CHUNK_VALUES = 2_000_000


@dataclass(frozen=True)
class Comparison:
    """Candidate ``a`` against baseline ``b`` for one metric.

    ``delta_pct`` is (median(a) / median(b) - 1) * 100, signed, whatever the direction;
    the verdict reads it through ``direction``. ``delta_ci_low``/``delta_ci_high`` bound
    it (percentile bootstrap of the ratio of medians, seeded). ``p_value`` is the
    two-sided Mann-Whitney U p-value; when a family of comparisons was corrected,
    ``p_adjusted`` and ``correction`` say so and the verdict uses the adjusted value.
    """

    candidate: Summary
    baseline: Summary
    direction: str
    ratio: float
    delta_pct: float
    confidence: float
    delta_ci_low: float | None
    delta_ci_high: float | None
    delta_ci_reason: str | None
    bootstrap_resamples: int
    seed: int
    test: str
    p_value: float
    alpha: float
    min_attainable_p: float
    runs_needed: int | None  # set when the sample sizes can never reach significance
    equivalence_margin: float | None  # a fraction: 0.01 is ±1%
    equivalence_p: float | None
    p_adjusted: float | None
    equivalence_p_adjusted: float | None
    correction: str | None
    significant: bool
    equivalent: bool | None  # None when no margin was given or sizes are insufficient
    verdict: Verdict

    @property
    def p_used(self) -> float:
        """The p-value the verdict was decided on (adjusted when a correction applies)."""
        return self.p_adjusted if self.p_adjusted is not None else self.p_value

    def verdict_text(self, better_word: str = "faster", worse_word: str = "slower", digits: int = 1) -> str:
        """The verdict in words: '3.8% faster', '~ (no significant difference, p=0.41)',
        'equivalent within ±1%', 'need >= 4 runs each'."""
        if self.verdict == "insufficient":
            return f"need >= {self.runs_needed} runs each"
        if self.verdict in ("better", "worse"):
            word = better_word if self.verdict == "better" else worse_word
            return f"{abs(self.delta_pct):.{digits}f}% {word}"
        if self.verdict == "equivalent":
            assert self.equivalence_margin is not None
            return f"equivalent within ±{self.equivalence_margin * 100:g}%"
        adjusted = f" {self.correction}-adjusted" if self.p_adjusted is not None else ""
        return f"~ (no significant difference, p={format_p(self.p_used)}{adjusted})"

    def with_adjusted(
        self, p_adjusted: float, correction: str, equivalence_p_adjusted: float | None = None
    ) -> Comparison:
        """The same comparison re-decided on p-values adjusted for multiple comparisons."""
        adjusted = dataclasses.replace(
            self,
            p_adjusted=float(p_adjusted),
            equivalence_p_adjusted=None if equivalence_p_adjusted is None else float(equivalence_p_adjusted),
            correction=correction,
        )
        significant, equivalent, verdict = _decide(adjusted)
        return dataclasses.replace(adjusted, significant=significant, equivalent=equivalent, verdict=verdict)


def compare(
    a: Sequence[float],
    b: Sequence[float],
    *,
    direction: str = "higher",
    alpha: float = 0.05,
    confidence: float = 0.95,
    equivalence_margin: float | None = None,
    seed: int = 0,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    candidate_summary: Summary | None = None,
    baseline_summary: Summary | None = None,
) -> Comparison:
    """Compare candidate ``a`` against baseline ``b``.

    ``candidate_summary``/``baseline_summary`` may pass summaries of ``a`` and ``b``
    already computed at this ``confidence`` (a project compares thousands of them).

    The verdict is, in order:

    - ``insufficient`` when the sample sizes can never give p <= alpha (even with every
      candidate value beyond every baseline value); ``runs_needed`` is then the smallest
      equal size per side that could, computed with the same test;
    - ``better``/``worse`` when the Mann-Whitney p-value is <= alpha, read through
      ``direction`` ('higher': a larger value is better; 'lower': a smaller one is);
    - ``equivalent`` when not significantly different and, with ``equivalence_margin``
      given, equivalence is shown by TOST: two one-sided Mann-Whitney tests, a against
      the baseline scaled by (1 - margin) ("a is not lower than that") and by
      (1 + margin) ("a is not higher than that"), both at alpha. A rank test like the
      difference test, so neither assumes normal noise. A significant difference that
      also lies within the margin keeps its better/worse verdict; ``equivalent`` still
      records that it is practically negligible;
    - ``same`` otherwise: no significant difference (printed ``~``).

    The p-value uses scipy's default method: exact for small samples without ties, the
    normal approximation with tie correction otherwise.
    """
    import numpy as np
    from scipy.stats import mannwhitneyu

    check_direction(direction)
    level = check_alpha(alpha)
    check_level(confidence)
    margin = check_margin(equivalence_margin)
    if n_bootstrap < 1:
        raise UsageError(f"bootstrap resamples must be at least 1, got {n_bootstrap}")
    values_a = as_values(a, "candidate")
    values_b = as_values(b, "baseline")
    summary_a = _reuse(candidate_summary, values_a, confidence)
    summary_b = _reuse(baseline_summary, values_b, confidence)
    if summary_b.median <= 0 or summary_a.median < 0:
        raise UsageError(
            "a ratio needs a positive baseline median and a non-negative candidate median, "
            f"got {summary_a.median:g} against {summary_b.median:g}"
        )
    ratio = summary_a.median / summary_b.median
    array_a = np.asarray(values_a, dtype=float)
    array_b = np.asarray(values_b, dtype=float)
    p_value = _p_or_one(mannwhitneyu(array_a, array_b, alternative="two-sided").pvalue)
    equivalence_p = None
    if margin is not None:
        p_not_lower = _p_or_one(mannwhitneyu(array_a, array_b * (1 - margin), alternative="greater").pvalue)
        p_not_higher = _p_or_one(mannwhitneyu(array_a, array_b * (1 + margin), alternative="less").pvalue)
        equivalence_p = max(p_not_lower, p_not_higher)
    min_p = min_attainable_p(len(values_a), len(values_b))
    ci_low, ci_high, ci_reason = _bootstrap_delta_ci(array_a, array_b, confidence, seed, n_bootstrap)
    undecided = Comparison(
        candidate=summary_a,
        baseline=summary_b,
        direction=direction,
        ratio=ratio,
        delta_pct=(ratio - 1.0) * 100.0,
        confidence=float(confidence),
        delta_ci_low=ci_low,
        delta_ci_high=ci_high,
        delta_ci_reason=ci_reason,
        bootstrap_resamples=n_bootstrap,
        seed=seed,
        test=TEST_NAME,
        p_value=p_value,
        alpha=level,
        min_attainable_p=min_p,
        runs_needed=runs_needed(level) if min_p > level else None,
        equivalence_margin=margin,
        equivalence_p=equivalence_p,
        p_adjusted=None,
        equivalence_p_adjusted=None,
        correction=None,
        significant=False,
        equivalent=None,
        verdict="same",
    )
    significant, equivalent, verdict = _decide(undecided)
    return dataclasses.replace(undecided, significant=significant, equivalent=equivalent, verdict=verdict)


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
    from scipy.stats import mannwhitneyu

    above = [float(n_b + i) for i in range(n_a)]
    below = [float(i) for i in range(n_b)]
    return _p_or_one(mannwhitneyu(above, below, alternative="two-sided").pvalue)


def runs_needed(alpha: float = 0.05) -> int:
    """The smallest equal number of runs per side for which p <= alpha is attainable."""
    level = check_alpha(alpha)
    for n in range(1, _MAX_RUNS_SEARCHED + 1):
        if min_attainable_p(n, n) <= level:
            return n
    raise UsageError(f"alpha {alpha!r} is too small to reach with up to {_MAX_RUNS_SEARCHED} runs each")


def format_p(p: float) -> str:
    """A p-value for people: two significant digits, '<0.001' below that."""
    if p < 0.001:
        return "<0.001"
    return f"{p:.2g}"


def _decide(comparison: Comparison) -> tuple[bool, bool | None, Verdict]:
    """(significant, equivalent, verdict) from a comparison's p-values and direction."""
    if comparison.runs_needed is not None:
        return False, None, "insufficient"
    significant = comparison.p_used <= comparison.alpha
    equivalent = None
    if comparison.equivalence_p is not None:
        p_equivalence = (
            comparison.equivalence_p_adjusted
            if comparison.equivalence_p_adjusted is not None
            else comparison.equivalence_p
        )
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
        # Equal medians yet a significant rank difference: follow the means, which then
        # carry the shift the test found.
        candidate_higher = comparison.candidate.mean > comparison.baseline.mean
    higher_is_better = comparison.direction == "higher"
    return "better" if candidate_higher == higher_is_better else "worse"


def _p_or_one(p: float) -> float:
    """scipy gives NaN when every value is tied; that is no evidence of a difference."""
    value = float(p)
    return 1.0 if value != value else value


def _bootstrap_delta_ci(
    a: np.ndarray, b: np.ndarray, confidence: float, seed: int, n_bootstrap: int
) -> tuple[float | None, float | None, str | None]:
    """Percentile bootstrap interval of (median(a*)/median(b*) - 1) * 100, resampling each side.

    Vectorized in chunks so a large sample cannot exhaust memory; one generator seeded
    with ``seed`` makes the interval the same for the same input.
    """
    import numpy as np

    if len(a) < 2 or len(b) < 2:
        return None, None, "need >= 2 samples on each side for an interval of the delta"
    rng = np.random.default_rng(seed)
    chunk = max(1, _BOOTSTRAP_CHUNK_VALUES // (len(a) + len(b)))
    deltas = np.empty(n_bootstrap, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        for start in range(0, n_bootstrap, chunk):
            size = min(chunk, n_bootstrap - start)
            medians_a = np.median(a[rng.integers(0, len(a), size=(size, len(a)))], axis=1)
            medians_b = np.median(b[rng.integers(0, len(b), size=(size, len(b)))], axis=1)
            deltas[start : start + size] = (medians_a / medians_b - 1.0) * 100.0
    if not np.all(np.isfinite(deltas)):
        return None, None, "the baseline resamples to a zero median; no interval of the ratio"
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(deltas, [tail, 100.0 - tail])
    return float(low), float(high), None


__all__ = [
    "Comparison",
    "DEFAULT_BOOTSTRAP",
    "TEST_NAME",
    "EQUIVALENCE_TEST_NAME",
    "VERDICTS",
    "Verdict",
    "compare",
    "format_p",
    "min_attainable_p",
    "runs_needed",
]
