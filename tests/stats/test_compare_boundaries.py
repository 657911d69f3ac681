"""compare() at its edges: the ratio it reports, a shift exactly on the equivalence margin,
a confidence level out of range, and a baseline whose values average to zero."""

from __future__ import annotations

import math

import pytest

from benchdoc.errors import UsageError
from benchdoc.stats import compare
from benchdoc.stats.welch import Welch

SIDE = [1.0, 1.0004, 0.9996, 1.0002, 0.9998]


@pytest.mark.parametrize("shift", [0.8, 0.97, 1.0, 1.03, 2.5])
def test_the_ratio_is_the_candidate_over_the_baseline(shift: float) -> None:
    c = compare([100 * shift * v for v in SIDE], [100 * v for v in SIDE])
    assert c.ratio == pytest.approx(shift, rel=1e-9)
    assert c.ratio == pytest.approx(1 + c.delta_pct / 100, rel=1e-12)


def test_a_shift_exactly_on_the_margin_is_not_within_it() -> None:
    """Equivalence needs the interval strictly inside ± margin."""
    c = compare([100.0, 100.3, 99.8, 100.1], [100.1, 99.9, 100.2, 99.9], equivalence_margin=0.01)
    assert c.verdict == "equivalent"
    for edge in (math.log1p(-0.01), math.log1p(0.01)):
        on = c.redecided(estimate=Welch(edge, 0.0, 6.0))
        assert on.equivalent is False and on.verdict != "equivalent"
        inside = c.redecided(estimate=Welch(edge * 0.999, 0.0, 6.0))
        assert inside.equivalent is True


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5])
def test_a_confidence_outside_the_open_interval_is_refused(confidence: float) -> None:
    with pytest.raises(UsageError, match="confidence must be between 0 and 1"):
        compare([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], confidence=confidence)


def test_a_baseline_averaging_zero_is_compared_without_dividing_by_zero() -> None:
    """A positive median with values that average to zero (the difference scale): no
    coefficient of variation relative to that zero, and no crash."""
    c = compare([0.2, 0.4, 0.3], [-1.0, 0.5, 0.5])
    assert c.scale == "difference" and c.baseline_centre == 1.0
    assert c.components.between_cv is None and math.isfinite(c.delta_pct)


def test_identical_sides_never_suggest_a_number_of_starts() -> None:
    """No number of starts finds a shift of zero."""
    c = compare([5.0, 5.0, 5.0], [5.0, 5.0, 5.0])
    assert c.verdict == "same" and c.delta_pct == 0.0 and c.starts_needed is None


def test_medians_disagree_only_when_they_moved_the_other_way() -> None:
    import dataclasses

    c = compare([103 * v for v in SIDE], [100 * v for v in SIDE])
    assert c.significant and not c.medians_disagree
    assert not dataclasses.replace(c, median_delta_pct=0.0).medians_disagree
    assert dataclasses.replace(c, median_delta_pct=-0.1).medians_disagree


def test_the_p_label_says_what_adjusted_the_p() -> None:
    from benchdoc.stats import Sequential, adjust_comparisons, read_sequentially

    plain = compare([100.0, 101.5, 100.7, 102.0], [100.2, 99.6, 100.9, 100.1])
    assert plain.p_label == ""
    family = adjust_comparisons({"a": plain, "b": compare([100.0, 100.2, 99.9], [100.1, 99.8, 100.0])}, "holm")
    assert family["a"].p_label == " holm-adjusted"
    uncorrected = adjust_comparisons({"a": plain, "b": compare([100.0, 100.2, 99.9], [100.1, 99.8, 100.0])}, "none")
    assert uncorrected["a"].p_label == ""  # not " none-adjusted"
    assert read_sequentially(plain, Sequential(4, 3, "significant")).p_label == " sequential"


@pytest.mark.parametrize("above", [True, False])
def test_on_the_difference_scale_the_margin_is_a_share_of_the_baseline_on_both_sides(above: bool) -> None:
    low, high = [0.0, 0.001, 0.0, 0.001], [0.05, 0.051, 0.049, 0.05]
    candidate, baseline = (high, low) if above else (low, high)
    far = compare(candidate, baseline, equivalence_margin=0.5)
    assert far.scale == "difference" and far.equivalent is False and far.verdict == ("better" if above else "worse")


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_interval_that_touches_zero_does_not_exclude_it(sign: float) -> None:
    """A shift whose interval at the tested level ends exactly at 0 is not significant:
    "excludes 0" is strict on both sides; a hair further it is, in its own direction."""
    from scipy.special import stdtrit

    c = compare([100.0, 101.5, 100.7, 102.0], [100.2, 99.6, 100.9, 100.1])
    df = 6.0
    half = float(stdtrit(df, 1.0 - c.level / 2.0))  # the (1 - level) interval's half-width at se = 1
    touching = c.redecided(estimate=Welch(sign * half, 1.0, df))
    assert (touching.delta_ci_low if sign > 0 else touching.delta_ci_high) == 0.0
    assert not touching.significant and touching.verdict == "same"
    assert touching.p_value == c.p_value  # the raw p is kept; the verdict is read off the interval
    beyond = c.redecided(estimate=Welch(sign * half * (1 + 1e-9), 1.0, df))
    assert beyond.significant and beyond.verdict == ("better" if sign > 0 else "worse")


def test_with_no_spread_a_one_sided_p_is_zero_or_one() -> None:
    """Identical starts a side (no spread): a difference strictly beyond a bound is certain
    (p = 0); on the bound or short of it, nothing is shown (p = 1), as TOST's strict margin asks."""
    w = Welch(0.02, 0.0, 4.0)
    assert (w.one_sided_above(0.01), w.one_sided_above(0.02), w.one_sided_above(0.03)) == (0.0, 1.0, 1.0)
    assert (w.one_sided_below(0.03), w.one_sided_below(0.02), w.one_sided_below(0.01)) == (0.0, 1.0, 1.0)
