"""The notes and warnings words.py writes beside a result: each says the figures it is given
(the failed share as a percentage of the requests, the limit, the counts, the run) and
each of its branches says something different."""

from __future__ import annotations

from datetime import datetime, timezone

from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.models import RunRecord
from benchdoc.results.reliability import Reliability
from benchdoc.results.words import (
    against_unreliable_note,
    failed_share_text,
    failure_reason,
    interval_note,
    outlier_rule,
    starved_warning,
    unreliable_flag,
    unreliable_note,
    unreliable_reference_warning,
    unreliable_warning,
)
from benchdoc.stats.summary import OUTLIER_IQR_FACTOR

T0 = datetime(2026, 1, 5, tzinfo=timezone.utc)


def _run(reason: str | None, cause: str | None = None) -> RunRecord:
    return RunRecord(
        id=3, experiment="eagle3", outcome="failed" if reason or cause else "ok", started_at=T0, finished_at=T0,
        failure_reason=reason, failure_log_line=None, command=None, host=None, git_commit=None, git_dirty=None,
        environment={}, note=None, source="record", metadata=RunMetadata(), failure_cause=cause,
    )


def test_a_failure_is_explained_by_its_cause_then_its_reason() -> None:
    assert failure_reason(_run("exit code 1", cause="CUDA out of memory")) == "CUDA out of memory (exit code 1)"
    assert failure_reason(_run("readiness timeout")) == "readiness timeout"
    assert failure_reason(_run(None)) == "failed"  # nothing recorded: still a reason to show


def test_the_failed_share_says_its_counts_when_there_are_some() -> None:
    counted = Reliability(rate=0.95, limit=0.05, requests=100, failed=95, cut_short=90)
    assert failed_share_text(counted) == "95.0% of requests failed (95 of 100; 90 cut short)"
    none_cut = Reliability(rate=0.2, limit=0.05, requests=10, failed=2, cut_short=0)
    assert failed_share_text(none_cut) == "20.0% of requests failed (2 of 10)"
    rate_only = Reliability(rate=0.125, limit=0.1)
    assert failed_share_text(rate_only) == "12.5% error rate"


def test_an_unreliable_result_is_said_with_its_share_and_limit() -> None:
    r = Reliability(rate=0.5, limit=0.05, requests=20, failed=10, cut_short=0)
    assert unreliable_note(r) == "unreliable: 50.0% of requests failed (10 of 20), above the 5% limit"
    assert unreliable_note(Reliability(rate=0.5, limit=0.25)).endswith("above the 25% limit")
    assert unreliable_flag(r) == "unreliable: 50.0% failed"
    assert against_unreliable_note("Baseline", r) == "compared with Baseline, unreliable: 50.0% failed"
    warning = unreliable_warning("eagle3", r)
    assert warning.startswith("eagle3 is unreliable: 50.0% of requests failed (10 of 20), above the 5% limit; ")
    reference = unreliable_reference_warning("eagle3", "baseline", r)
    assert reference.startswith("eagle3 is compared with baseline, which is unreliable: 50.0% of requests failed")
    assert "few requests that succeeded" in reference


def test_a_starved_run_is_named_as_the_result_or_as_what_it_is_compared_with() -> None:
    sentence = "repetitions 2 and 5 were starved of CPU"
    assert starved_warning("eagle3", 12, sentence) == f"eagle3: run 12: {sentence}"
    assert starved_warning("eagle3", 9, sentence, against="baseline") == (
        f"eagle3 is compared with baseline, whose run 9: {sentence}"
    )


def test_footnotes_say_the_level_and_the_outlier_factor() -> None:
    assert interval_note(0.95).startswith("± is the half-width of the 95% interval of the median")
    assert "of the 99.5% interval" in interval_note(0.995)
    assert outlier_rule().startswith(f"outside {OUTLIER_IQR_FACTOR:g}×IQR of the quartiles")


def test_a_line_against_the_reference_shows_a_signed_delta_only_with_a_test() -> None:
    from benchdoc.config import MetricConfig
    from benchdoc.results.words import verdict_text, vs_line
    from benchdoc.stats import Sequential, compare, read_sequentially

    speed = MetricConfig("tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower")
    side = [1.0, 1.0004, 0.9996, 1.0002, 0.9998]
    better = compare([103 * v for v in side], [100 * v for v in side])
    assert vs_line(better, speed, "baseline") == "+3.0% vs baseline: 3.0% faster"
    assert vs_line(better, speed, "baseline", digits=2) == "+3.0% vs baseline: 3.00% faster"
    same = compare([100.0, 104.0, 97.0], [101.0, 99.0, 103.0])
    assert vs_line(same, speed, "baseline") == f"{same.delta_pct:+.1f}% vs baseline: {verdict_text(same, speed)}"
    stopped = read_sequentially(better, Sequential(7, 3, None))
    assert vs_line(stopped, speed, "baseline") == "vs baseline: undecided after 7 runs (sequential test)"
    one = compare([101.0], [100.0])
    assert vs_line(one, speed, "main").startswith("vs main: +1.0% within one server start each")


def test_how_far_a_sequential_test_went_is_said_in_its_own_unit() -> None:
    from benchdoc.config import MetricConfig
    from benchdoc.results.words import stopped_after, verdict_sentence
    from benchdoc.stats import Sequential

    assert stopped_after(Sequential(7, 3, None, starts=4)) == "4 server starts"
    assert stopped_after(Sequential(7, 3, None, starts=1)) == "1 server start"
    assert stopped_after(Sequential(7, 3, None)) == "7 runs"  # a record from before starts were counted
    assert stopped_after(None) == "0 runs"
    speed = MetricConfig("tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower")

    def say(sequential: Sequential | None) -> str:
        return verdict_sentence("undecided", 0.4, "Baseline", metric=speed, margin=None, sequential=sequential)

    assert say(Sequential(20, 5, None, starts=20)) == "undecided against Baseline after 20 server starts (sequential test)"
    assert say(None) == "undecided against Baseline (sequential test)"
    assert say(Sequential(9, 5, None, decided_on="ttft_ms", starts=9)) == (
        "not decided against Baseline: the sequential test stopped on ttft_ms, not on this metric"
    )


def test_sizes_that_round_to_one_or_to_nothing_keep_their_digits() -> None:
    from benchdoc.config import MetricConfig
    from benchdoc.results.words import change_words

    speed = MetricConfig("tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower")
    latency = MetricConfig("ttft", "TTFT", unit="ms", direction="lower", better_word="faster", worse_word="slower")
    assert change_words(1.04, speed) == "1.0% faster"  # 1.0 is a size, not the ratio's 1.00x
    assert change_words(0.04, speed) == "0.04% faster"
    for tiny in (1e-9, -3e-12, 4e-8):
        text = change_words(tiny, speed)
        size = float(text.split("%")[0])
        assert size != 0 and text.endswith("faster" if tiny > 0 else "slower"), text
    # A latency that fell to zero has no ratio of times: said as a percentage.
    assert change_words(-100.0, latency) == "100.0% faster"


def test_a_latency_that_falls_to_zero_is_compared() -> None:
    from benchdoc.config import MetricConfig
    from benchdoc.results.words import vs_cell
    from benchdoc.stats import compare

    latency = MetricConfig("wait_s", "Wait", unit="s", direction="lower", better_word="faster", worse_word="slower")
    c = compare([0.0, 0.0, 0.0], [0.02, 0.03, 0.025], direction="lower")
    assert c.verdict == "better" and c.delta_pct == -100.0
    assert vs_cell(c, latency).startswith("100.0% faster (p=")


def test_the_variance_components_are_said_in_percent() -> None:
    import dataclasses

    from benchdoc.results.words import components_text, design_note
    from benchdoc.stats import compare
    from benchdoc.stats.starts import Components

    c = compare([100.0, 101.0, 102.0], [99.0, 100.0, 101.0])
    shown = dataclasses.replace(c, components=Components(between_cv=0.012, within_cv=0.004, repetitions=3))
    assert components_text(shown) == "between-start CV 1.2%, within-start CV 0.4%"
    one = dataclasses.replace(c, components=Components(between_cv=0.012, within_cv=None, repetitions=1))
    assert components_text(one) == "between-start CV 1.2%"
    assert design_note(one, "tok/s") == "tok/s: 3 v 3 server starts of about 1 repetition; between-start CV 1.2%"
    assert components_text(dataclasses.replace(c, components=Components(None, None, 1))) is None


def test_an_interval_around_a_median_of_one_is_shown() -> None:
    from benchdoc.results.words import interval_text
    from benchdoc.stats import summarize

    at_one = summarize([0.9, 0.95, 1.0, 1.0, 1.0, 1.05, 1.1])
    assert at_one.median == 1.0 and interval_text(at_one) == "± 10.0%"


def test_a_lost_comparison_is_slower_by_default() -> None:
    from benchdoc.results import Status
    from benchdoc.results.words import status_of_verdict

    assert status_of_verdict("worse") is Status.SLOWER  # metrics are speeds unless said otherwise


def test_no_p_is_shown_where_no_test_decides() -> None:
    from benchdoc.results.words import DASH, p_text, tested
    from benchdoc.stats import Sequential, compare, read_sequentially

    c = compare([103.0, 103.1, 102.9], [100.0, 100.1, 99.9])
    assert tested(c) and p_text(c) == "<0.001"
    assert not tested(compare([101.0], [100.0])) and p_text(compare([101.0], [100.0])) == DASH
    other = read_sequentially(c, Sequential(7, 3, None, decided_on="ttft_ms"))
    assert not tested(other) and p_text(other) == DASH
    own = read_sequentially(c, Sequential(7, 3, "significant"))
    assert tested(own) and p_text(own) != DASH


def test_a_size_past_six_more_places_keeps_seven_significant_digits() -> None:
    from benchdoc.config import MetricConfig
    from benchdoc.results.words import change_words

    speed = MetricConfig("tok_s", "tok/s", unit="tok/s", better_word="faster", worse_word="slower")
    assert change_words(1.23456789e-9, speed) == "1.234568e-09% faster"
    assert change_words(0.0000123, speed) == "0.00001% faster"  # six more places still show it
    assert change_words(1.2e-7, speed) == "1.2e-07% faster"  # seven would be one too many


def test_an_interval_bound_is_fixed_to_six_places_then_in_exponent_form() -> None:
    import dataclasses

    from benchdoc.results.words import shift_interval_text
    from benchdoc.stats import compare

    c = compare([103.0, 103.1, 102.9], [100.0, 100.1, 99.9])
    shown = dataclasses.replace(c, delta_ci_low=0.000001, delta_ci_high=6.25, delta_ci_level=0.95)
    assert shift_interval_text(shown) == "[+0.000001%, +6.2%] (95%)"
    assert shift_interval_text(dataclasses.replace(shown, delta_ci_low=1e-7)) == "[+1.00e-07%, +6.2%] (95%)"


def test_the_outlier_mark_tables_put_beside_a_median() -> None:
    from benchdoc.results.words import OUTLIER_MARK

    assert OUTLIER_MARK == "†"
