"""benchdoc.stats.sequential: a run that stopped by the sequential rule is read as that rule decided."""

from __future__ import annotations

import pytest

from benchdoc.errors import UsageError
from benchdoc.results.words import verdict_text
from benchdoc.stats import Sequential, adjust_comparisons, compare, read_sequentially

BASELINE = [92.6, 92.4, 92.9, 92.5, 92.7]
# Fourteen runs whose fixed-sample p is under 0.05 (a "2% worse" verdict read naively)
# but above alpha/16, the level each of sixteen looks was tested at.
DRIFTING = [91.0, 92.3, 90.9, 92.45, 91.2, 92.1, 90.8, 92.2, 91.1, 92.8, 90.7, 92.35, 91.3, 92.0]


def test_stopped_undecided_stays_undecided_whatever_its_last_p() -> None:
    fixed = compare(DRIFTING, BASELINE)
    assert fixed.verdict == "worse"  # what a view that ignores the sequential test would say
    result = read_sequentially(fixed, Sequential(repetitions=14, shares=16, decision=None))
    assert result.verdict == "undecided" and not result.significant
    assert verdict_text(result) == "undecided after 14 runs (sequential test)"
    assert result.delta_ci_low is None
    assert result.p_sequential == pytest.approx(min(1.0, fixed.p_value * 16))
    # A family correction on top cannot give it a direction either.
    corrected = adjust_comparisons({"x": result, "y": compare([96.0, 96.1, 96.2, 96.3, 96.4], BASELINE)})
    assert corrected["x"].verdict == "undecided"


def test_a_decided_run_shows_the_sequential_p() -> None:
    ahead = [96.0, 96.1, 96.2, 96.3, 96.4, 96.5]
    fixed = compare(ahead, BASELINE)
    result = read_sequentially(fixed, Sequential(repetitions=6, shares=3, decision="significant"))
    assert result.p_used == pytest.approx(fixed.p_value * 3)
    assert result.p_used <= 0.05 and result.verdict == "better"
    assert result.p_label == " sequential"
    # The interval shown is the repeated confidence interval: at 1 - alpha / K.
    assert result.delta_ci_level == pytest.approx(1 - 0.05 / 3)
    assert fixed.delta_ci_low is not None and result.delta_ci_low is not None
    assert result.delta_ci_low < fixed.delta_ci_low


def test_the_family_corrects_the_sequential_p_not_the_raw_one() -> None:
    ahead = [96.0, 96.1, 96.2, 96.3, 96.4, 96.5]
    sequential = read_sequentially(compare(ahead, BASELINE), Sequential(6, 3, "significant"))
    other = compare([93.0, 92.2, 92.8, 92.6, 92.5], BASELINE)
    corrected = adjust_comparisons({"seq": sequential, "other": other}, "bonferroni")
    assert corrected["seq"].p_adjusted == pytest.approx(min(1.0, 2 * 3 * sequential.p_value))
    assert corrected["other"].p_adjusted == pytest.approx(min(1.0, 2 * other.p_value))


def test_bad_outcomes_are_refused() -> None:
    fixed = compare(DRIFTING, BASELINE)
    with pytest.raises(UsageError, match="at least one look"):
        read_sequentially(fixed, Sequential(14, 0, None))
    with pytest.raises(UsageError, match="unknown sequential decision 'maybe'"):
        read_sequentially(fixed, Sequential(14, 2, "maybe"))
