"""No input gives a word that contradicts the interval beside it (a property test).

Random samples grouped in random server starts, in random families with every
correction, with and without an equivalence margin, read plainly or through a
sequential test: the verdict's words, the status and the interval shown must agree.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from benchdoc.config import Config, MetricConfig, parse_config
from benchdoc.ledger.metadata import RunMetadata, SequentialTest
from benchdoc.ledger.models import RunRecord, Sample
from benchdoc.results import compute_results
from benchdoc.results.sequential import family_level
from benchdoc.results.status import Status
from benchdoc.results.words import (
    shift_interval_text,
    status_of_verdict,
    verdict_sentence,
    verdict_text,
    vs_cell,
    vs_line,
)
from benchdoc.runner.sequential import Look, plan_stopping, stopping_record, take_look
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


# Through the views: runs as the ledger gives them back, some recorded by `run --until-decided`
# with the runner's own looks (the baseline running alongside in rounds, each candidate
# deciding at the level its family correction leaves it), read by the one computation every
# view prints (`compute_results`): the words, the status and the interval must agree, on the
# metric decided on and on the secondary one.

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
METRICS = {"tok_s": SPEED, "ttft_ms": LATENCY}


def _record(run_id: int, name: str, values: dict[str, list[list[float]]], starts: int,
            until_decided: SequentialTest | None = None) -> RunRecord:
    started = T0 + timedelta(minutes=run_id)
    samples = tuple(
        Sample(metric, value, repetition, start)
        for metric, by_start in values.items()
        for start, repetitions in enumerate(by_start[:starts])
        for repetition, value in enumerate(repetitions)
    )
    return RunRecord(
        id=run_id, experiment=name, outcome="ok", started_at=started, finished_at=started + timedelta(seconds=30),
        failure_reason=None, failure_log_line=None, command=None, host=None, git_commit=None, git_dirty=None,
        environment={}, note=None, source="run", metadata=RunMetadata(until_decided=until_decided), samples=samples,
    )


@st.composite
def measured(draw: st.DrawFn, starts: int) -> dict[str, list[list[float]]]:
    """Both metrics of one experiment: ``starts`` server starts of 1-3 repetitions."""
    values: dict[str, list[list[float]]] = {}
    for metric in METRICS:
        centre = draw(st.floats(50.0, 150.0))
        spread = draw(st.sampled_from([0.0, 0.002, 0.01, 0.04]))
        reps = draw(st.integers(1, 3))
        values[metric] = [
            [round(centre * (1 + offset) * (1 + draw(st.floats(-spread, spread))), 3) for _ in range(reps)]
            for offset in draw(st.lists(st.floats(-spread, spread), min_size=starts, max_size=starts))
        ]
    return values


def _stopped(config: Config, name: str, names: list[str], values: dict[str, list[list[float]]],
             baseline: dict[str, list[list[float]]], first: int, most: int) -> tuple[int, SequentialTest]:
    """The starts a `run --until-decided` of ``name`` ran, the baseline alongside, and what it recorded."""
    level, _ = family_level([], name, "tok_s", config.stats.correction, config.stats.alpha, running=names)
    plan = plan_stopping(level, first, most, most)
    margin = config.metric_or_default("tok_s").equivalence_margin
    looks: list[Look] = []
    decision = None
    for n in plan.looks:
        mine = [(v, s) for s, reps in enumerate(values["tok_s"][:n]) for v in reps]
        theirs = [(v, s) for s, reps in enumerate(baseline["tok_s"][:n]) for v in reps]
        look = take_look(plan, [v for v, _ in mine], [v for v, _ in theirs], equivalence_margin=margin,
                         candidate_starts=[s for _, s in mine], baseline_starts=[s for _, s in theirs])
        looks.append(look)
        if look.decision is not None:
            decision = look.decision
            break
    stopped = looks[-1].starts if looks else first
    record = stopping_record(plan, looks, decision, compare_to="base", metric="tok_s", baseline_runs=[1],
                             baseline_n=sum(len(r) for r in baseline["tok_s"][:stopped]),
                             alpha=config.stats.alpha, max_repetitions=most)
    return stopped, record


@st.composite
def ledgers(draw: st.DrawFn) -> tuple[Config, list[RunRecord], list[str], float | None]:
    size = draw(st.integers(1, 3))
    names = [f"c{i}" for i in range(size)]
    margin = draw(st.one_of(st.none(), st.sampled_from([0.005, 0.01, 0.02, 0.05])))
    alpha = draw(st.sampled_from([0.05, 0.01, 0.1]))
    correction = draw(st.sampled_from(CORRECTIONS))
    equivalence = f'equivalence_margin = "{margin * 100:g}%"' if margin is not None else ""
    config = parse_config(
        f'[stats]\nalpha = {alpha}\ncorrection = "{correction}"\n\n'
        f'[metrics.tok_s]\nlabel = "tok/s"\nunit = "tok/s"\nprimary = true\n{equivalence}\n\n'
        '[metrics.ttft_ms]\nlabel = "TTFT"\nunit = "ms"\ndirection = "lower"\n\n'
        '[experiments.base]\nrole = "reference"\n'
        + "".join(f'\n[experiments.{n}]\ncompare_to = "base"\n' for n in names),
        Path("benchdoc.toml"),
    )
    until_decided = draw(st.booleans())
    most = draw(st.integers(2, 6))
    first = draw(st.integers(1 if not until_decided else 2, most))
    baseline = draw(measured(most))
    runs: list[RunRecord] = []
    longest = 0
    for index, name in enumerate(names):
        values = draw(measured(most))
        if until_decided:  # one run of all the candidates, the baseline alongside
            stopped, record = _stopped(config, name, names, values, baseline, first, most)
        else:
            stopped, record = draw(st.integers(1, most)), None
        longest = max(longest, stopped)
        runs.append(_record(2 + index, name, values, stopped, record))
    runs.append(_record(1, "base", baseline, longest if until_decided else draw(st.integers(1, most))))
    return config, runs, names, margin


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ledgers())
def test_no_view_contradicts_its_numbers_after_a_run_or_a_run_until_decided(
    drawn: tuple[Config, list[RunRecord], list[str], float | None],
) -> None:
    config, runs, names, margin = drawn
    results = compute_results(config, runs)
    for name in names:
        result = results[name]
        for metric, wording in METRICS.items():
            c = result.comparisons.get(metric)
            if c is None:
                continue
            _check(c, wording, margin if metric == "tok_s" else None)
            event(f"{metric}: {c.verdict}{' (sequential)' if c.sequential is not None else ''}")
            sentence = verdict_sentence(c.verdict, c.delta_pct, "base", metric=wording,
                                        margin=c.equivalence_margin, sequential=c.sequential)
            line = vs_line(c, wording, "base")
            for text in (sentence, line):
                if any(word in text for word in DIRECTION_WORDS):
                    assert c.verdict in ("better", "worse") and c.delta_ci_low is not None, text
                    assert c.delta_ci_high is not None and (c.delta_ci_low > 0 or c.delta_ci_high < 0), text
                assert "no difference" not in text.lower() or c.verdict == "equivalent", text
            if c.sequential is not None and c.sequential.decided_on:  # the secondary metric of a stopped run
                assert c.verdict == "undecided" and "not decided" in sentence and "tok_s" in sentence, sentence
        c = result.comparisons.get("tok_s")
        if c is None:
            continue
        # The status is the primary metric's verdict: "Works" only beside an interval above
        # zero, "No difference" only with equivalence shown, never either from one start a side.
        if result.status in (Status.WORKS, Status.SLOWER):
            assert c.verdict == ("better" if result.status is Status.WORKS else "worse")
            assert c.delta_ci_low is not None and c.delta_ci_high is not None
            assert (c.delta_ci_low > 0) if result.status is Status.WORKS else (c.delta_ci_high < 0)
        if result.status is Status.NO_DIFFERENCE:
            assert c.verdict == "equivalent" and c.equivalent and margin is not None
            assert c.delta_ci_low is not None and c.delta_ci_high is not None
            assert -margin * 100 < c.delta_ci_low <= c.delta_ci_high < margin * 100
        if c.single_start or c.estimate is None:
            assert result.status not in (Status.WORKS, Status.SLOWER, Status.NO_DIFFERENCE, Status.INCONCLUSIVE)
            assert c.verdict in ("insufficient", "undecided")
