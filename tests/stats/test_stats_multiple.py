"""benchdoc.stats.multiple: p-value corrections against hand-worked examples and scipy."""

from __future__ import annotations

import pytest
from scipy.stats import false_discovery_control, mannwhitneyu

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


BASELINE = [92.2, 92.4, 92.6, 92.8, 93.0]
CANDIDATES = {
    "eagle3": [96.0, 96.05, 96.1, 96.2, 96.3],  # fully separated: p = 2/252
    "nccl-tree": [92.7, 93.1, 93.2, 93.3, 93.4],  # two pairs below the baseline: p = 8/252
    "fewer-channels": [92.3, 92.5, 92.7, 92.9, 92.55],  # interleaved: noise
}


def test_holm_turns_a_marginal_win_into_no_difference() -> None:
    raw = {name: compare(values, BASELINE) for name, values in CANDIDATES.items()}
    assert raw["nccl-tree"].verdict == "better"  # p = 0.032 alone
    corrected = compare_many(CANDIDATES, BASELINE)
    assert list(corrected) == list(CANDIDATES)
    raw_p = [mannwhitneyu(v, BASELINE, alternative="two-sided").pvalue for v in CANDIDATES.values()]
    # Holm by hand: 0.0079*3 = 0.024, 0.032*2 = 0.063, then max(0.063, p3).
    expected = [raw_p[0] * 3, raw_p[1] * 2, max(raw_p[1] * 2, raw_p[2])]
    for (name, comparison), p in zip(corrected.items(), expected):
        assert comparison.correction == "holm"
        assert comparison.p_adjusted == pytest.approx(p), name
        assert comparison.p_value == pytest.approx(raw[name].p_value)
    assert corrected["eagle3"].verdict == "better"
    assert corrected["nccl-tree"].verdict == "same"
    assert corrected["nccl-tree"].verdict_text() == f"~ (no significant difference, p={expected[1]:.2g} holm-adjusted)"
    assert corrected["fewer-channels"].verdict == "same"


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


def test_adjusting_already_computed_comparisons_matches_compare_many() -> None:
    raw = {name: compare(values, BASELINE) for name, values in CANDIDATES.items()}
    assert adjust_comparisons(raw, "holm") == compare_many(CANDIDATES, BASELINE)


def test_insufficient_stays_insufficient_after_correction() -> None:
    corrected = compare_many({"one-run": [96.1], "eagle3": CANDIDATES["eagle3"]}, BASELINE)
    assert corrected["one-run"].verdict == "insufficient"
    assert corrected["one-run"].verdict_text() == "need >= 4 runs each"


TIGHT_BASELINE = [92.6, 92.4, 92.9, 92.5, 92.7]
FAR_AHEAD = [110.1, 110.3, 110.5, 110.2, 110.4]  # +19.1%, no overlap with the baseline


def test_a_correction_never_turns_a_large_change_into_no_difference() -> None:
    variants = {f"v{i}": FAR_AHEAD for i in range(1, 11)}
    corrected = compare_many(variants, TIGHT_BASELINE, correction="holm")
    for name, comparison in corrected.items():
        # Each p is the 5 vs 5 floor 2/252; Holm leaves the first of ten alpha/10 = 0.005.
        assert comparison.p_value == pytest.approx(2 / 252), name
        assert comparison.p_adjusted == pytest.approx(10 * 2 / 252), name
        assert comparison.verdict == "insufficient", name
        assert comparison.alpha_left == pytest.approx(0.005, rel=1e-6), name
        assert comparison.runs_needed == 6, name  # 6 vs 6 reaches 2/924 = 0.0022
        assert comparison.verdict_text() == "need >= 6 runs each", name
        assert round(comparison.delta_pct, 1) == 19.1


def test_the_runs_it_asks_for_are_enough() -> None:
    six_ahead = [110.1, 110.3, 110.5, 110.2, 110.4, 110.6]
    six_base = [*TIGHT_BASELINE, 92.8]
    corrected = compare_many({f"v{i}": six_ahead for i in range(1, 11)}, six_base)
    assert {c.verdict for c in corrected.values()} == {"better"}


def test_six_comparisons_still_leave_5_runs_enough() -> None:
    # alpha/6 = 0.0083 is above the 5 vs 5 floor 0.0079.
    corrected = compare_many({f"v{i}": FAR_AHEAD for i in range(1, 7)}, TIGHT_BASELINE)
    assert {c.verdict for c in corrected.values()} == {"better"}
    assert all(c.alpha_left is None for c in corrected.values())


def test_bonferroni_leaves_alpha_over_the_family_size() -> None:
    corrected = compare_many({f"v{i}": FAR_AHEAD for i in range(1, 9)}, TIGHT_BASELINE, correction="bonferroni")
    for comparison in corrected.values():
        assert comparison.alpha_left == pytest.approx(0.05 / 8, rel=1e-6)
        assert comparison.verdict == "insufficient" and comparison.runs_needed == 6


def test_holm_leaves_the_full_alpha_to_the_last_comparison_when_the_others_are_decisive() -> None:
    decisive = [float(v) for v in range(200, 220)]
    many_base = [float(v) for v in range(80, 100)]
    candidates = {f"big{i}": decisive for i in range(9)}
    candidates["small"] = FAR_AHEAD
    base_small = {**{name: compare(values, many_base) for name, values in candidates.items() if name != "small"}}
    base_small["small"] = compare(FAR_AHEAD, TIGHT_BASELINE)
    corrected = adjust_comparisons(base_small, "holm")
    # The nine p-values of 1e-11 go first; the last step tests 2/252 at the full alpha.
    assert corrected["small"].verdict == "better"
    assert corrected["small"].alpha_left is None


def test_a_marginal_result_that_could_have_passed_stays_no_difference() -> None:
    corrected = compare_many(CANDIDATES, BASELINE)
    assert corrected["nccl-tree"].verdict == "same"
    assert corrected["nccl-tree"].alpha_left is None and corrected["nccl-tree"].runs_needed is None


def test_too_few_runs_in_a_family_ask_for_runs_at_the_level_left() -> None:
    corrected = compare_many({"four": FAR_AHEAD[:4], **{f"v{i}": FAR_AHEAD for i in range(9)}}, TIGHT_BASELINE[:4] + [92.8])
    assert corrected["four"].verdict == "insufficient"
    assert corrected["four"].runs_needed == 6


def test_holms_level_in_closed_form_matches_a_search_on_the_adjusted_p() -> None:
    import numpy as np

    from benchdoc.stats.multiple import _holm_level, _level_by_bisection

    rng = np.random.default_rng(5)
    for _ in range(200):
        count = int(rng.integers(2, 12))
        pvalues = rng.uniform(0, 0.05, count) ** rng.uniform(0.5, 2)
        index = int(rng.integers(count))
        closed = _holm_level(np.sort(np.delete(pvalues, index)), 0.05)
        searched = _level_by_bisection(pvalues.copy(), index, "holm", 0.05, 1.0)
        assert closed == pytest.approx(searched, rel=1e-9, abs=1e-15)


def test_benjamini_hochberg_asks_for_runs_at_the_level_it_leaves() -> None:
    noise = [92.5, 92.7, 92.6, 92.4, 92.8]  # p = 1 against the baseline
    candidates = {"far": FAR_AHEAD, **{f"n{i}": noise for i in range(9)}}
    corrected = compare_many(candidates, TIGHT_BASELINE, correction="bh")
    # Alone at the top of ten, BH tests it at alpha/10 = 0.005: 5 runs each (2/252) cannot.
    assert corrected["far"].verdict == "insufficient"
    assert corrected["far"].alpha_left == pytest.approx(0.005, rel=1e-6)
    assert corrected["far"].runs_needed == 6
