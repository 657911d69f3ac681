"""The interval of a median over server starts, number by number: Student's t over the
per-start medians (on their logs when all are positive), against scipy's t, and widened to
hold the pooled median shown beside it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchdoc.stats import summarize


def _labelled(groups: list[list[float]]) -> tuple[list[float], list[int]]:
    return [v for g in groups for v in g], [i for i, g in enumerate(groups) for _ in g]


def _t_interval(points: list[float], level: float) -> tuple[float, float]:
    low, high = stats.t.interval(level, len(points) - 1, loc=np.mean(points), scale=stats.sem(points))
    return float(low), float(high)


@pytest.mark.parametrize("level", [0.95, 0.9, 0.5])
def test_student_s_t_over_the_logs_of_the_start_medians(level: float) -> None:
    groups = [[100.0, 102.0, 98.0], [110.0, 111.0, 109.0, 112.0], [90.0, 95.0, 92.0]]
    values, labels = _labelled(groups)
    shown = summarize(values, level, labels)
    low, high = _t_interval([math.log(100.0), math.log(110.5), math.log(92.0)], level)
    assert shown.ci_method == "server starts" and shown.starts == 3
    assert (shown.ci_low, shown.ci_high) == (pytest.approx(math.exp(low)), pytest.approx(math.exp(high)))
    assert shown.ci_coverage is None and shown.ci_reason is None


def test_two_starts_are_enough_for_the_interval_over_starts() -> None:
    values, labels = _labelled([[10.0, 12.0], [14.0, 16.0]])
    shown = summarize(values, 0.9, labels)
    low, high = _t_interval([math.log(11.0), math.log(15.0)], 0.9)
    assert shown.ci_method == "server starts" and shown.starts == 2
    assert (shown.ci_low, shown.ci_high) == (pytest.approx(math.exp(low)), pytest.approx(math.exp(high)))


def test_start_medians_not_all_positive_are_taken_as_they_are() -> None:
    groups = [[-1.0, 0.0, 1.0], [2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]  # medians 0, 3 and 6
    values, labels = _labelled(groups)
    shown = summarize(values, 0.95, labels)
    assert (shown.ci_low, shown.ci_high) == tuple(pytest.approx(b) for b in _t_interval([0.0, 3.0, 6.0], 0.95))


@pytest.mark.parametrize(
    ("groups", "side"),
    [
        ([[17.0], [16.0, 11.0, 16.0], [9.0]], "high"),  # pooled median 16, the t interval ends at 15.90
        ([[2.0, 5.0], [2.0], [1.0, 10.0]], "low"),  # pooled median 2, the t interval starts above it
    ],
)
def test_the_interval_is_widened_to_hold_the_pooled_median(groups: list[list[float]], side: str) -> None:
    values, labels = _labelled(groups)
    shown = summarize(values, 0.5, labels)
    medians = [float(np.median(g)) for g in groups]
    low, high = (math.exp(b) for b in _t_interval([math.log(m) for m in medians], 0.5))
    assert shown.median == float(np.median(values))
    if side == "high":
        assert high < shown.median and (shown.ci_low, shown.ci_high) == (pytest.approx(low), shown.median)
    else:
        assert shown.median < low and (shown.ci_low, shown.ci_high) == (shown.median, pytest.approx(high))


def test_start_medians_below_one_are_still_on_the_log_scale() -> None:
    """Latencies in seconds: every start median positive, each below 1."""
    values, labels = _labelled([[0.10, 0.12], [0.14, 0.16], [0.30, 0.31]])
    shown = summarize(values, 0.9, labels)
    low, high = _t_interval([math.log(0.11), math.log(0.15), math.log(0.305)], 0.9)
    assert (shown.ci_low, shown.ci_high) == (pytest.approx(math.exp(low)), pytest.approx(math.exp(high)))
