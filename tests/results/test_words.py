"""words.py: every verdict and status said one way, the same wherever it is shown."""

from __future__ import annotations

import dataclasses
import json

import pytest

from benchdoc.config import MetricConfig
from benchdoc.results import Status
from benchdoc.results.words import (
    delta_mark,
    delta_text,
    format_p,
    status_of_verdict,
    status_phrase,
    verdict_sentence,
    verdict_text,
    vs_cell,
)
from benchdoc.stats import Comparison, adjust_comparisons, compare

BASE = [92.6, 92.4, 92.9, 92.5, 92.7]
SPEED = MetricConfig("output_tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower", equivalence_margin=0.01)


def comparisons() -> dict[str, Comparison]:
    return {
        "better": compare([96.1, 95.8, 96.4, 96.0, 96.3], BASE),
        "worse": compare([80.1, 80.3, 80.0, 80.2, 80.4], BASE),
        "same": compare([92.5, 92.8, 92.4, 92.6, 92.7], BASE),
        "equivalent": compare([92.6, 92.5, 92.7, 92.6, 92.6] * 4, BASE * 4, equivalence_margin=0.01),
        "insufficient": compare([96.1], [92.6]),
    }


def test_one_start_each_says_what_it_cannot_tell() -> None:
    one = compare([96.1, 96.0, 96.2], [92.6, 92.5, 92.7], candidate_starts=[0, 0, 0], baseline_starts=[0, 0, 0])
    assert verdict_text(one, SPEED) == (
        "+3.8% within one server start each: start-to-start variation not measured; need >= 2 starts each"
    )
    assert "faster" not in vs_cell(one, SPEED) and status_of_verdict(one.verdict) is None


def test_each_verdict_in_words() -> None:
    c = comparisons()
    assert [c[k].verdict for k in c] == list(c)
    assert verdict_text(c["better"], SPEED) == "3.8% faster"
    assert verdict_text(c["worse"], SPEED).endswith("% slower")
    assert verdict_text(c["same"]).startswith("inconclusive (p=")
    assert "server starts each" in verdict_text(c["same"])
    assert verdict_text(c["equivalent"]) == "equivalent within ±1%"
    assert verdict_text(c["insufficient"]).endswith("need >= 2 starts each")
    assert delta_text(c["same"]) == "~" and delta_text(c["better"]) == "+3.8%"
    assert [delta_mark(c[k]) for k in c] == ["+3.8%", delta_text(c["worse"]), "~", "~", "+3.8%?"]
    assert vs_cell(c["better"], SPEED) == "3.8% faster (p=<0.001)"


def test_a_corrected_p_says_so() -> None:
    family = adjust_comparisons({"a": compare([92.5, 92.8, 92.4, 92.6, 92.7], BASE), "b": compare(BASE, BASE)}, "holm")
    assert " holm-adjusted)" in verdict_text(family["a"])


def test_the_verdict_sentence_a_value_region_renders() -> None:
    def say(verdict: str, delta: float) -> str:
        return verdict_sentence(verdict, delta, "Baseline", metric=SPEED, margin=0.01)

    assert say("better", 3.8) == "3.8% faster than Baseline"
    assert say("equivalent", 0.1) == "equivalent to Baseline (within ±1%)"
    assert say("same", 0.1) == "inconclusive against Baseline (+0.1%)"
    assert say("insufficient", 3.8) == "+3.8% vs Baseline (too few server starts to tell)"


def test_statuses_are_their_words_in_json_tables_and_comparisons() -> None:
    assert json.dumps([Status.NO_DIFFERENCE]) == '["No difference"]'
    assert f"{Status.FAILED}: OOM" == "Failed: OOM" and str(Status.WORKS) == "Works"
    assert Status.WORKS == "Works" and {Status.WORKS: 1}["Works"] == 1
    assert Status.parse("no  DIFFERENCE") is Status.NO_DIFFERENCE and Status.parse("fine") is None


@pytest.mark.parametrize(
    ("status", "phrase"),
    [(Status.WORKS, "now works"), (Status.FAILED, "now fails"), ("Reference", "is the reference"), ("odd", "is now odd")],
)
def test_status_phrases(status: str, phrase: str) -> None:
    assert status_phrase(status) == phrase


def test_a_lost_comparison_is_slower_for_a_speed_and_worse_otherwise() -> None:
    assert status_of_verdict("worse", measures_speed=True) is Status.SLOWER
    assert status_of_verdict("worse", measures_speed=False) is Status.WORSE
    assert status_of_verdict("better") is Status.WORKS and status_of_verdict("equivalent") is Status.NO_DIFFERENCE
    assert status_of_verdict("insufficient") is None


def test_an_interval_reads_as_a_half_width_only_when_both_sides_round_alike() -> None:
    from benchdoc.results.words import interval_text, summary_text
    from benchdoc.stats import summarize

    symmetric = summarize([92.6, 92.4, 92.9, 92.5, 92.7, 92.3, 92.8])  # [92.3, 92.9] around 92.6
    assert summary_text(symmetric, 1) == "92.6 ± 0.3%"
    lopsided = summarize([40, 41, 39, 40, 42, 40, 60])  # [39, 60] around 40
    assert interval_text(lopsided) == "[-2.5%, +50.0%]"
    assert summary_text(lopsided, 1) == "40.0 [-2.5%, +50.0%]"
    assert summary_text(summarize([1.0, 2.0, 3.0]), 2) == "2.00"  # too few values for an interval


LATENCY = MetricConfig("ttft_ms", "TTFT", unit="ms", direction="lower", better_word="faster", worse_word="slower")
MEMORY = MetricConfig("peak_gb", "Peak memory", unit="GB", direction="lower")
ACCURACY = MetricConfig("acc", "Accuracy", unit="%", better_word="more accurate", worse_word="less accurate")


def test_a_lower_is_better_change_never_reads_as_a_negative_gain() -> None:
    """A latency halved is '2.03x faster', never '-50.8% faster'; a metric that is no speed
    says which way its number moved; a throughput keeps its percentage."""
    halved = compare([49.0, 49.5, 49.2, 48.8, 49.1], [100.0, 99.5, 100.2, 99.8, 100.1], direction="lower")
    assert halved.verdict == "better" and round(halved.delta_pct, 1) == -50.8
    assert vs_cell(halved, LATENCY) == f"2.03x faster (p={format_p(halved.p_used)})"
    assert verdict_text(halved, LATENCY) == "2.03x faster"
    assert vs_cell(halved, MEMORY).startswith("50.8% lower (p=")
    assert verdict_sentence("better", -50.8, "Baseline", metric=MEMORY, margin=None) == "50.8% lower Peak memory than Baseline"
    assert verdict_sentence("better", -50.8, "Baseline", metric=LATENCY, margin=None) == "2.03x faster than Baseline"
    assert verdict_sentence("worse", 25.0, "Baseline", metric=LATENCY, margin=None) == "1.25x slower than Baseline"
    assert verdict_sentence("worse", -10.0, "Baseline", metric=SPEED, margin=None) == "10.0% slower than Baseline"
    assert verdict_sentence("better", 2.0, "Baseline", metric=ACCURACY, margin=None) == "2.0% more accurate than Baseline"
    for metric in (LATENCY, MEMORY, SPEED, ACCURACY):
        for verdict, delta in (("better", halved.delta_pct), ("worse", 25.0)):
            words = verdict_sentence(verdict, delta, "B", metric=metric, margin=None)
            assert "-" not in words and "+" not in words, words


def test_the_design_and_its_variance_components_are_said() -> None:
    from benchdoc.results.words import design_note

    a = [100.0, 100.2, 99.9, 103.0, 103.1, 102.8, 101.0, 101.2, 100.9]
    b = [99.0, 99.1, 98.8, 97.0, 97.2, 96.9, 98.0, 98.1, 98.2]
    starts = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    note = design_note(compare(a, b, candidate_starts=starts, baseline_starts=starts), "tok/s")
    assert note is not None and note.startswith("tok/s: 3 v 3 server starts of about 3 repetitions; between-start CV ")
    assert "within-start CV 0.1" in note
    assert design_note(compare([96.1], [92.6]), "tok/s") is None  # one value a side: no spread to split


def insufficient_text_default(comparison: Comparison) -> str:
    from benchdoc.results.words import insufficient_text

    return insufficient_text(comparison)


def test_one_side_with_one_start_is_not_one_start_each() -> None:
    """A candidate of three starts against a baseline of one: too few starts on one side,
    said with both counts, not as 'one server start each'."""
    lopsided = compare([96.1, 96.0, 96.2], [92.6, 92.5, 92.7], baseline_starts=[0, 0, 0])
    assert lopsided.verdict == "insufficient" and not lopsided.single_start
    assert verdict_text(lopsided, SPEED) == "need >= 2 server starts each (has 3 and 1)"
    assert vs_cell(lopsided, SPEED) == "+3.8% (too few server starts to tell: need >= 2 each)"
    assert delta_mark(lopsided) == "+3.8%?" and status_of_verdict(lopsided.verdict) is None
    one_each = compare([96.1, 96.0], [92.6, 92.5], candidate_starts=[0, 0], baseline_starts=[0, 0])
    assert one_each.single_start and one_each.starts_needed == 2
    assert insufficient_text_default(one_each).startswith(f"{one_each.delta_pct:+.1f}% within one server start each")
    # A comparison that carries no design still says the two starts each side needs.
    from benchdoc.results.words import insufficient_text

    assert insufficient_text(dataclasses.replace(lopsided, starts_needed=None)).startswith("need >= 2 server starts each")
