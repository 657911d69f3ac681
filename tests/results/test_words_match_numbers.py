"""No input gives a word that contradicts the interval beside it (a property test).

Random samples grouped in random server starts, in random families with every
correction, with and without an equivalence margin, read plainly or through a
sequential test: the verdict's words, the status and the interval shown must agree.
"""

from __future__ import annotations

import math
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdoc.config import MetricConfig
from benchdoc.results.words import shift_interval_text, status_of_verdict, verdict_text, vs_cell
from benchdoc.stats import CORRECTIONS, Comparison, Sequential, adjust_comparisons, compare, read_sequentially

SPEED = MetricConfig("tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower")
LATENCY = MetricConfig("ttft_ms", "TTFT", unit="ms", direction="lower", better_word="faster", worse_word="slower")
DIRECTION_WORDS = ("faster", "slower")


@st.composite
def sides(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    """Values of one side with the start of each: 1-6 starts of 1-5 repetitions."""
    starts = draw(st.integers(1, 6))
    centre = draw(st.floats(50.0, 150.0))
    values: list[float] = []
    labels: list[int] = []
    for start in range(starts):
        offset = draw(st.floats(-0.05, 0.05))
        for _ in range(draw(st.integers(1, 5))):
            noise = draw(st.one_of(st.just(0.0), st.floats(-0.03, 0.03)))
            values.append(round(centre * (1 + offset) * (1 + noise), draw(st.integers(0, 3))))
            labels.append(start)
    return values, labels


@st.composite
def families(draw: st.DrawFn) -> tuple[dict[str, Comparison], str, MetricConfig, float | None]:
    baseline, baseline_starts = draw(sides())
    margin = draw(st.one_of(st.none(), st.sampled_from([0.005, 0.01, 0.02, 0.05])))
    metric = draw(st.sampled_from([SPEED, LATENCY]))
    alpha = draw(st.sampled_from([0.05, 0.01, 0.1]))
    family: dict[str, Comparison] = {}
    for index in range(draw(st.integers(1, 4))):
        values, starts = draw(sides())
        comparison = compare(
            values, baseline, direction=metric.direction, alpha=alpha, equivalence_margin=margin,
            candidate_starts=starts, baseline_starts=baseline_starts,
        )
        if draw(st.booleans()):
            decision = draw(st.sampled_from([None, "significant", "equivalent"]))
            comparison = read_sequentially(comparison, Sequential(len(values), draw(st.integers(1, 8)), decision))
        family[f"c{index}"] = comparison
    correction = draw(st.sampled_from(CORRECTIONS))
    if correction != "none" and len(family) > 1:
        family = adjust_comparisons(family, correction)
    return family, correction, metric, margin


def _check(c: Comparison, metric: MetricConfig, margin: float | None) -> None:
    words = verdict_text(c, metric)
    cell = vs_cell(c, metric)
    low, high = c.delta_ci_low, c.delta_ci_high
    says_direction = any(word in words for word in DIRECTION_WORDS) or any(word in cell for word in DIRECTION_WORDS)
    if c.single_start or c.estimate is None:
        assert not says_direction and c.verdict in ("insufficient", "undecided"), words
    if says_direction:
        assert c.verdict in ("better", "worse"), words
        assert low is not None and high is not None
        assert (low > 0 and high > 0) or (low < 0 and high < 0), (words, low, high)
        better = (c.delta_pct > 0) == (metric.direction == "higher")
        assert ("faster" in words) == better, words
        assert not re.search(r"(?<![\d.])0\.0*%|(?<![\d.])1\.0*x", words), words  # no size that reads as none
        shown = shift_interval_text(c) or ""
        assert "+0%" not in shown and "-0%" not in shown and "[0%" not in shown, shown
    if "equivalent" in words:
        assert margin is not None and low is not None and high is not None
        assert -margin * 100 < low <= high < margin * 100 or _log_inside(low, high, margin), (words, low, high)
    if c.verdict == "same":
        assert "inconclusive" in words and "no difference" not in words.lower()
        assert low is not None and high is not None and low <= 0 <= high, (words, low, high)
    if status_of_verdict(c.verdict) is not None and status_of_verdict(c.verdict).value == "No difference":
        assert c.verdict == "equivalent"
    if low is not None and high is not None and c.verdict != "undecided":
        assert low <= c.delta_pct <= high or math.isclose(low, high)


def _log_inside(low: float, high: float, margin: float) -> bool:
    """The margin is ±margin on the log scale: (1 - m) to (1 + m) as a ratio."""
    return (1 - margin) < 1 + low / 100 and 1 + high / 100 < (1 + margin)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families())
def test_no_word_contradicts_the_interval_beside_it(drawn: tuple[dict[str, Comparison], str, MetricConfig, float | None]) -> None:
    family, _, metric, margin = drawn
    for comparison in family.values():
        _check(comparison, metric, margin)
