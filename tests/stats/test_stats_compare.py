"""benchdoc.stats.compare: per-start means, Welch's test and the verdict, checked against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import t as student_t
from scipy.stats import ttest_ind

from benchdoc.errors import UsageError
from benchdoc.stats import MIN_STARTS, compare, format_p

BASELINE = [92.4, 92.5, 92.6, 92.7, 92.8]  # one value per start, median 92.6 tok/s
EAGLE = [96.0, 96.05, 96.1, 96.2, 96.3]


def _logs(values: list[float]) -> list[float]:
    return [math.log(v) for v in values]


def test_one_value_per_start_is_welch_on_the_logs() -> None:
    result = compare(EAGLE, BASELINE, direction="higher")
    expected = ttest_ind(_logs(EAGLE), _logs(BASELINE), equal_var=False)
    assert result.p_value == pytest.approx(expected.pvalue)
    gm = math.exp(np.mean(_logs(EAGLE)) - np.mean(_logs(BASELINE)))
    assert result.delta_pct == pytest.approx((gm - 1) * 100)
    assert round(result.delta_pct, 1) == 3.8
    assert result.verdict == "better" and result.significant
    assert result.starts_candidate == 5 and result.starts_baseline == 5
    low, high = expected.confidence_interval(0.95)
    assert result.delta_ci_low == pytest.approx(math.expm1(low) * 100)
    assert result.delta_ci_high == pytest.approx(math.expm1(high) * 100)
    assert result.delta_ci_level == pytest.approx(0.95)


def test_repetitions_of_one_start_are_averaged_not_counted() -> None:
    # Two starts a side, five repetitions each: the test sees two means a side.
    a = [100.0, 100.1, 99.9, 100.0, 100.0, 104.0, 104.1, 103.9, 104.0, 104.0]
    b = [101.0, 101.1, 100.9, 101.0, 101.0, 102.0, 102.1, 101.9, 102.0, 102.0]
    labels = [0] * 5 + [1] * 5
    grouped = compare(a, b, candidate_starts=labels, baseline_starts=labels)
    flat = compare(a, b)
    means_a = [np.mean(_logs(a[:5])), np.mean(_logs(a[5:]))]
    means_b = [np.mean(_logs(b[:5])), np.mean(_logs(b[5:]))]
    assert grouped.p_value == pytest.approx(ttest_ind(means_a, means_b, equal_var=False).pvalue)
    assert grouped.verdict == "same"  # two starts a side, far apart: nothing can be told
    assert flat.starts_candidate == 10 and grouped.starts_candidate == 2
    assert grouped.components.within_cv == pytest.approx(0.0007, abs=0.0002)
    assert grouped.components.between_cv is not None and grouped.components.between_cv > 0.01


def test_one_start_a_side_never_gives_a_direction() -> None:
    a = [104.0, 104.1, 103.9, 104.2, 104.0]
    b = [100.0, 100.1, 99.9, 100.2, 100.0]
    result = compare(a, b, candidate_starts=[0] * 5, baseline_starts=[0] * 5)
    assert result.single_start
    assert result.verdict == "insufficient" and not result.significant
    assert result.starts_needed == MIN_STARTS
    assert result.delta_ci_low is None and "start-to-start" in (result.delta_ci_reason or "")
    assert round(result.delta_pct, 1) == 4.0  # the shift within the starts is still given


def test_one_start_on_one_side_is_insufficient_too() -> None:
    result = compare([104.0, 105.0, 103.0], [100.0, 100.5, 99.8], baseline_starts=[0, 0, 0])
    assert result.verdict == "insufficient" and not result.single_start


def test_lower_is_better_reads_a_drop_as_better_and_keeps_the_signed_delta() -> None:
    result = compare([50.0, 51.0, 49.0, 50.5], [100.0, 101.0, 99.0, 100.5], direction="lower")
    assert result.verdict == "better" and result.delta_pct < 0
    assert result.delta_ci_high is not None and result.delta_ci_high < 0


def test_higher_direction_calls_a_drop_worse() -> None:
    result = compare([50.0, 51.0, 49.0, 50.5], [100.0, 101.0, 99.0, 100.5], direction="higher")
    assert result.verdict == "worse"


def test_inconclusive_is_never_no_difference_and_says_what_would_decide() -> None:
    result = compare([101.5, 104.0, 99.5, 102.0], [100.5, 99.0, 102.0, 100.0])
    assert result.verdict == "same"
    assert result.delta_ci_low is not None and result.delta_ci_high is not None
    assert result.delta_ci_low < 0 < result.delta_ci_high
    assert result.starts_needed is not None and result.starts_needed > 4
    tiny = compare([100.0, 103.0, 98.0, 101.0], [100.5, 99.0, 102.0, 100.0])
    assert tiny.verdict == "same" and tiny.starts_needed is None  # +0.1%: out of reach without a margin


def test_equivalence_needs_the_tost_interval_inside_the_margin() -> None:
    a = [100.0, 100.2, 99.9, 100.1, 100.0, 99.95]
    b = [100.05, 99.9, 100.1, 100.0, 99.95, 100.1]
    result = compare(a, b, equivalence_margin=0.01)
    assert result.verdict == "equivalent" and result.equivalent
    assert result.delta_ci_level == pytest.approx(0.90)  # the 1 - 2 alpha interval shown beside it
    assert -1.0 < result.delta_ci_low < result.delta_ci_high < 1.0  # type: ignore[operator]
    # The same data with a margin too tight for the noise: inconclusive, not equivalent.
    tight = compare(a, b, equivalence_margin=0.0005)
    assert tight.verdict == "same" and tight.equivalent is False


def test_tost_p_matches_two_one_sided_welch_tests() -> None:
    a = [100.0, 100.2, 99.9, 100.1]
    b = [100.05, 99.9, 100.1, 100.0]
    result = compare(a, b, equivalence_margin=0.02)
    la, lb = _logs(a), _logs(b)
    low = ttest_ind(la, [x + math.log(0.98) for x in lb], equal_var=False, alternative="greater").pvalue
    high = ttest_ind(la, [x + math.log(1.02) for x in lb], equal_var=False, alternative="less").pvalue
    assert result.equivalence_p == pytest.approx(max(low, high))


def test_a_significant_but_negligible_difference_keeps_its_direction() -> None:
    a = [100.3, 100.31, 100.29, 100.3, 100.32]
    b = [100.0, 100.01, 99.99, 100.0, 100.02]
    result = compare(a, b, equivalence_margin=0.05)
    assert result.verdict == "better" and result.equivalent is True


def test_the_interval_matches_the_level_the_test_is_decided_at() -> None:
    a, b = [103.0, 101.5, 104.0, 102.0], [100.0, 101.0, 99.5, 100.5]
    result = compare(a, b)
    assert result.level == 0.05
    d = np.mean(_logs(a)) - np.mean(_logs(b))
    assert result.estimate is not None
    half = student_t.ppf(0.975, result.estimate.df) * result.estimate.se
    assert result.delta_ci_low == pytest.approx(math.expm1(d - half) * 100)
    adjusted = result.with_adjusted(0.2, "holm", alpha_left=0.0125)
    assert adjusted.delta_ci_level == pytest.approx(1 - 0.0125)
    assert (adjusted.delta_ci_low or 0) < (result.delta_ci_low or 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 0}, "alpha"),
        ({"confidence": 1.5}, "confidence"),
        ({"direction": "up"}, "direction"),
        ({"equivalence_margin": 2}, "margin"),
        ({"candidate_starts": [0]}, "start labels"),
    ],
)
def test_bad_options_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        compare([1.0, 2.0], [1.0, 2.0], **kwargs)


def test_a_zero_baseline_has_no_ratio() -> None:
    with pytest.raises(UsageError, match="positive baseline median"):
        compare([1.0, 2.0], [0.0, 0.0])


def test_values_at_or_below_zero_compare_on_the_difference_scale() -> None:
    result = compare([3.0, 4.0, 5.0, 4.0], [0.0, 1.0, 2.0, 1.0])
    assert result.scale == "difference"
    assert result.delta_pct == pytest.approx((4.0 - 1.0) / 1.0 * 100)
    assert result.verdict == "better"


def test_starts_without_spread_still_decide_by_their_means() -> None:
    same = compare([100.0, 100.0], [100.0, 100.0], equivalence_margin=0.01)
    assert same.verdict == "equivalent" and same.p_value == 1.0
    apart = compare([101.0, 101.0], [100.0, 100.0])
    assert apart.verdict == "better" and apart.delta_ci_low == pytest.approx(1.0)


def test_p_values_are_formatted_for_people() -> None:
    assert format_p(0.0123) == "0.012"
    assert format_p(0.0004) == "<0.001"
    assert format_p(0.41) == "0.41"


def test_given_summaries_are_reused_only_when_they_match() -> None:
    from benchdoc.stats import summarize

    summary = summarize(EAGLE)
    assert compare(EAGLE, BASELINE, candidate_summary=summary).candidate is summary
    assert compare(BASELINE, EAGLE, candidate_summary=summary).candidate is not summary
