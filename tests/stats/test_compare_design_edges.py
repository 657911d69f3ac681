"""Where the suggested number of server starts changes: a shift exactly as large as a number
of starts can find is found by that number, and a shift that only more starts than
``MAX_STARTS_SUGGESTED`` could find gets no suggestion; and the name of the test a
comparison ran."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import stdtrit

from benchdoc.errors import UsageError
from benchdoc.stats import compare
from benchdoc.stats.compare import DESIGN_POWER, MAX_STARTS_SUGGESTED, MIN_STARTS, starts_needed
from benchdoc.stats.summary import summarize
from benchdoc.stats.welch import Welch


def _findable(level: float) -> np.ndarray:
    """The smallest shift each number of starts (from MIN_STARTS to MAX_STARTS_SUGGESTED + 1)
    finds with the design power, start means spread by 1 (computed as the suggestion does,
    so that a shift set to one of these is exactly on its boundary)."""
    sizes = np.arange(MIN_STARTS, MAX_STARTS_SUGGESTED + 2)
    df = 2.0 * sizes - 2.0
    return (stdtrit(df, 1.0 - level / 2.0) + stdtrit(df, DESIGN_POWER)) * np.sqrt(2.0 * 1.0 / sizes)


@given(st.integers(MIN_STARTS, MAX_STARTS_SUGGESTED), st.sampled_from([0.05, 0.1, 0.01]), st.booleans())
def test_a_shift_exactly_findable_by_n_starts_is_suggested_n(n: int, level: float, negative: bool) -> None:
    findable = _findable(level)
    assert np.all(np.diff(findable) < 0)  # more starts find smaller shifts
    size = float(findable[n - MIN_STARTS])
    estimate = Welch(-size if negative else size, 1.0, 2.0)  # two starts a side: one start's spread is se
    assert starts_needed(estimate, 2, 2, level) == n


def test_a_shift_only_more_starts_than_suggested_could_find_gets_no_suggestion() -> None:
    for level in (0.05, 0.1):
        beyond = float(_findable(level)[-1])  # findable with MAX_STARTS_SUGGESTED + 1 starts
        assert starts_needed(Welch(beyond, 1.0, 2.0), 2, 2, level) is None
        assert starts_needed(Welch(float(_findable(level)[-2]), 1.0, 2.0), 2, 2, level) == MAX_STARTS_SUGGESTED


def test_the_test_a_comparison_ran_is_named() -> None:
    a, b = [104.0, 105.0, 103.0, 104.5], [100.0, 101.0, 99.0, 100.5]
    assert compare(a, b).test_method == "welch"
    one_start = compare(a, b, candidate_starts=[0] * 4, baseline_starts=[0] * 4)
    assert one_start.test_method == "fewer than two starts a side" and one_start.estimate is None


def test_equivalence_needs_alpha_below_one_half() -> None:
    """TOST's interval is at 1 - 2 alpha: at alpha 0.5 none is left, and a candidate within
    the margin is not called equivalent; just below, it is."""
    a = [100.0, 100.2, 99.8, 100.1, 99.9, 100.05]
    b = [100.01, 100.2, 99.8, 100.1, 99.9, 100.0]
    at_half = compare(a, b, alpha=0.5, equivalence_margin=0.05)
    assert at_half.equivalent is False and at_half.verdict == "same"
    below = compare(a, b, alpha=0.49, equivalence_margin=0.05)
    assert below.equivalent is True and below.verdict == "equivalent"


def test_two_starts_on_one_side_are_not_a_single_start() -> None:
    """`single_start` is one start on each side; two on either side is not it, though the
    comparison is still insufficient."""
    two, one = [104.0, 105.0, 103.0, 104.5], [100.0, 101.0, 99.0, 100.5]
    for kwargs in ({"candidate_starts": [0, 0, 1, 1], "baseline_starts": [0] * 4},
                   {"candidate_starts": [0] * 4, "baseline_starts": [0, 0, 1, 1]}):
        result = compare(two, one, **kwargs)
        assert result.verdict == "insufficient" and not result.single_start
    assert compare(two, one, candidate_starts=[0] * 4, baseline_starts=[0] * 4).single_start


def test_start_labels_that_do_not_fit_are_a_usage_error_with_a_summary_given() -> None:
    """A summary handed in is reused without reading the labels again; the grouping still
    refuses a label count that differs from the values, as a usage error."""
    a, b = [104.0, 105.0, 103.0, 104.5], [100.0, 101.0, 99.0, 100.5]
    with pytest.raises(UsageError, match="3 start labels for 4 values"):
        compare(a, b, candidate_summary=summarize(a), candidate_starts=[0, 0, 1])
