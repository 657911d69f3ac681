"""--until-decided: looks planned so that alpha is spent at most once in total."""

from __future__ import annotations

import numpy as np
import pytest

from benchdoc.runner.sequential import plan_stopping, take_look
from benchdoc.stats import MIN_STARTS


@pytest.mark.parametrize("baseline_n", [2, 3, 5, 10, 30])
def test_the_spent_alpha_never_exceeds_alpha(baseline_n: int) -> None:
    plan = plan_stopping(0.05, 5, 20, baseline_n)
    assert plan.looks, "some look must be able to decide"
    assert len(plan.looks) <= plan.shares
    assert plan.alpha_per_look * len(plan.looks) <= 0.05 + 1e-12
    assert plan.alpha_per_look == pytest.approx(0.05 / plan.shares)
    # Only looks that can reject are taken: with fewer than two starts a side none can.
    for n in range(5, 21):
        assert (n in plan.looks) == (min(n, baseline_n) >= MIN_STARTS)


def test_a_large_baseline_looks_after_every_repetition() -> None:
    plan = plan_stopping(0.05, 5, 20, 30)
    assert plan.looks == tuple(range(5, 21)) and plan.shares == 16
    assert "split over 16 looks (at 5-20 server starts)" in plan.describe()


def test_a_single_baseline_value_can_never_decide() -> None:
    plan = plan_stopping(0.05, 5, 20, 1)
    assert plan.looks == () and "no look can reach significance" in plan.describe()
    with pytest.raises(ValueError):
        plan_stopping(0.05, 10, 5, 5)


def test_a_clear_difference_is_decided_significant() -> None:
    rng = np.random.default_rng(1)
    baseline = list(rng.normal(100, 1, 10))
    plan = plan_stopping(0.05, 5, 20, len(baseline))
    look = take_look(plan, list(rng.normal(110, 1, 8)), baseline, direction="higher")
    assert look.decision == "significant" and look.verdict == "better" and look.repetitions == 8
    assert look.p_value <= plan.alpha_per_look and look.delta_pct > 5


def test_identical_setups_are_decided_equivalent_within_the_margin() -> None:
    rng = np.random.default_rng(2)
    baseline = list(rng.normal(100, 0.2, 20))
    plan = plan_stopping(0.05, 5, 20, len(baseline))
    look = take_look(plan, list(rng.normal(100, 0.2, 20)), baseline, equivalence_margin=0.02)
    assert look.decision == "equivalent" and look.equivalence_p is not None
    assert look.equivalence_p <= plan.alpha_per_look
    undecided = take_look(plan, list(rng.normal(100, 0.2, 5)), baseline)  # no margin: only "significant" stops
    assert undecided.decision is None


def test_until_decided_looks_at_the_level_its_family_correction_leaves_it() -> None:
    from types import SimpleNamespace

    from benchdoc.results.sequential import family_level
    from benchdoc.stats import compare
    from benchdoc.stats.multiple import level_left

    base = [92.6, 92.4, 92.9, 92.5, 92.7]
    others = [compare([92.5, 92.8, 92.4, 92.6, 92.7], base), compare([93.1, 92.8, 93.3, 92.9, 93.2], base)]
    results = [SimpleNamespace(name=f"o{i}", comparisons={"tok_s": c}) for i, c in enumerate(others)]
    results.append(SimpleNamespace(name="me", comparisons={}))
    for correction in ("holm", "bonferroni", "bh", "none"):
        level, family = family_level(results, "me", "tok_s", correction, 0.05)
        expected = 0.05 if correction == "none" else level_left([o.p_value for o in others] + [0.0], 2, correction, 0.05)
        assert family == 3 and level == pytest.approx(expected) and level <= 0.05
        # o1 measured by the same run: its p may become anything, so it counts as the worst (p = 1),
        # and a new experiment of the run ("new") joins the family.
        level, family = family_level(results, "me", "tok_s", correction, 0.05, running=["o1", "new"])
        worst = 0.05 if correction == "none" else level_left([others[0].p_value, 1.0, 1.0, 0.0], 3, correction, 0.05)
        assert family == 4 and level == pytest.approx(worst)
        if correction != "none":
            assert level <= level_left([others[0].p_value, 0.0, 0.0, 0.0], 3, correction, 0.05)
            assert level >= 0.05 / 4  # never below the Bonferroni floor
    assert family_level(results[-1:], "me", "tok_s", "holm", 0.05) == (0.05, 1)
