"""benchdoc.stats.ranktest: the exact permutation p-value against scipy's own exact counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import mannwhitneyu, permutation_test

from benchdoc.stats.ranktest import ASYMPTOTIC, EXACT, mann_whitney, null_u_cdf, uses_exact


def _scipy_permutation_p(a: np.ndarray, b: np.ndarray, alternative: str) -> float:
    def u(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        return mannwhitneyu(x, y, axis=axis).statistic

    return float(
        permutation_test(
            (a, b), u, vectorized=True, permutation_type="independent", alternative=alternative, n_resamples=np.inf
        ).pvalue
    )


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_tied_samples_match_scipys_permutation_test(alternative: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        m, n = (int(v) for v in rng.integers(2, 8, 2))
        a = rng.integers(0, 5, m).astype(float)
        b = rng.integers(0, 5, n).astype(float)
        result = mann_whitney(a, b, alternative)  # type: ignore[arg-type]
        assert result.method == EXACT
        assert result.p_value == pytest.approx(_scipy_permutation_p(a, b, alternative), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_untied_samples_match_scipys_exact_mann_whitney(alternative: str) -> None:
    rng = np.random.default_rng(12)
    for m, n in [(3, 4), (8, 8), (9, 9), (12, 20), (20, 20)]:
        a, b = rng.normal(0.3, 1, m), rng.normal(0, 1, n)
        expected = mannwhitneyu(a, b, alternative=alternative, method="exact").pvalue
        assert mann_whitney(a, b, alternative).p_value == pytest.approx(expected, rel=1e-9)  # type: ignore[arg-type]


def test_u_is_the_candidates_pair_count() -> None:
    a, b = [3.0, 5.0, 5.0], [1.0, 5.0, 7.0, 2.0]
    assert mann_whitney(a, b).u == mannwhitneyu(a, b).statistic == 7.0


def test_exact_up_to_20_on_the_smaller_side() -> None:
    assert uses_exact(20, 20) and uses_exact(5, 90)
    assert not uses_exact(21, 21) and not uses_exact(20, 81)
    rng = np.random.default_rng(13)
    a, b = np.round(rng.normal(0, 1, 21), 1), np.round(rng.normal(0, 1, 25), 1)
    result = mann_whitney(a, b)
    assert result.method == ASYMPTOTIC
    assert result.p_value == pytest.approx(mannwhitneyu(a, b, method="asymptotic").pvalue)


def test_every_value_tied_is_no_evidence() -> None:
    assert mann_whitney([4.0, 4.0, 4.0], [4.0, 4.0]).p_value == 1.0


def test_null_distribution_of_u() -> None:
    cdf = null_u_cdf(3, 3)
    assert len(cdf) == 10 and cdf[-1] == pytest.approx(1.0)
    assert cdf[0] == pytest.approx(1 / math.comb(6, 3))
    assert cdf[1] == pytest.approx(2 / math.comb(6, 3))  # U = 0 or U = 1: one arrangement each
