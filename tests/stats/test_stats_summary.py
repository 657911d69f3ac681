"""benchdoc.stats.summary: summaries checked against the standard library and hand-worked cases."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import asdict

import numpy as np
import pytest

from benchdoc.errors import UsageError
from benchdoc.stats import min_samples_for_interval, outlier_indices, summarize


def test_centre_and_spread_match_the_standard_library() -> None:
    values = [92.1, 93.4, 92.6, 91.9, 92.8, 93.0, 92.2]
    summary = summarize(values)
    assert summary.n == 7
    assert summary.median == pytest.approx(statistics.median(values))
    assert summary.centre == summary.median
    assert summary.mean == pytest.approx(statistics.fmean(values))
    assert summary.stdev == pytest.approx(statistics.stdev(values))  # sample (n - 1) deviation
    assert summary.cv == pytest.approx(statistics.stdev(values) / statistics.fmean(values))
    assert (summary.min, summary.max) == (91.9, 93.4)


def test_numbers_are_plain_python_floats_even_from_numpy_input() -> None:
    summary = summarize(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], dtype=np.float32))
    for name in ("median", "mean", "stdev", "cv", "min", "max", "ci_low", "ci_high", "ci_coverage"):
        assert type(getattr(summary, name)) is float, name
    assert all(type(v) is float for v in summary.values)
    json.dumps(asdict(summary))  # JSON-able as it stands


def test_one_sample_has_no_spread_and_no_interval() -> None:
    summary = summarize([54.1])
    assert summary.median == 54.1
    assert summary.stdev is None and summary.cv is None
    assert summary.ci_low is None and summary.ci_high is None
    assert summary.ci_reason == "need >= 6 samples for a 95% interval"


def test_five_samples_are_too_few_for_a_95_percent_interval() -> None:
    summary = summarize([1.0, 2.0, 3.0, 4.0, 5.0])
    assert summary.ci_low is None and summary.ci_high is None and summary.ci_coverage is None
    assert summary.ci_reason == "need >= 6 samples for a 95% interval"
    assert summary.ci_halfwidth_pct is None


def test_six_samples_give_the_min_max_interval_with_its_exact_coverage() -> None:
    summary = summarize([5.0, 3.0, 6.0, 1.0, 4.0, 2.0])
    assert (summary.ci_low, summary.ci_high) == (1.0, 6.0)
    assert summary.ci_coverage == pytest.approx(1 - 2 / 2**6)  # P(1 <= B(6, 1/2) <= 5)
    assert summary.ci_reason is None


def test_ten_samples_use_the_second_order_statistics() -> None:
    # Hand-worked: [x(2), x(9)] covers 1 - 2*(1 + 10)/1024 = 0.9785 >= 0.95, while
    # [x(3), x(8)] covers only 1 - 2*(1 + 10 + 45)/1024 = 0.8906.
    values = [10.0, 3.0, 7.0, 1.0, 9.0, 2.0, 8.0, 4.0, 6.0, 5.0]
    summary = summarize(values)
    assert (summary.ci_low, summary.ci_high) == (2.0, 9.0)
    assert summary.ci_coverage == pytest.approx(1 - 22 / 1024)
    assert summary.ci_halfwidth_pct == pytest.approx((9.0 - 5.5) / 5.5 * 100)


def test_interval_of_a_larger_sample_matches_an_independent_binomial_search() -> None:
    values = list(np.random.default_rng(7).normal(100.0, 2.0, size=101))
    n = len(values)

    def coverage(k: int) -> float:
        tail = sum(math.comb(n, i) for i in range(k)) / 2**n
        return 1 - 2 * tail

    k = max(k for k in range(1, n // 2 + 1) if coverage(k) >= 0.95)
    ordered = sorted(values)
    summary = summarize(values)
    assert summary.ci_low == pytest.approx(ordered[k - 1])
    assert summary.ci_high == pytest.approx(ordered[n - k])
    assert summary.ci_coverage == pytest.approx(coverage(k))
    assert summary.ci_low <= summary.median <= summary.ci_high


def test_higher_confidence_needs_more_samples() -> None:
    assert min_samples_for_interval(0.95) == 6
    assert min_samples_for_interval(0.99) == 8  # 1 - 2/2**7 < 0.99 <= 1 - 2/2**8
    assert summarize([1.0] * 7, confidence=0.99).ci_reason == "need >= 8 samples for a 99% interval"


def test_outliers_are_flagged_by_index_and_never_dropped() -> None:
    values = [10.0, 10.1, 9.9, 10.05, 9.95, 15.0, 10.02]
    summary = summarize(values)
    q1, q3 = np.percentile(values, [25, 75])
    fences = (q1 - 3 * (q3 - q1), q3 + 3 * (q3 - q1))
    expected = tuple(i for i, v in enumerate(values) if not fences[0] <= v <= fences[1])
    assert summary.outliers == expected == (5,)
    assert summary.n == 7 and summary.max == 15.0  # still counted
    assert outlier_indices([1.0, 1.0, 1.0]) == ()
    assert outlier_indices([5.0, 1.0, 1.1, 0.9, 1.05, 0.95, -3.0]) == (0, 6)


def test_identical_values_do_not_make_their_neighbour_an_outlier() -> None:
    assert outlier_indices([100, 100, 100, 100, 101]) == ()  # IQR 0: resolution, not an outlier
    assert outlier_indices([100, 100, 100, 100, 100, 100, 150]) == (6,)
    assert outlier_indices([1.0, 1.0, 9.0, 1.0]) == ()  # four values: too few to tell


def test_clean_normal_samples_are_rarely_marked() -> None:
    rng = np.random.default_rng(3)
    for n in (5, 6, 8, 12):
        marked = sum(bool(outlier_indices(100 + rng.normal(0, 1, n))) for _ in range(800))
        assert marked / 800 < 0.09, n  # about 5% at each size; Tukey's 1.5 IQR marked 26-40%


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([], "no samples"),
        ([1.0, float("nan")], "position 1 is not a finite number"),
        ([1.0, float("inf")], "position 1 is not a finite number"),
        ([1.0, "fast"], "position 1 is not a number"),
    ],
)
def test_bad_samples_get_one_clear_error(values: list, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        summarize(values)


def test_confidence_out_of_range_is_refused() -> None:
    with pytest.raises(UsageError, match="confidence must be between 0 and 1"):
        summarize([1.0, 2.0], confidence=95)
