"""Many comparisons against one baseline: p-value adjustment so the error rate holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from benchdoc.errors import UsageError
from benchdoc.stats.compare import Comparison, compare

if TYPE_CHECKING:
    import numpy as np

CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni", "bh", "none")
CORRECTION_NAMES: dict[str, str] = {
    "holm": "Holm-Bonferroni (family-wise error rate)",
    "bonferroni": "Bonferroni (family-wise error rate)",
    "bh": "Benjamini-Hochberg (false discovery rate)",
    "none": "no correction",
}


def adjust_pvalues(pvalues: Sequence[float], method: str = "holm") -> list[float]:
    """P-values adjusted for testing them together, in the input order.

    ``holm`` (default) and ``bonferroni`` bound the chance of any false "better/worse"
    in the family; ``bh`` bounds the expected share of false ones among those declared;
    ``none`` returns them unchanged. An adjusted p-value is compared with alpha as usual.
    """
    import numpy as np

    if method not in CORRECTIONS:
        raise UsageError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    values = []
    for position, p in enumerate(pvalues):
        number = float(p)
        if not 0.0 <= number <= 1.0:
            raise UsageError(f"p-value {p!r} at position {position} is not between 0 and 1")
        values.append(number)
    if not values or method == "none":
        return values
    adjusted = _adjusted(np.asarray(values, dtype=float), method)
    return [float(p) for p in adjusted]


def compare_many(
    candidates: Mapping[str, Sequence[float]],
    baseline: Sequence[float],
    *,
    direction: str = "higher",
    alpha: float = 0.05,
    confidence: float = 0.95,
    equivalence_margin: float | None = None,
    correction: str = "holm",
) -> dict[str, Comparison]:
    """Compare each candidate against one baseline, correcting for the family of tests.

    Every comparison that could make a test counts in the family. Difference p-values and, with a margin, equivalence
    p-values are adjusted as two separate families with the same method; each Comparison
    records ``p_adjusted``, ``equivalence_p_adjusted`` and ``correction`` and its verdict
    is re-derived from them. The result keeps the candidates' order.
    """
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}")
    raw = {
        name: compare(
            values,
            baseline,
            direction=direction,
            alpha=alpha,
            confidence=confidence,
            equivalence_margin=equivalence_margin,
        )
        for name, values in candidates.items()
    }
    return adjust_comparisons(raw, correction)


def adjust_comparisons(comparisons: Mapping[str, Comparison], correction: str = "holm") -> dict[str, Comparison]:
    """Re-decide already computed comparisons as one family (e.g. across metrics).

    Each comparison records the level the correction leaves it (``alpha_left``: the
    largest p-value that would still have been declared, the others' p-values as they
    are); its interval is then drawn at that level, so it excludes 0 exactly when the
    adjusted p is <= alpha. A comparison that could make no test (fewer than two server
    starts a side) can reject nothing, spends nothing and is left out of the family.
    """
    names = [name for name, comparison in comparisons.items() if comparison.estimate is not None]
    tested = [comparisons[name].p_tested for name in names]
    adjusted_p = adjust_pvalues(tested, correction)
    equivalence_names = [name for name in names if comparisons[name].equivalence_p_tested is not None]
    equivalence_tested = [comparisons[name].equivalence_p_tested or 0.0 for name in equivalence_names]
    adjusted_equivalence = dict(zip(equivalence_names, adjust_pvalues(equivalence_tested, correction)))
    result: dict[str, Comparison] = dict(comparisons)
    for index, (name, p) in enumerate(zip(names, adjusted_p)):
        comparison = comparisons[name]
        level = level_left(tested, index, correction, comparison.alpha)
        equivalence_level = None
        if name in adjusted_equivalence:
            equivalence_index = equivalence_names.index(name)
            equivalence_level = level_left(equivalence_tested, equivalence_index, correction, comparison.alpha)
        result[name] = comparison.with_adjusted(p, correction, adjusted_equivalence.get(name), level, equivalence_level)
    return result


def level_left(pvalues: Sequence[float], index: int, method: str, alpha: float) -> float:
    """The largest p-value the ``index``-th comparison could have and still be declared
    at ``alpha`` by the correction, the others' p-values held as they are."""
    import numpy as np

    if method == "none" or len(pvalues) < 2:
        return alpha
    if method == "bonferroni":
        return alpha / len(pvalues)
    if method == "holm":
        return _holm_level(np.sort(np.delete(np.asarray(pvalues, dtype=float), index)), alpha)
    return _level_by_bisection(np.asarray(pvalues, dtype=float), index, method, alpha)


def _holm_level(others: np.ndarray, alpha: float) -> float:
    """The largest p that Holm's step-down declares among ``others`` (sorted, ascending).

    Placed r-th (others[r-2] <= p <= others[r-1]), p is declared exactly when every
    step before it was, (K - j + 1) * others[j-1] <= alpha for j < r, and
    (K - r + 1) * p <= alpha. The passing p-values form an interval from 0; its upper
    end is the largest of min(others[r-1], alpha / (K - r + 1)) over the places r that
    can be reached. O(K) per comparison, against O(K log K) per step of a search.
    """
    import numpy as np

    count = len(others) + 1
    places = np.arange(1, count + 1)
    bounds = np.concatenate([[0.0], others, [1.0]])  # bounds[r-1] <= p <= bounds[r] at place r
    steps = others * (count - np.arange(1, count) + 1)
    before = np.concatenate([[0.0], np.maximum.accumulate(steps)])  # the largest step before place r
    high = np.minimum(bounds[places], alpha / (count - places + 1))
    reachable = (before <= alpha) & (bounds[places - 1] <= high)
    return float(high[reachable].max())


def _level_by_bisection(pvalues: np.ndarray, index: int, method: str, alpha: float) -> float:
    """The same level for any correction whose adjusted p-value grows with the raw one
    (a raw p of 0 always passes): found by bisection on the raw p-value."""

    def passes(p: float) -> bool:
        trial = pvalues.copy()
        trial[index] = p
        return bool(_adjusted(trial, method)[index] <= alpha)

    low, high = 0.0, 1.0
    if passes(high):
        return high
    for _ in range(60):
        middle = (low + high) / 2.0
        if passes(middle):
            low = middle
        else:
            high = middle
    return low


def _adjusted(array: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of a checked array (the arithmetic of ``adjust_pvalues``)."""
    import numpy as np

    count = len(array)
    if method == "none":
        return array
    if method == "bonferroni":
        return np.minimum(array * count, 1.0)
    if method == "bh":
        from scipy.stats import false_discovery_control

        return np.asarray(false_discovery_control(array, method="bh"), dtype=float)
    # Holm's step-down: the i-th smallest p (0-based) is scaled by (count - i), and an
    # adjusted value may never fall below the one before it in that order.
    order = np.argsort(array, kind="stable")
    stepped = np.maximum.accumulate(array[order] * (count - np.arange(count)))
    adjusted = np.empty(count, dtype=float)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted
