"""benchdoc.stats.change: before/after arithmetic for superseded experiments."""

from __future__ import annotations

import pytest

from benchdoc.errors import UsageError
from benchdoc.stats import change


def test_eagle_before_and_after_the_stack_upgrade() -> None:
    moved = change([54.1], [96.1], "higher")
    assert (moved.old, moved.new) == (54.1, 96.1)
    assert moved.delta_pct == pytest.approx((96.1 / 54.1 - 1) * 100)
    assert round(moved.delta_pct, 1) == 77.6
    assert moved.improved
    assert moved.text() == "54.1 -> 96.1 (+77.6%)"


def test_baseline_to_candidate_arithmetic() -> None:
    moved = change(92.6, 96.1)
    assert round(moved.delta_pct, 1) == 3.8
    assert moved.text(digits=2) == "92.60 -> 96.10 (+3.78%)"


def test_centres_are_medians_of_the_samples() -> None:
    moved = change([50.0, 54.1, 60.0, 10.0, 54.1], [96.0, 96.1, 96.2])
    assert (moved.old, moved.new, moved.n_old, moved.n_new) == (54.1, 96.1, 5, 3)


def test_lower_is_better_counts_a_drop_as_an_improvement() -> None:
    latency = change([120.0], [100.0], "lower")
    assert latency.delta_pct == pytest.approx(-16.666666, rel=1e-6)
    assert latency.improved
    assert latency.text() == "120.0 -> 100.0 (-16.7%)"
    assert not change([100.0], [120.0], "lower").improved
    assert not change([100.0], [100.0], "higher").improved


def test_bad_input_is_refused() -> None:
    with pytest.raises(UsageError, match="direction"):
        change([1.0], [2.0], "up")
    with pytest.raises(UsageError, match="positive old value"):
        change([0.0], [2.0])
    with pytest.raises(UsageError, match="new result: no samples"):
        change([1.0], [])
