"""benchdoc.stats.shift: the Hodges-Lehmann shift and its rank-test interval, by brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from benchdoc.stats import shift as shift_module
from benchdoc.stats.shift import interval_rank, runs_for_interval, shift


def test_the_interval_is_exactly_the_set_of_shifts_the_test_does_not_reject() -> None:
    # Inverting the test: a log-shift s is inside the interval exactly when the candidate,
    # scaled back by exp(-s), is not significantly different at 1 - confidence.
    rng = np.random.default_rng(21)
    a, b = rng.normal(103, 1.5, 7), rng.normal(100, 1.5, 6)
    result = shift(a, b, float(np.median(b)), 0.95)
    assert result.ci_low is not None and result.ci_high is not None
    k, coverage = interval_rank(7, 6, 0.95)
    assert k is not None and coverage is not None
    alpha_attained = 1 - coverage
    for pct, inside in [
        (result.ci_low + 1e-6, True),
        (result.ci_high - 1e-6, True),
        (result.ci_low - 1e-6, False),
        (result.ci_high + 1e-6, False),
    ]:
        scaled = a / (1 + pct / 100)
        p = mannwhitneyu(scaled, b, method="exact").pvalue
        assert bool(p > alpha_attained * (1 + 1e-9)) is inside, pct


def test_coverage_needs_4_runs_each_at_95_percent() -> None:
    assert interval_rank(3, 3, 0.95) == (None, None)
    k, coverage = interval_rank(4, 4, 0.95)
    assert k == 1 and coverage == pytest.approx(1 - 2 / math.comb(8, 4))
    assert runs_for_interval(0.95) == 4
    assert runs_for_interval(0.99) == 5


def test_large_samples_find_order_statistics_without_all_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(22)
    a, b = rng.normal(101, 1, 60), rng.normal(100, 1, 50)
    in_memory = shift(a, b, float(np.median(b)), 0.95)
    monkeypatch.setattr(shift_module, "_MAX_PAIRS_IN_MEMORY", 10)
    bisected = shift(a, b, float(np.median(b)), 0.95)
    assert bisected.delta_pct == pytest.approx(in_memory.delta_pct, rel=1e-9)
    assert bisected.ci_low == pytest.approx(in_memory.ci_low, rel=1e-9)
    assert bisected.ci_high == pytest.approx(in_memory.ci_high, rel=1e-9)
