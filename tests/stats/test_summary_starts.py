"""The interval of a median holds at the level of server starts: with several starts of
several repetitions it is Student's t over the per-start medians, not the order statistics
of values that are not independent."""

from __future__ import annotations

import numpy as np
import pytest

from benchdoc.stats import summarize


def _sample(rng: np.random.Generator, starts: int, reps: int, between: float, within: float) -> tuple[list[float], list[int]]:
    effects = rng.normal(0.0, between, starts)
    values = [float(100.0 * np.exp(effects[s] + rng.normal(0.0, within))) for s in range(starts) for _ in range(reps)]
    return values, [s for s in range(starts) for _ in range(reps)]


def test_several_starts_of_several_repetitions_get_the_interval_over_starts() -> None:
    values, labels = _sample(np.random.default_rng(3), 3, 5, 0.02, 0.005)
    pooled, by_start = summarize(values), summarize(values, starts=labels)
    assert pooled.ci_method == "order statistics" and by_start.ci_method == "server starts"
    assert by_start.starts == 3 and by_start.median == pooled.median and by_start.ci_coverage is None
    assert by_start.ci_low is not None and by_start.ci_high is not None and pooled.ci_low is not None
    assert by_start.ci_low <= by_start.median <= by_start.ci_high
    assert by_start.ci_high - by_start.ci_low > (pooled.ci_high or 0) - pooled.ci_low  # starts differ more


def test_values_each_their_own_start_or_one_start_keep_the_order_statistics() -> None:
    values = [92.6, 92.4, 92.9, 92.5, 92.7, 92.8]
    own = summarize(values, starts=list(range(6)))
    assert own.ci_method == "order statistics" and (own.ci_low, own.ci_high) == (92.4, 92.9)
    one = summarize(values, starts=[0] * 6)
    assert one.ci_method == "order statistics" and one.starts == 1 and one.ci_low == own.ci_low
    with pytest.raises(ValueError, match="5 start labels for 6 values"):
        summarize(values, starts=[0] * 5)


def test_the_interval_over_starts_covers_the_true_median_whatever_the_between_start_spread() -> None:
    rng = np.random.default_rng(22)
    trials = 400
    for between, within in ((0.02, 0.005), (0.01, 0.01)):
        covered = pooled_covered = 0
        for _ in range(trials):
            values, labels = _sample(rng, 5, 5, between, within)
            shown = summarize(values, starts=labels)
            covered += (shown.ci_low or 0) <= 100.0 <= (shown.ci_high or 0)
            flat = summarize(values)
            pooled_covered += (flat.ci_low or 0) <= 100.0 <= (flat.ci_high or 0)
        assert covered / trials >= 0.92, (between, covered / trials)
        assert pooled_covered / trials < 0.85  # what the pooled order statistics gave: below 95%
