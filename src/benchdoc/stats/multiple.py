"""Many comparisons against one baseline: p-value adjustment so the error rate holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchdoc.errors import UsageError
from benchdoc.stats.compare import DEFAULT_BOOTSTRAP, Comparison, compare

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
    array = np.asarray(values, dtype=float)
    count = len(values)
    if method == "bonferroni":
        adjusted = np.minimum(array * count, 1.0)
    elif method == "bh":
        from scipy.stats import false_discovery_control

        adjusted = false_discovery_control(array, method="bh")
    else:
        # Holm's step-down: the i-th smallest p (0-based) is scaled by (count - i), and an
        # adjusted value may never fall below the one before it in that order.
        order = np.argsort(array, kind="stable")
        stepped = np.maximum.accumulate(array[order] * (count - np.arange(count)))
        adjusted = np.empty(count, dtype=float)
        adjusted[order] = np.minimum(stepped, 1.0)
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
    seed: int = 0,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
) -> dict[str, Comparison]:
    """Compare each candidate against one baseline, correcting for the family of tests.

    Every comparison counts in the family, including those whose sizes are insufficient
    (they were still looked at). Difference p-values and, with a margin, equivalence
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
            seed=seed,
            n_bootstrap=n_bootstrap,
        )
        for name, values in candidates.items()
    }
    return adjust_comparisons(raw, correction)


def adjust_comparisons(comparisons: Mapping[str, Comparison], correction: str = "holm") -> dict[str, Comparison]:
    """Re-decide already computed comparisons as one family (e.g. across metrics)."""
    names = list(comparisons)
    adjusted_p = adjust_pvalues([comparisons[name].p_value for name in names], correction)
    equivalence_names = [name for name in names if comparisons[name].equivalence_p is not None]
    adjusted_equivalence = dict(
        zip(
            equivalence_names,
            adjust_pvalues([comparisons[name].equivalence_p for name in equivalence_names], correction),  # type: ignore[misc]
        )
    )
    return {
        name: comparisons[name].with_adjusted(p, correction, adjusted_equivalence.get(name))
        for name, p in zip(names, adjusted_p)
    }
