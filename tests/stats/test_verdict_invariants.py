"""Invariants a wrong verdict would break: scale, the equivalence margin on both sides,
direction words that follow the sign, p within [0, 1], and the outlier fences.

Each test here names a way the statistics could be wrong and still pass the
reference-checked tests: values below 1, a candidate above the equivalence margin,
a change under 1%, ties, a value on an outlier fence.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdoc.config import MetricConfig
from benchdoc.errors import UsageError
from benchdoc.results.words import (
    NOISE,
    change_words,
    delta_mark,
    delta_text,
    status_of_verdict,
    verdict_sentence,
    verdict_text,
    vs_cell,
)
from benchdoc.stats import compare
from benchdoc.stats.summary import outlier_indices, summarize
from benchdoc.stats.welch import Welch

SPEED = MetricConfig("tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower")
LATENCY = MetricConfig("ttft_ms", "TTFT", unit="ms", direction="lower", better_word="faster", worse_word="slower")
ACCURACY = MetricConfig("acc", "Accuracy", better_word="more accurate", worse_word="less accurate")
MEMORY = MetricConfig("mem", "Peak memory", unit="GiB", direction="lower")
NOISE_FREE = [1.0, 1.0004, 0.9996, 1.0002, 0.9998]  # one value per start, spread 0.04%


def _side(centre: float) -> list[float]:
    return [centre * v for v in NOISE_FREE]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shift=st.sampled_from([0.97, 0.995, 1.0, 1.005, 1.03]),
    scale=st.sampled_from([1e-4, 0.003, 0.25, 0.9, 1.0, 7.0, 1e5]),
    direction=st.sampled_from(["higher", "lower"]),
)
def test_a_comparison_does_not_depend_on_the_unit(shift: float, scale: float, direction: str) -> None:
    """Seconds or milliseconds, a fraction or a percentage: the same verdict and shift.
    Values below 1 (latencies in seconds, error rates) are compared like any others."""
    reference = compare(_side(100 * shift), _side(100), direction=direction, equivalence_margin=0.01)
    scaled = compare(_side(scale * shift), _side(scale), direction=direction, equivalence_margin=0.01)
    assert scaled.verdict == reference.verdict
    assert scaled.equivalent == reference.equivalent
    assert scaled.delta_pct == pytest.approx(reference.delta_pct, abs=1e-6)


def test_latencies_in_seconds_below_one_are_compared() -> None:
    faster = compare([0.080, 0.081, 0.079, 0.080], [0.100, 0.101, 0.099, 0.100], direction="lower")
    assert faster.verdict == "better"
    assert faster.delta_pct == pytest.approx(-20.0, abs=0.1)
    zero_rate = compare([0.0, 0.0, 0.0], [0.02, 0.03, 0.025], direction="lower")  # a non-negative candidate
    assert zero_rate.scale == "difference" and zero_rate.verdict == "better"
    with pytest.raises(UsageError, match="non-negative candidate"):
        compare([-0.5, -0.4, -0.6], [0.5, 0.6, 0.4])
    with pytest.raises(UsageError, match="positive baseline"):
        compare([0.5, 0.6, 0.4], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("size", [0.005, 0.03, 0.08])
def test_a_candidate_beyond_the_margin_is_never_equivalent(sign: int, size: float) -> None:
    """Both sides of the equivalence test bind: several percent above (or below) the
    baseline is not 'equivalent within ±1%', significant or not."""
    centre = 100 * (1 + sign * size)
    precise = compare(_side(centre), _side(100), equivalence_margin=0.01)
    assert precise.equivalent is (size < 0.01)
    assert precise.verdict == ("better" if sign > 0 else "worse")
    noisy = compare([centre * f for f in (0.99, 1.01, 0.995, 1.005)], [100 * f for f in (0.99, 1.01, 0.995, 1.005)],
                    equivalence_margin=0.01)
    assert noisy.equivalent is False and noisy.verdict != "equivalent"
    assert noisy.equivalence_p is not None and noisy.equivalence_p > noisy.alpha


def test_equivalence_within_the_margin_on_each_scale() -> None:
    inside = compare(_side(100.3), _side(100), equivalence_margin=0.01)
    assert inside.equivalent is True
    close = compare([100.0, 100.3, 99.8, 100.1], [100.1, 99.9, 100.2, 99.9], equivalence_margin=0.01)
    assert close.verdict == "equivalent" and close.delta_ci_low is not None and close.delta_ci_high is not None
    assert -1.0 < close.delta_ci_low <= close.delta_ci_high < 1.0
    # The difference scale (a side at 0): the margin is a share of the baseline's centre.
    near = compare([0.0, 0.001, 0.0, 0.001], [0.0005, 0.0, 0.001, 0.0], equivalence_margin=0.5)
    assert near.scale == "difference"
    far = compare([0.0, 0.001, 0.0, 0.001], [0.05, 0.051, 0.049, 0.05], equivalence_margin=0.5)
    assert far.equivalent is False


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(st.floats(80, 120), min_size=2, max_size=6),
    base=st.lists(st.floats(80, 120), min_size=2, max_size=6),
    margin=st.sampled_from([0.01, 0.02, 0.05, 0.2]),
)
def test_equivalence_implies_the_interval_inside_the_margin(values: list[float], base: list[float], margin: float) -> None:
    c = compare(values, base, equivalence_margin=margin)
    assert 0.0 <= c.p_value <= 1.0
    if c.verdict == "equivalent":
        assert c.delta_ci_low is not None and c.delta_ci_high is not None
        assert -margin * 100 < c.delta_ci_low <= c.delta_pct <= c.delta_ci_high < margin * 100
    if c.equivalent:
        assert abs(c.delta_pct) < margin * 100
    if c.significant:
        assert c.delta_ci_low is not None and c.delta_ci_high is not None
        assert c.delta_ci_low > 0 or c.delta_ci_high < 0
        assert c.p_value <= c.alpha


@pytest.mark.parametrize("metric", [SPEED, LATENCY, ACCURACY, MEMORY])
@pytest.mark.parametrize("shift", [1.005, 0.995, 1.03, 0.97])
def test_a_small_significant_change_reads_in_its_own_direction(metric: MetricConfig, shift: float) -> None:
    """+0.5% is a gain for a throughput and a loss for a latency, in every view's words."""
    c = compare(_side(100 * shift), _side(100), direction=metric.direction)
    assert c.significant
    up = shift > 1
    gain = up == (metric.direction == "higher")
    assert c.verdict == ("better" if gain else "worse")
    assert status_of_verdict(c.verdict) is not None
    word, other = (metric.better_word, metric.worse_word) if gain else (metric.worse_word, metric.better_word)
    if (metric.better_word, metric.worse_word) == ("better", "worse") and metric.unit == "GiB":
        word, other = ("higher", "lower") if up else ("lower", "higher")
    for text in (verdict_text(c, metric), vs_cell(c, metric), change_words(c.delta_pct, metric),
                 verdict_sentence(c.verdict, c.delta_pct, "Baseline", metric=metric, margin=None)):
        assert word in text and other not in text, text
    assert verdict_text(c) == f"{abs(c.delta_pct):.1f}% {'better' if gain else 'worse'}"
    assert delta_text(c) == f"{c.delta_pct:+.1f}%" == delta_mark(c)
    assert (c.delta_pct > 0) == up


@settings(max_examples=200, deadline=None)
@given(delta=st.floats(-90, 500).filter(lambda d: abs(d) > 1e-4), metric=st.sampled_from([SPEED, LATENCY, ACCURACY, MEMORY]))
def test_change_words_follow_the_sign(delta: float, metric: MetricConfig) -> None:
    text = change_words(delta, metric)
    gain = (delta > 0) == (metric.direction == "higher")
    if metric is MEMORY:
        assert text.endswith("higher" if delta > 0 else "lower")
    else:
        assert text.endswith(metric.better_word if gain else metric.worse_word)
    number = float(text.split("x" if "x " in text else "%")[0])
    assert number != 0 and number != 1.0 or "x" not in text


def test_the_other_verdicts_in_every_view() -> None:
    equivalent = compare([100.0, 100.3, 99.8, 100.1], [100.1, 99.9, 100.2, 99.9], equivalence_margin=0.01)
    assert equivalent.verdict == "equivalent"
    assert vs_cell(equivalent, SPEED) == f"≈ {equivalent.delta_pct:+.1f}% (equivalent within ±1%)"
    assert verdict_text(equivalent, SPEED) == "equivalent within ±1%"
    assert delta_mark(equivalent) == NOISE and delta_text(equivalent) == f"{equivalent.delta_pct:+.1f}%"
    assert verdict_sentence("equivalent", 0.1, "Baseline", metric=SPEED, margin=0.01) == "equivalent to Baseline (within ±1%)"
    same = compare([100.0, 104.0, 97.0], [101.0, 99.0, 103.0])
    assert same.verdict == "same"
    assert vs_cell(same, SPEED).startswith(f"{NOISE} {same.delta_pct:+.1f}% (inconclusive, p=")
    assert verdict_text(same, SPEED).startswith("inconclusive (p=")
    assert delta_text(same) == NOISE == delta_mark(same)
    assert verdict_sentence("same", 1.25, "Baseline", metric=SPEED, margin=None) == "inconclusive against Baseline (+1.2%)"
    one = compare([101.0], [100.0])
    assert one.verdict == "insufficient"
    assert vs_cell(one, SPEED) == "+1.0% (one server start each: too few to tell)"
    assert delta_mark(one) == "+1.0%?"
    assert verdict_sentence("insufficient", 1.0, "Baseline", metric=SPEED, margin=None) == "+1.0% vs Baseline (too few server starts to tell)"
    assert status_of_verdict("same") is not None and status_of_verdict("insufficient") is None


@settings(max_examples=300, deadline=None)
@given(
    difference=st.floats(-1e3, 1e3),
    se=st.one_of(st.just(0.0), st.floats(1e-9, 1e3)),
    df=st.floats(1.0, 1e4),
    level=st.floats(0.001, 0.5),
)
def test_welch_p_is_a_probability_and_matches_its_interval(difference: float, se: float, df: float, level: float) -> None:
    w = Welch(difference, se, df)
    p = w.p_value()
    assert 0.0 <= p <= 1.0
    for bound in (-1.0, 0.0, 1.0):
        assert 0.0 <= w.one_sided_above(bound) <= 1.0 and 0.0 <= w.one_sided_below(bound) <= 1.0
    low, high = w.interval(1.0 - level)
    assert low <= difference <= high
    if se > 0 and not math.isclose(p, level, rel_tol=1e-6):
        assert (low > 0 or high < 0) == (p <= level)


@pytest.mark.parametrize("n", [21, 60, 400])
def test_large_samples_that_all_tie(n: int) -> None:
    tied = compare([50.0] * n, [50.0] * n, equivalence_margin=0.01)
    assert tied.p_value == 1.0 and tied.verdict == "equivalent" and not tied.significant
    apart = compare([51.0] * n, [50.0] * n)
    assert apart.p_value < 1e-12 and apart.verdict == "better"
    assert 0.0 <= compare([50.0] * (n - 1) + [50.5], [50.0] * n).p_value <= 1.0


def test_p_near_alpha_decides_on_the_documented_side() -> None:
    """p <= alpha is significant: just above p stays inconclusive, just below it decides."""
    c = compare([100.0, 101.5, 100.7, 102.0], [100.2, 99.6, 100.9, 100.1])
    p = c.p_value
    assert 0.001 < p < 0.5
    assert compare([100.0, 101.5, 100.7, 102.0], [100.2, 99.6, 100.9, 100.1], alpha=p * (1 + 1e-9)).significant
    assert not compare([100.0, 101.5, 100.7, 102.0], [100.2, 99.6, 100.9, 100.1], alpha=p * (1 - 1e-9)).significant


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5])
def test_alpha_outside_the_open_interval_is_refused(alpha: float) -> None:
    with pytest.raises(UsageError, match="alpha must be between 0 and 1"):
        compare([1.0, 2.0], [1.0, 2.0], alpha=alpha)


def test_outlier_fences_sit_on_the_quartiles() -> None:
    """Ten values 1..9 and one more: the quartiles (linear interpolation) are 3.25 and 7.75
    above, 2.25 and 6.75 below; the fences 3 IQRs (13.5) outside them."""
    ones = [float(v) for v in range(1, 10)]
    assert outlier_indices([*ones, 21.25]) == ()
    assert outlier_indices([*ones, 21.26]) == (9,)
    assert outlier_indices([-11.25, *ones]) == ()
    assert outlier_indices([-11.26, *ones]) == (0,)


def test_outlier_fences_by_sample_size_and_the_spread_floor() -> None:
    assert outlier_indices([1.0, 1.0, 1.0, 50.0]) == ()  # four values: none can be told
    # five values: 6 IQRs; the IQR never below 0.25% of the median (0.25 at 100).
    assert outlier_indices([100.0, 100.0, 100.0, 100.0, 101.5]) == ()
    assert outlier_indices([100.0, 100.0, 100.0, 100.0, 101.6]) == (4,)
    # six values: 3.5 IQRs of 0.25
    assert outlier_indices([100.0] * 5 + [100.87]) == ()
    assert outlier_indices([100.0] * 5 + [100.88]) == (5,)
    assert outlier_indices([100.0] * 6 + [100.75]) == ()
    assert outlier_indices([100.0] * 6 + [100.76]) == (6,)


def test_stdev_and_cv_need_two_values() -> None:
    one = summarize([5.0])
    assert one.stdev is None and one.cv is None
    two = summarize([5.0, 7.0])
    assert two.stdev == pytest.approx(math.sqrt(2.0)) and two.cv == pytest.approx(math.sqrt(2.0) / 6.0)
    zero_mean = summarize([-1.0, 1.0])
    assert zero_mean.stdev == pytest.approx(math.sqrt(2.0)) and zero_mean.cv is None


def test_the_median_interval_at_its_exact_coverage() -> None:
    """Three values cover the median with [min, max] exactly 75% of the time: a 75% interval
    exists at 3 values (coverage >= level), none at 2; at 50%, 2 values suffice."""
    from benchdoc.stats.summary import min_samples_for_interval

    assert min_samples_for_interval() == 6
    assert min_samples_for_interval(0.75) == 3
    assert min_samples_for_interval(0.5) == 2
    three = summarize([1.0, 2.0, 3.0], confidence=0.75)
    assert (three.ci_low, three.ci_high, three.ci_coverage) == (1.0, 3.0, 0.75)
    assert summarize([1.0, 2.0, 3.0], confidence=0.7).ci_low == 1.0
    assert summarize([1.0, 2.0], confidence=0.75).ci_low is None
    assert summarize([1.0, 2.0, 3.0, 4.0, 5.0], confidence=0.6).ci_low == 2.0


def test_the_interval_as_a_share_of_the_median() -> None:
    at_one = summarize([0.9, 0.95, 1.0, 1.0, 1.0, 1.05, 1.1])
    assert at_one.median == 1.0 and at_one.ci_halfwidth_pct == pytest.approx(10.0)
    assert summarize([-1.0, -0.5, 0.0, 0.0, 0.0, 0.5, 1.0]).ci_halfwidth_pct is None


def test_what_would_decide_an_inconclusive_comparison() -> None:
    import dataclasses

    same = compare([100.0, 104.0, 97.0], [101.0, 99.0, 103.0])
    assert same.verdict == "same"
    with_design = dataclasses.replace(same, starts_needed=9)
    assert verdict_text(with_design, SPEED).endswith("; about 9 server starts each would decide")
    no_design = dataclasses.replace(same, starts_needed=None, equivalence_margin=None)
    assert verdict_text(no_design, SPEED).endswith("an equivalence_margin would decide sooner")
    near_margin = dataclasses.replace(same, starts_needed=None, equivalence_margin=0.01)
    assert verdict_text(near_margin, SPEED).endswith("; a shift this close to the margin needs over 1000 server starts each")


def test_sequential_and_disagreeing_medians_in_words() -> None:
    from benchdoc.stats import Sequential, read_sequentially

    c = compare(_side(103), _side(100))
    stopped = read_sequentially(c, Sequential(7, 3, None))
    assert verdict_text(stopped, SPEED) == "undecided after 7 runs (sequential test)"
    assert vs_cell(stopped, SPEED) == verdict_text(stopped, SPEED)
    assert delta_text(stopped) == "?" == delta_mark(stopped)
    other = read_sequentially(c, Sequential(7, 3, None, decided_on="ttft_ms"))
    assert verdict_text(other, SPEED) == "not decided: the sequential test stopped on ttft_ms, not on this metric"
    # A significant shift up while the medians moved down.
    import dataclasses

    disagree = dataclasses.replace(c, median_delta_pct=-10.0)
    assert disagree.medians_disagree
    assert verdict_text(disagree, SPEED) == "3.0% faster (the medians differ the other way: -10.0%)"
    assert verdict_text(c, SPEED) == "3.0% faster"


def test_p_text_only_where_a_test_was_made() -> None:
    from benchdoc.results.words import DASH, p_text

    assert p_text(compare([101.0], [100.0])) == DASH
    c = compare(_side(103), _side(100))
    assert p_text(c) == "<0.001"


def test_shift_interval_text_keeps_a_bound_off_zero() -> None:
    import dataclasses

    from benchdoc.results.words import shift_interval_text

    c = compare(_side(103), _side(100))
    assert shift_interval_text(dataclasses.replace(c, delta_ci_low=None)) is None
    assert shift_interval_text(dataclasses.replace(c, delta_ci_high=None)) is None
    assert shift_interval_text(dataclasses.replace(c, delta_ci_level=None)) is None
    shown = dataclasses.replace(c, delta_ci_low=0.0004, delta_ci_high=6.25, delta_ci_level=0.975)
    assert shift_interval_text(shown) == "[+0.0004%, +6.2%] (97.5%)"
    assert shift_interval_text(dataclasses.replace(shown, delta_ci_low=0.0)) == "[0%, +6.2%] (97.5%)"
    assert shift_interval_text(dataclasses.replace(shown, delta_ci_low=-1e-9)) == "[-1.00e-09%, +6.2%] (97.5%)"


def test_an_equivalence_level_of_half_or_more_makes_no_tost() -> None:
    """With alpha >= 0.5 the 1 - 2·alpha interval does not exist: never 'equivalent'."""
    c = compare([100.0, 100.3, 99.8, 100.1], [100.1, 99.9, 100.2, 99.9], alpha=0.6, equivalence_margin=0.01)
    assert c.equivalent is False and c.verdict != "equivalent"
