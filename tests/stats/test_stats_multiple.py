"""benchdoc.stats.multiple: p-value corrections against hand-worked examples and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import false_discovery_control, ttest_ind

from benchdoc.errors import UsageError
from benchdoc.stats import adjust_comparisons, adjust_pvalues, compare, compare_many

PVALUES = [0.01, 0.04, 0.03, 0.005]


def test_holm_hand_worked() -> None:
    # Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> raised to 0.06.
    assert adjust_pvalues(PVALUES) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust_pvalues(PVALUES, "holm") == adjust_pvalues(PVALUES)


def test_holm_caps_at_one_and_keeps_order_for_ties() -> None:
    assert adjust_pvalues([0.5, 0.6]) == [1.0, 1.0]
    assert adjust_pvalues([0.02, 0.02, 0.5]) == pytest.approx([0.06, 0.06, 0.5])


def test_bonferroni_hand_worked() -> None:
    assert adjust_pvalues(PVALUES, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust_pvalues([0.3, 0.5], "bonferroni") == [0.6, 1.0]


def test_benjamini_hochberg_hand_worked_and_against_scipy() -> None:
    # Sorted p*m/rank: 0.02, 0.02, 0.04, 0.04; cumulative minimum from the largest down.
    assert adjust_pvalues(PVALUES, "bh") == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust_pvalues(PVALUES, "bh") == pytest.approx(list(false_discovery_control(PVALUES)))


def test_none_and_empty() -> None:
    assert adjust_pvalues(PVALUES, "none") == PVALUES
    assert adjust_pvalues([], "holm") == []


def test_bad_corrections_and_p_values_are_refused() -> None:
    with pytest.raises(UsageError, match="unknown correction 'sidak'"):
        adjust_pvalues(PVALUES, "sidak")
    with pytest.raises(UsageError, match="position 1 is not between 0 and 1"):
        adjust_pvalues([0.1, 1.5])


BASELINE = [92.2, 92.4, 92.6, 92.8, 93.0]  # one value per server start
CANDIDATES = {
    "eagle3": [96.0, 96.05, 96.1, 96.2, 96.3],  # far ahead
    "nccl-tree": [92.7, 93.1, 93.2, 92.9, 93.4],  # a little ahead: p = 0.039 alone
    "fewer-channels": [92.3, 92.5, 92.7, 92.9, 92.55],  # noise
}


def test_holm_turns_a_marginal_win_into_inconclusive_and_widens_its_interval() -> None:
    raw = {name: compare(values, BASELINE) for name, values in CANDIDATES.items()}
    assert raw["nccl-tree"].verdict == "better"
    corrected = compare_many(CANDIDATES, BASELINE)
    assert list(corrected) == list(CANDIDATES)
    raw_p = [ttest_ind(np.log(v), np.log(BASELINE), equal_var=False).pvalue for v in CANDIDATES.values()]
    order = np.argsort(raw_p)
    expected = adjust_pvalues(raw_p, "holm")
    for (name, comparison), p in zip(corrected.items(), expected):
        assert comparison.correction == "holm"
        assert comparison.p_adjusted == pytest.approx(p), name
        assert comparison.p_value == pytest.approx(raw[name].p_value)
    assert order[0] == 0 and corrected["eagle3"].verdict == "better"
    tree = corrected["nccl-tree"]
    assert tree.verdict == "same"
    # The interval beside it is drawn at the level Holm left it, so it now covers 0.
    assert tree.alpha_left is not None and tree.alpha_left < 0.05
    assert tree.delta_ci_level == pytest.approx(1 - tree.alpha_left)
    assert (tree.delta_ci_low or 0) <= 0 <= (tree.delta_ci_high or 0)
    assert raw["nccl-tree"].delta_ci_low is not None and raw["nccl-tree"].delta_ci_low > 0


def test_no_correction_keeps_the_raw_verdicts() -> None:
    corrected = compare_many(CANDIDATES, BASELINE, correction="none")
    assert corrected["nccl-tree"].verdict == "better"
    assert corrected["nccl-tree"].p_adjusted == corrected["nccl-tree"].p_value


def test_equivalence_p_values_are_corrected_as_their_own_family() -> None:
    near = {
        "a": [100.0, 100.2, 99.9, 100.1, 99.8, 100.05],
        "b": [100.02, 99.97, 100.08, 99.9, 100.1, 100.0],
    }
    baseline = [100.1, 99.95, 100.0, 99.85, 100.15, 100.02]
    corrected = compare_many(near, baseline, equivalence_margin=0.01, correction="bonferroni")
    for name, comparison in corrected.items():
        assert comparison.equivalence_p_adjusted == pytest.approx(min(1.0, comparison.equivalence_p * 2)), name
        assert comparison.verdict == "equivalent"
        assert comparison.delta_ci_level == pytest.approx(1 - 2 * 0.025)


def test_adjusting_already_computed_comparisons_matches_compare_many() -> None:
    raw = {name: compare(values, BASELINE) for name, values in CANDIDATES.items()}
    assert adjust_comparisons(raw, "holm") == compare_many(CANDIDATES, BASELINE)


def test_a_comparison_that_cannot_test_is_left_out_of_the_family() -> None:
    corrected = compare_many({"one-start": [96.1], "eagle3": CANDIDATES["eagle3"]}, BASELINE)
    assert corrected["one-start"].verdict == "insufficient"
    assert corrected["one-start"].p_adjusted is None
    alone = compare(CANDIDATES["eagle3"], BASELINE)
    assert corrected["eagle3"].p_adjusted == pytest.approx(alone.p_value)  # a family of one


TIGHT_BASELINE = [92.6, 92.4, 92.9, 92.5, 92.7]
FAR_AHEAD = [110.1, 110.3, 110.5, 110.2, 110.4]  # +19.1%


def test_a_correction_never_turns_a_large_change_into_inconclusive() -> None:
    variants = {f"v{i}": FAR_AHEAD for i in range(1, 11)}
    for correction in ("holm", "bonferroni", "bh"):
        corrected = compare_many(variants, TIGHT_BASELINE, correction=correction)
        assert {c.verdict for c in corrected.values()} == {"better"}, correction
        for comparison in corrected.values():
            assert round(comparison.delta_pct, 1) == 19.1
            assert comparison.delta_ci_low is not None and comparison.delta_ci_low > 0


def test_bonferroni_leaves_alpha_over_the_family_size() -> None:
    corrected = compare_many({f"v{i}": FAR_AHEAD for i in range(1, 9)}, TIGHT_BASELINE, correction="bonferroni")
    for comparison in corrected.values():
        assert comparison.alpha_left == pytest.approx(0.05 / 8, rel=1e-6)
        assert comparison.delta_ci_level == pytest.approx(1 - 0.05 / 8)


def test_holm_leaves_the_full_alpha_to_the_last_comparison_when_the_others_are_decisive() -> None:
    decisive = [float(v) for v in range(200, 220)]
    many_base = [float(v) for v in range(80, 100)]
    family = {f"big{i}": compare(decisive, many_base) for i in range(9)}
    family["small"] = compare(FAR_AHEAD, TIGHT_BASELINE)
    corrected = adjust_comparisons(family, "holm")
    assert corrected["small"].verdict == "better"
    assert corrected["small"].alpha_left == pytest.approx(0.05)


def test_holms_level_in_closed_form_matches_a_search_on_the_adjusted_p() -> None:
    from benchdoc.stats.multiple import _holm_level, _level_by_bisection

    rng = np.random.default_rng(5)
    for _ in range(200):
        count = int(rng.integers(2, 12))
        pvalues = rng.uniform(0, 0.05, count) ** rng.uniform(0.5, 2)
        index = int(rng.integers(count))
        closed = _holm_level(np.sort(np.delete(pvalues, index)), 0.05)
        searched = _level_by_bisection(pvalues.copy(), index, "holm", 0.05)
        assert closed == pytest.approx(searched, rel=1e-9, abs=1e-15)


def test_an_adjusted_p_passes_exactly_when_the_raw_p_is_within_the_level_left() -> None:
    from benchdoc.stats.multiple import level_left

    rng = np.random.default_rng(7)
    for method in ("holm", "bonferroni", "bh"):
        for _ in range(100):
            pvalues = list(rng.uniform(0, 0.1, int(rng.integers(2, 8))))
            adjusted = adjust_pvalues(pvalues, method)
            for index, p in enumerate(pvalues):
                level = level_left(pvalues, index, method, 0.05)
                if abs(p - level) > 1e-9:
                    assert (adjusted[index] <= 0.05) == (p <= level), (method, pvalues, index)
