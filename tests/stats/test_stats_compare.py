"""benchdoc.stats.compare: shifts, tests and verdicts checked against scipy called directly."""

from __future__ import annotations

import json
import math
from dataclasses import asdict

import numpy as np
import pytest
from scipy.stats import mannwhitneyu, permutation_test

from benchdoc.errors import UsageError
from benchdoc.stats import compare, format_p, min_attainable_p, runs_needed

BASELINE = [92.4, 92.5, 92.6, 92.7, 92.8]  # median 92.6 tok/s
EAGLE = [96.0, 96.05, 96.1, 96.2, 96.3]  # median 96.1 tok/s


def _median_pairwise_ratio(a: list[float], b: list[float]) -> float:
    """The Hodges-Lehmann ratio by brute force: the median over all pairs of log(a_i / b_j)."""
    return math.exp(float(np.median([math.log(x / y) for x in a for y in b])))


def test_eagle_against_the_new_baseline_is_3_8_percent_faster() -> None:
    result = compare(EAGLE, BASELINE, direction="higher")
    assert result.ratio == pytest.approx(_median_pairwise_ratio(EAGLE, BASELINE))
    assert result.delta_pct == pytest.approx((_median_pairwise_ratio(EAGLE, BASELINE) - 1) * 100)
    assert result.median_delta_pct == pytest.approx((96.1 / 92.6 - 1) * 100)
    assert round(result.delta_pct, 1) == 3.8
    assert result.scale == "log"
    assert result.p_value == pytest.approx(mannwhitneyu(EAGLE, BASELINE, alternative="two-sided").pvalue)
    assert result.test_method == "exact permutation"
    assert result.significant
    assert result.verdict == "better"
    assert result.verdict_text("faster", "slower") == "3.8% faster"
    assert result.candidate.median == 96.1 and result.baseline.median == 92.6


def test_delta_interval_inverts_the_rank_test_and_is_deterministic() -> None:
    first = compare(EAGLE, BASELINE)
    again = compare(list(EAGLE), tuple(BASELINE))
    assert (first.delta_ci_low, first.delta_ci_high) == (again.delta_ci_low, again.delta_ci_high)
    assert first.delta_ci_low is not None and first.delta_ci_high is not None
    assert first.delta_ci_low <= first.delta_pct <= first.delta_ci_high
    # 5 vs 5 at 95%: P(U <= 2) = 4/252, so k = 3 and the interval is the 3rd smallest
    # and 3rd largest of the 25 pairwise ratios, with coverage 1 - 8/252.
    ratios = sorted(x / y for x in EAGLE for y in BASELINE)
    assert first.delta_ci_low == pytest.approx((ratios[2] - 1) * 100)
    assert first.delta_ci_high == pytest.approx((ratios[-3] - 1) * 100)
    assert first.delta_ci_coverage == pytest.approx(1 - 8 / 252)


def test_lower_is_better_reads_a_drop_as_better_and_keeps_the_signed_delta() -> None:
    old_latency = [120.0, 121.0, 119.5, 120.5, 120.2]
    new_latency = [100.0, 101.0, 99.5, 100.5, 100.2]
    result = compare(new_latency, old_latency, direction="lower")
    assert result.delta_pct == pytest.approx((100.2 / 120.2 - 1) * 100)
    assert result.delta_pct < 0
    assert result.verdict == "better"
    assert result.verdict_text("faster", "slower") == f"{abs(result.delta_pct):.1f}% faster"
    regression = compare(old_latency, new_latency, direction="lower")
    assert regression.delta_pct > 0 and regression.verdict == "worse"
    assert regression.verdict_text("faster", "slower") == "20.0% slower"


def test_higher_direction_calls_a_drop_worse() -> None:
    result = compare(BASELINE, EAGLE, direction="higher")
    assert result.verdict == "worse"
    assert result.verdict_text("faster", "slower") == "3.6% slower"


@pytest.mark.parametrize("runs", [1, 2, 3])
def test_too_few_runs_say_how_many_are_needed(runs: int) -> None:
    # Even perfectly separated samples cannot reach p <= 0.05 with 3 or fewer runs each.
    result = compare(EAGLE[:runs], BASELINE[:runs])
    assert result.verdict == "insufficient"
    assert not result.significant
    assert result.runs_needed == 4
    assert result.verdict_text("faster", "slower") == "need >= 4 runs each"


def test_four_runs_each_can_reach_significance() -> None:
    result = compare(EAGLE[:4], BASELINE[:4])
    assert result.runs_needed is None
    assert result.verdict == "better"


def test_ties_do_not_let_three_runs_pass_for_significant() -> None:
    # The normal approximation with tie correction gives p < 0.05 here; the sizes still cannot.
    assert mannwhitneyu([2.0] * 3, [1.0] * 3).pvalue < 0.05
    assert compare([2.0] * 3, [1.0] * 3).verdict == "insufficient"


def test_minimum_attainable_p_matches_the_exact_distribution() -> None:
    # With n vs n runs and no ties, the most extreme two-sided p is 2 / C(2n, n).
    for n in (1, 2, 3, 4, 5, 6):
        assert min_attainable_p(n, n) == pytest.approx(min(1.0, 2 / math.comb(2 * n, n)))
    assert min_attainable_p(3, 5) == pytest.approx(2 / math.comb(8, 3))
    expected = min(n for n in range(1, 20) if 2 / math.comb(2 * n, n) <= 0.01)
    assert runs_needed(0.01) == expected == 5
    assert runs_needed(0.05) == 4


def test_unequal_sizes_that_cannot_reach_alpha_are_insufficient() -> None:
    result = compare(EAGLE, [92.6])  # 5 vs 1: best possible p is 2/6
    assert result.verdict == "insufficient"
    assert result.min_attainable_p == pytest.approx(2 / 6)


def _permutation_p(a: list[float], b: list[float], alternative: str = "two-sided") -> float:
    """scipy's exact permutation p-value of the Mann-Whitney U statistic (every split)."""

    def u(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        return mannwhitneyu(x, y, axis=axis).statistic

    return float(
        permutation_test(
            (a, b), u, vectorized=True, permutation_type="independent", alternative=alternative, n_resamples=np.inf
        ).pvalue
    )


def test_noise_is_no_significant_difference() -> None:
    a = [92.5, 92.9, 92.3, 92.8, 92.6]
    b = [92.4, 92.7, 92.6, 93.0, 92.2]  # 92.6 on both sides: a tie, so the exact p is a permutation count
    result = compare(a, b)
    expected_p = _permutation_p(a, b)
    assert result.p_value == pytest.approx(expected_p)
    assert result.verdict == "same" and not result.significant
    assert result.equivalent is None
    assert result.verdict_text() == f"~ (no significant difference, p={format_p(expected_p)})"


def test_identical_samples_are_the_same() -> None:
    result = compare([1.0] * 5, [1.0] * 5)
    assert result.p_value == 1.0
    assert result.verdict == "same"
    assert result.verdict_text() == "~ (no significant difference, p=1)"


def test_equivalence_within_a_margin_uses_two_one_sided_rank_tests() -> None:
    a = [100.0, 100.2, 99.9, 100.1, 99.8, 100.05]
    b = [100.1, 99.95, 100.0, 99.85, 100.15, 100.02]
    result = compare(a, b, equivalence_margin=0.01)
    not_lower = mannwhitneyu(a, [v * 0.99 for v in b], alternative="greater").pvalue
    not_higher = mannwhitneyu(a, [v * 1.01 for v in b], alternative="less").pvalue
    assert result.equivalence_p == pytest.approx(max(not_lower, not_higher))
    assert not result.significant
    assert result.equivalent is True
    assert result.verdict == "equivalent"
    assert result.verdict_text() == "equivalent within ±1%"


def test_a_margin_too_tight_for_the_noise_stays_undecided() -> None:
    a = [100.0, 100.2, 99.9, 100.1, 99.8, 100.05]
    b = [100.1, 99.95, 100.0, 99.85, 100.15, 100.02]
    result = compare(a, b, equivalence_margin=0.0005)
    assert result.equivalent is False
    assert result.verdict == "same"


def test_a_significant_but_negligible_difference_keeps_its_direction_and_is_marked_equivalent() -> None:
    a = [100.30, 100.31, 100.32, 100.33, 100.34, 100.35]
    b = [100.00, 100.01, 100.02, 100.03, 100.04, 100.05]
    result = compare(a, b, equivalence_margin=0.01)
    assert result.verdict == "better"
    assert result.equivalent is True


def test_a_comparison_is_json_able_plain_data() -> None:
    result = compare(EAGLE, BASELINE, equivalence_margin=0.01)
    for name in ("ratio", "delta_pct", "delta_ci_low", "delta_ci_high", "p_value", "equivalence_p", "min_attainable_p"):
        assert type(getattr(result, name)) is float, name
    decoded = json.loads(json.dumps(asdict(result)))
    assert decoded["verdict"] == "better" and decoded["candidate"]["n"] == 5


@pytest.mark.parametrize("runs", [1, 2, 3])
def test_too_few_runs_have_no_delta_interval_and_say_how_many_it_needs(runs: int) -> None:
    # The widest rank interval covers 1 - 2 / C(2n, n): 0.67 at 2 vs 2, 0.90 at 3 vs 3.
    result = compare(EAGLE[:runs], BASELINE[:runs])
    assert result.delta_ci_low is None and result.delta_ci_high is None
    assert result.delta_ci_reason == "interval needs >= 4 runs each for 95% coverage"
    assert compare(EAGLE[:4], BASELINE[:4]).delta_ci_coverage == pytest.approx(1 - 2 / math.comb(8, 4))


def test_one_run_each_still_has_its_shift() -> None:
    assert round(compare([96.1], [92.6]).delta_pct, 1) == 3.8


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"direction": "up"}, "direction must be 'higher' or 'lower'"),
        ({"alpha": 0}, "alpha must be between 0 and 1"),
        ({"confidence": 1.0}, "confidence must be between 0 and 1"),
        ({"equivalence_margin": 1.0}, "equivalence margin must be a fraction"),
    ],
)
def test_bad_options_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        compare(EAGLE, BASELINE, **kwargs)


def test_a_zero_baseline_has_no_ratio() -> None:
    with pytest.raises(UsageError, match="positive baseline median"):
        compare([1.0, 2.0], [0.0, 0.0])
    with pytest.raises(UsageError, match="baseline: no samples"):
        compare([1.0], [])


def test_p_values_are_formatted_for_people() -> None:
    assert format_p(0.4123) == "0.41"
    assert format_p(0.0286) == "0.029"
    assert format_p(0.0004) == "<0.001"


def test_given_summaries_are_reused_only_when_they_match() -> None:
    from benchdoc.stats import compare, summarize

    a, b = [96.1, 95.8, 96.4, 96.0, 96.3], [92.6, 92.4, 92.9, 92.5, 92.7]
    sa, sb = summarize(a), summarize(b)
    reused = compare(a, b, candidate_summary=sa, baseline_summary=sb)
    assert reused.candidate is sa and reused.baseline is sb
    assert reused == compare(a, b)
    stale = compare(a, b, candidate_summary=summarize([1.0, 2.0]), baseline_summary=sb)
    assert stale.candidate.values == tuple(a)


SMALL_TIED_CANDIDATE = [93.8, 92.7, 92.7, 94.3, 93.9]
SMALL_TIED_BASELINE = [92.7, 92.7, 92.7, 91.8, 92.4]


def test_small_tied_samples_get_the_exact_permutation_p() -> None:
    # The normal approximation says 0.0449 ("1.2% faster"); counting all 252 splits says 0.079.
    assert mannwhitneyu(SMALL_TIED_CANDIDATE, SMALL_TIED_BASELINE).pvalue == pytest.approx(0.0449, abs=1e-4)
    result = compare(SMALL_TIED_CANDIDATE, SMALL_TIED_BASELINE)
    expected = _permutation_p(SMALL_TIED_CANDIDATE, SMALL_TIED_BASELINE)
    assert result.p_value == pytest.approx(expected, rel=1e-12)
    assert round(result.p_value, 3) == 0.079
    assert result.test_method == "exact permutation"
    assert result.verdict == "same" and not result.significant
    assert result.verdict_text() == "~ (no significant difference, p=0.079)"


def test_the_equivalence_tests_are_exact_too() -> None:
    a = [100.0, 100.2, 99.9, 100.1, 99.8, 100.0]
    b = [100.1, 100.0, 100.0, 99.85, 100.15, 100.02]
    result = compare(a, b, equivalence_margin=0.001)
    not_lower = _permutation_p(a, [v * 0.999 for v in b], "greater")
    not_higher = _permutation_p(a, [v * 1.001 for v in b], "less")
    assert result.equivalence_p == pytest.approx(max(not_lower, not_higher), rel=1e-12)


def test_larger_samples_use_the_normal_approximation() -> None:
    rng = np.random.default_rng(7)
    a, b = list(np.round(rng.normal(100, 1, 30), 1)), list(np.round(rng.normal(100.5, 1, 30), 1))
    result = compare(a, b)
    assert result.test_method == "normal approximation with tie correction"
    assert result.p_value == pytest.approx(mannwhitneyu(a, b, method="asymptotic").pvalue)


def test_runs_needed_is_searched_not_assumed_monotone() -> None:
    # The attainable p rises where the exact test hands over to the approximation.
    assert min_attainable_p(20, 20) < min_attainable_p(21, 21)
    level = (min_attainable_p(20, 20) + min_attainable_p(21, 21)) / 2  # 20 each reach it, 21 do not
    needed = runs_needed(level)
    assert needed > 21
    assert all(min_attainable_p(n, n) <= level for n in range(needed, needed + 40))
    assert min_attainable_p(needed - 1, needed - 1) > level


def _bimodal_case() -> tuple[list[float], list[float]]:
    """20 runs each, seeded: each side mixes a slow and a fast mode. The baseline's runs
    split evenly between 90 and 100, so its median falls between the modes; most of the
    candidate's runs sit at 94.2, just under that median, and the rest at 100.6. Most
    pairs favour the candidate, yet its median is 0.7% lower."""
    rng = np.random.default_rng(20260171)
    baseline = np.concatenate([rng.normal(90.0, 0.5, 10), rng.normal(100.0, 0.5, 10)])
    candidate = np.concatenate([rng.normal(94.2, 0.5, 11), rng.normal(100.6, 0.5, 9)])
    return [float(v) for v in candidate], [float(v) for v in baseline]


def test_direction_delta_and_test_agree_on_bimodal_data() -> None:
    candidate, baseline = _bimodal_case()
    result = compare(candidate, baseline)
    # The case: the medians say the candidate is slower; the one-sided test says higher.
    assert np.median(candidate) < np.median(baseline)
    one_sided = mannwhitneyu(candidate, baseline, alternative="greater", method="exact").pvalue
    assert one_sided < 0.01
    assert result.median_delta_pct < 0
    assert result.significant and result.verdict == "better"
    assert result.delta_pct > 0
    assert result.delta_ci_low is not None and result.delta_ci_low > 0
    assert result.delta_pct == pytest.approx((_median_pairwise_ratio(candidate, baseline) - 1) * 100)
    text = result.verdict_text("faster", "slower")
    assert text.startswith(f"{result.delta_pct:.1f}% faster")
    assert f"the medians differ the other way: {result.median_delta_pct:+.1f}%" in text


def test_shift_sign_always_follows_the_test_statistic() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        m, n = (int(v) for v in rng.integers(2, 9, 2))
        a = list(rng.choice([90.0, 91.0, 92.0, 95.0], m))
        b = list(rng.choice([90.0, 91.0, 92.0, 95.0], n))
        result = compare(a, b)
        centre = m * n / 2
        # More pairs with the candidate above means a shift that is not negative, and
        # the other way round (a shift of 0 can go with either: heavy ties).
        if result.u_statistic > centre:
            assert result.delta_pct >= 0
        elif result.u_statistic < centre:
            assert result.delta_pct <= 0
        if result.significant:
            assert result.verdict == ("better" if result.u_statistic > centre else "worse")


def test_values_at_or_below_zero_shift_on_the_difference_scale() -> None:
    result = compare([0.0, 1.0, 2.0, 1.0], [3.0, 4.0, 5.0, 4.0], direction="lower")
    pairwise = sorted(x - y for x in [0.0, 1.0, 2.0, 1.0] for y in [3.0, 4.0, 5.0, 4.0])
    assert result.scale == "difference"
    assert result.delta_pct == pytest.approx(float(np.median(pairwise)) / 4.0 * 100)
    assert result.verdict == "better"
