"""The per-start grouping under every comparison: the scale chosen, the start means and the
pooled within-start sums, and Kalibera & Jones's variance components, each against numbers
worked independently (numpy, or by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchdoc.stats.starts import DIFFERENCE_SCALE, LOG_SCALE, Starts, analysis_scale, components, group


def test_the_log_scale_needs_every_value_of_both_sides_positive() -> None:
    assert analysis_scale([1e-6, 2.0], [3.0, 0.5]) == LOG_SCALE
    assert analysis_scale([0.0, 2.0], [3.0, 0.5]) == DIFFERENCE_SCALE  # zero on the candidate's side
    assert analysis_scale([1.0, 2.0], [3.0, 0.0]) == DIFFERENCE_SCALE  # zero on the baseline's side
    assert analysis_scale([1.0, -2.0], [3.0, 4.0]) == DIFFERENCE_SCALE


def test_without_labels_every_value_is_its_own_start() -> None:
    starts = group([4.0, 1.0, 9.0], None, DIFFERENCE_SCALE)
    assert starts == Starts((4.0, 1.0, 9.0), (1, 1, 1), 0.0, 0)
    assert starts.n == 3 and starts.mean == pytest.approx(14 / 3)


def test_labels_group_values_in_first_seen_order() -> None:
    starts = group([1.0, 10.0, 3.0, 20.0, 5.0], ["b", "a", "b", "a", "c"], DIFFERENCE_SCALE)
    assert starts.means == (2.0, 15.0, 5.0)
    assert starts.repetitions == (2, 2, 1)
    assert starts.within_ss == pytest.approx(2.0 + 50.0)  # (1-2)²+(3-2)², (10-15)²+(20-15)²
    assert starts.within_df == 2


def test_the_log_scale_groups_the_logs() -> None:
    starts = group([1.0, math.e ** 2, 10.0], [0, 0, 1], LOG_SCALE)
    assert starts.means == pytest.approx((1.0, math.log(10.0)))
    assert starts.within_ss == pytest.approx(2.0)  # logs 0 and 2 around 1


def test_a_label_count_that_differs_from_the_values_is_refused() -> None:
    with pytest.raises(ValueError, match="2 start labels for 3 values"):
        group([1.0, 2.0, 3.0], [0, 1], DIFFERENCE_SCALE)


def test_the_variance_of_start_means_needs_two_starts() -> None:
    assert Starts((5.0,), (3,), 1.0, 2).variance is None
    assert Starts((5.0, 7.0), (3, 3), 1.0, 4).variance == pytest.approx(2.0)
    assert Starts((1.0, 2.0, 6.0), (1, 1, 1), 0.0, 0).variance == pytest.approx(np.var([1, 2, 6], ddof=1))


@given(st.lists(st.tuples(st.integers(0, 4), st.floats(-1e3, 1e3, allow_nan=False)), min_size=1, max_size=30))
def test_grouping_splits_the_sum_of_squares(pairs: list[tuple[int, float]]) -> None:
    """The total sum of squares is the within-start sum plus each start's count times its
    mean's squared distance from the grand mean; the degrees of freedom add to the values."""
    labels = [label for label, _ in pairs]
    values = [value for _, value in pairs]
    starts = group(values, labels, DIFFERENCE_SCALE)
    order = list(dict.fromkeys(labels))
    assert starts.means == pytest.approx([np.mean([v for k, v in pairs if k == key]) for key in order])
    assert starts.repetitions == tuple(labels.count(key) for key in order)
    assert starts.within_df + starts.n == len(values)
    grand = np.mean(values)
    between = sum(r * (m - grand) ** 2 for m, r in zip(starts.means, starts.repetitions))
    total = sum((v - grand) ** 2 for v in values)
    assert starts.within_ss + between == pytest.approx(total, rel=1e-9, abs=1e-6)


def _side(*starts: list[float]) -> Starts:
    values = [v for members in starts for v in members]
    labels = [i for i, members in enumerate(starts) for _ in members]
    return group(values, labels, DIFFERENCE_SCALE)


def test_components_as_kalibera_and_jones_define_them() -> None:
    # a: three starts of 2, 3 and 2 repetitions; b: two starts of 4 and 2
    a = _side([10.0, 12.0], [20.0, 22.0, 24.0], [15.0, 15.0])
    b = _side([30.0, 31.0, 29.0, 30.0], [40.0, 42.0])
    within_var = (a.within_ss + b.within_ss) / (1 + 2 + 1 + 3 + 1)  # pooled over 8 degrees of freedom
    means_var = (2 * np.var(a.means, ddof=1) + 1 * np.var(b.means, ddof=1)) / 3  # weighted by n - 1
    mean_reps = 13 / 5
    between_var = means_var - within_var / mean_reps
    assert between_var > 0
    got = components(a, b, DIFFERENCE_SCALE, -20.0)
    assert got.within_cv == pytest.approx(math.sqrt(within_var) / 20.0)
    assert got.between_cv == pytest.approx(math.sqrt(between_var) / 20.0)
    assert got.repetitions == 2  # sorted 2, 2, 2, 2, 3, 4: the upper median of an even count
    assert components(b, a, DIFFERENCE_SCALE, 20.0).repetitions == 2
    three = _side([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0])
    assert components(three, _side([1.0, 1.0, 1.0, 1.0, 1.0]), DIFFERENCE_SCALE, 1.0).repetitions == 5  # 3 3 5 5


def test_on_the_log_scale_the_spreads_are_the_cvs() -> None:
    a = group([100.0, 110.0, 200.0, 190.0], [0, 0, 1, 1], LOG_SCALE)
    b = group([100.0, 105.0, 150.0, 140.0], [0, 0, 1, 1], LOG_SCALE)
    within_var = (a.within_ss + b.within_ss) / 4
    between_var = (np.var(a.means, ddof=1) + np.var(b.means, ddof=1)) / 2 - within_var / 2
    for centre in (0.0, 150.0):  # the log scale needs no centre
        got = components(a, b, LOG_SCALE, centre)
        assert got.within_cv == pytest.approx(math.sqrt(within_var))
        assert got.between_cv == pytest.approx(math.sqrt(between_var))


def test_the_between_component_is_never_below_zero() -> None:
    # start means closer together than the within-start noise predicts
    a = _side([10.0, 20.0], [11.0, 21.0])
    b = _side([10.0, 20.0], [12.0, 18.0])
    assert components(a, b, DIFFERENCE_SCALE, 15.0).between_cv == 0.0


def test_a_side_whose_start_means_agree_still_weighs_in() -> None:
    a = _side([10.0], [10.0])  # two starts, one repetition each, equal means: variance 0
    b = _side([10.0], [16.0])  # variance 18
    got = components(a, b, DIFFERENCE_SCALE, 10.0)
    assert got.within_cv is None  # no start has two repetitions
    assert got.between_cv == pytest.approx(math.sqrt((0.0 + 18.0) / 2) / 10.0)
    assert components(a, a, DIFFERENCE_SCALE, 10.0).between_cv == 0.0


def test_one_start_a_side_has_no_between_component() -> None:
    a = _side([10.0, 12.0])
    b = _side([20.0, 26.0])
    got = components(a, b, DIFFERENCE_SCALE, 20.0)
    assert got.between_cv is None
    assert got.within_cv == pytest.approx(math.sqrt((2.0 + 18.0) / 2) / 20.0)
    one_side = components(a, _side([20.0, 26.0], [30.0, 30.0]), DIFFERENCE_SCALE, 20.0)
    assert one_side.between_cv == pytest.approx(math.sqrt(24.5 - (20.0 / 3) / 2) / 20.0)


def test_no_cv_relative_to_a_centre_of_zero_on_the_difference_scale() -> None:
    a = _side([-1.0, 1.0], [-2.0, 2.0])
    b = _side([-3.0, 3.0], [-1.0, 1.0])
    got = components(a, b, DIFFERENCE_SCALE, 0.0)
    assert got.within_cv is None and got.between_cv is None
    assert components(a, b, DIFFERENCE_SCALE, 4.0).within_cv == pytest.approx(math.sqrt(30.0 / 4) / 4.0)
