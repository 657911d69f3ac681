"""results.sequential: a run that `run --until-decided` stopped is shown as its sequential test decided."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.test_results import Runs

from benchdoc.config import parse_config
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.results import Status, compute_results
from benchdoc.results.words import delta_mark, delta_text, format_p, verdict_sentence, vs_cell, vs_line
from benchdoc.runner.sequential import plan_stopping, stopping_record, take_look
from benchdoc.stats import compare

BASE = [92.6, 92.4, 92.9, 92.5, 92.7]
# Twenty values (one a start) that no look (5..20, each at 0.05/16) declared; tested once at
# the full alpha, the same twenty would read "worse".
DRIFTING = [92.34, 92.53, 92.33, 91.68, 92.56, 92.38, 91.99, 92.43, 92.35, 92.32,
            92.21, 92.42, 91.91, 92.13, 92.01, 92.44, 92.22, 92.08, 91.89, 92.1]
AHEAD = [96.0, 96.3, 96.1, 96.4, 96.2, 96.5, 95.9]
PROJECT = """
[metrics.output_tok_s]
label = "tok/s"
direction = "higher"
primary = true

[experiments.baseline]
label = "Baseline"
role = "reference"

[experiments.candidate]
compare_to = "baseline"
"""


def _project(values: list[float], *, baseline_runs: list[int] | None = None, extra: list[float] | None = None) -> Runs:
    """A baseline run (id 1) and the candidate's run as `run --until-decided` records it."""
    plan = plan_stopping(0.05, 5, 20, len(BASE))
    looks = []
    for n in plan.looks:
        if n > len(values):
            break
        looks.append(take_look(plan, values[:n], BASE))
        if looks[-1].decision:
            break
    stopped = looks[-1].repetitions
    record = stopping_record(
        plan, looks, looks[-1].decision, compare_to="baseline", metric="output_tok_s",
        baseline_runs=[1] if baseline_runs is None else baseline_runs, baseline_n=len(BASE), alpha=0.05,
        max_repetitions=20,
    )
    runs = Runs()
    runs.add("baseline", BASE)
    if extra is not None:
        runs.add("candidate", extra)
    runs.add("candidate", values[:stopped])
    runs.runs[-1] = dataclasses.replace(runs.runs[-1], metadata=RunMetadata(until_decided=record))
    return runs


@pytest.fixture
def config():  # type: ignore[no-untyped-def]
    return parse_config(PROJECT, Path("benchdoc.toml"))


def test_a_run_that_stopped_undecided_says_so_everywhere_and_shows_no_direction(config) -> None:  # type: ignore[no-untyped-def]
    assert compare(DRIFTING, BASE).verdict == "worse"  # what reading it as a fixed-size test would say
    result = compute_results(config, _project(DRIFTING).runs)["candidate"]
    comparison = result.comparisons["output_tok_s"]
    assert comparison.verdict == "undecided" and not comparison.significant
    assert comparison.sequential is not None and comparison.sequential.shares == 16
    text = "undecided after 20 server starts (sequential test)"
    assert result.status is Status.MEASURED and result.reason == text
    metric = config.metric_or_default("output_tok_s")
    assert vs_cell(comparison, metric) == text
    assert vs_line(comparison, metric, "baseline") == f"vs baseline: {text}"
    assert delta_text(comparison) == "?" and delta_mark(comparison) == "?"
    sentence = verdict_sentence(
        comparison.verdict, comparison.delta_pct, "Baseline", metric=metric,
        margin=None, sequential=comparison.sequential,
    )
    assert sentence == "undecided against Baseline after 20 server starts (sequential test)"
    for words in (vs_cell(comparison, metric), vs_line(comparison, metric, "baseline"), sentence, result.reason):
        assert "slower" not in words and "faster" not in words and "%" not in words


def test_a_decided_run_shows_the_sequential_p(config) -> None:  # type: ignore[no-untyped-def]
    comparison = compute_results(config, _project(AHEAD).runs)["candidate"].comparisons["output_tok_s"]
    assert comparison.sequential is not None and comparison.sequential.repetitions == 5
    fixed = compare(AHEAD[:5], BASE)
    assert comparison.p_used == pytest.approx(fixed.p_value * 16) and comparison.p_used <= 0.05
    assert comparison.verdict == "better"
    assert f"(p={format_p(comparison.p_used)})" in vs_cell(comparison, config.metric_or_default("output_tok_s"))


def test_pooled_with_other_runs_it_is_an_ordinary_comparison(config) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.results import Pooling

    runs = _project(DRIFTING, extra=[92.3, 92.1, 92.2])
    pooled = compute_results(config, runs.runs, pooling=Pooling("all"))["candidate"].comparisons["output_tok_s"]
    assert pooled.sequential is None and pooled.candidate.n == 23
    assert pooled.starts_candidate == 23


def test_against_other_baseline_runs_than_it_looked_at_it_is_an_ordinary_comparison(config) -> None:  # type: ignore[no-untyped-def]
    comparison = compute_results(config, _project(DRIFTING, baseline_runs=[99]).runs)["candidate"].comparisons
    assert comparison["output_tok_s"].sequential is None
    assert comparison["output_tok_s"].verdict == "worse"


def test_the_runs_other_metrics_are_shown_as_not_decided(config) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.ledger.models import Sample
    from benchdoc.results.words import verdict_text

    runs = _project(AHEAD)
    for index, run in enumerate(runs.runs):  # a TTFT far apart on both runs
        ttft = [(40.0 if index == 0 else 20.0) + i / 10 for i in range(len(run.values("output_tok_s")))]
        runs.runs[index] = dataclasses.replace(run, samples=(*run.samples, *(Sample("ttft_ms", v, i, i) for i, v in enumerate(ttft))))
    result = compute_results(config, runs.runs, all_metrics=True)["candidate"]
    ttft = result.comparisons["ttft_ms"]
    assert compare([20.0 + i / 10 for i in range(5)], [40.0 + i / 10 for i in range(5)]).verdict == "worse"
    assert ttft.verdict == "undecided" and ttft.delta_ci_low is None
    assert verdict_text(ttft) == "not decided: the sequential test stopped on output_tok_s, not on this metric"
    assert result.comparisons["output_tok_s"].verdict == "better"
