"""The query layer: ResultSet.select, .metric and .compare, and LazyResults."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG
from tests.test_results import BASE, NEW, Runs

from benchdoc.config import parse_config
from benchdoc.errors import UsageError
from benchdoc.ledger.models import Sample
from benchdoc.results import LazyResults, NoComparison, ResultSet, compute_results
from benchdoc.stats import adjust_comparisons, compare

VARIANT = [93.0, 92.8, 93.3, 92.9, 93.1]  # p = 0.011 alone
TEN_VARIANTS_CONFIG = (
    '[metrics.output_tok_s]\nlabel = "tok/s"\nunit = "tok/s"\nprimary = true\n\n'
    '[experiments.baseline]\nrole = "reference"\n\n'
    + "".join(f'[experiments.v{i}]\ncompare_to = "baseline"\n\n' for i in range(10))
)


@pytest.fixture
def story() -> ResultSet:
    config = parse_config(STORY_CONFIG, Path("benchdoc.toml"))
    runs = Runs()
    runs.add("eagle3", [54.1])
    runs.add("baseline", BASE, day=1)
    runs.add("eagle3-cuda13", NEW, day=1)
    runs.add("nccl-tree", failed="CUDA graph incompatible", day=1)
    runs.add("imported-only", [91.0, 91.2, 90.9, 91.1, 91.3], day=1)  # recorded, not declared
    for index, ttft in ((1, [210.0, 205.0, 207.0]), (2, [180.0, 182.0, 181.0])):  # baseline's and eagle3-cuda13's run
        run = runs.runs[index]
        runs.runs[index] = replace(run, samples=(*run.samples, *(Sample("ttft_ms_p50", v, i, i) for i, v in enumerate(ttft))))
    return compute_results(config, runs.runs)


@pytest.fixture
def ten_variants() -> ResultSet:
    config = parse_config(TEN_VARIANTS_CONFIG, Path("benchdoc.toml"))
    runs = Runs()
    runs.add("baseline", [92.6, 92.4, 92.9, 92.5, 92.7])
    for i in range(10):
        runs.add(f"v{i}", VARIANT)
    return compute_results(config, runs.runs)


def test_select_names_aliases_globs_and_recorded_only_experiments(story: ResultSet) -> None:
    names = [r.name for r in story.select(["nccl-*", "EAGLE-3", "imported-only", "eagle3*"])]
    assert names == ["nccl-tree", "nccl-fewer-channels", "eagle3", "imported-only", "eagle3-cuda13"]
    assert story["eagle-3"].name == "eagle3"
    with pytest.raises(UsageError, match="unknown experiment 'basline'"):
        story.select(["basline"])


def test_metric_by_name_label_or_default(story: ResultSet) -> None:
    assert story.metric("tok/s").name == story.metric("output_tok_s").name == story.metric().name == "output_tok_s"
    assert story.metric("TTFT p50").name == "ttft_ms_p50"
    with pytest.raises(UsageError, match="unknown metric 'TTFT p5'"):
        story.metric("TTFT p5")


def test_a_configured_pair_is_the_very_comparison_show_reads(story: ResultSet) -> None:
    pair = story.compare("eagle3-cuda13", "baseline", "tok/s")
    assert pair.comparison is story["eagle3-cuda13"].comparisons["output_tok_s"]
    assert pair.corrected and pair.comparison.verdict == "better"
    assert story.compare("eagle3-cuda13").comparison is pair.comparison  # baseline defaults to compare_to


def test_an_ad_hoc_pair_uses_the_same_settings_and_says_it_is_uncorrected(story: ResultSet) -> None:
    pair = story.compare("eagle3-cuda13", "imported-only", "output_tok_s")
    assert not pair.corrected and "not part of the corrected family" in pair.note
    config = story.config
    expected = compare(
        NEW, [91.0, 91.2, 90.9, 91.1, 91.3], direction="higher", alpha=config.stats.alpha,
        confidence=config.stats.confidence, equivalence_margin=0.01,
    )
    got = pair.comparison
    assert (got.p_value, got.delta_ci_low, got.delta_ci_high, got.verdict) == (
        expected.p_value, expected.delta_ci_low, expected.delta_ci_high, expected.verdict
    )
    assert got.p_adjusted is None and got.correction is None
    assert story.compare("eagle3-cuda13", "imported-only", "output_tok_s").comparison is got  # computed once


def test_comparisons_that_cannot_be_made_say_why(story: ResultSet) -> None:
    with pytest.raises(NoComparison, match="nccl-tree has no results to compare \\(its latest run failed: CUDA graph"):
        story.compare("nccl-tree")
    with pytest.raises(NoComparison, match="has no compare_to"):
        story.compare("baseline")
    with pytest.raises(NoComparison, match="with itself"):
        story.compare("baseline", "baseline")
    with pytest.raises(NoComparison, match="'ttft_ms_p50' is not recorded for both eagle3-cuda13 and imported-only"):
        story.compare("eagle3-cuda13", "imported-only", "TTFT p50")
    assert story.shared_metrics("eagle3-cuda13", "baseline") == ["output_tok_s", "ttft_ms_p50"]


def test_ten_variants_against_one_baseline_are_corrected_as_one_family(ten_variants: ResultSet) -> None:
    """Alone, each variant is faster (p ~ 0.01); corrected across ten, none is shown to be."""
    raw = {
        f"v{i}": compare(VARIANT, [92.6, 92.4, 92.9, 92.5, 92.7]) for i in range(10)
    }
    family = adjust_comparisons(raw, "holm")
    for i in range(10):
        pair = ten_variants.compare(f"v{i}")
        assert pair.corrected and pair.comparison is ten_variants[f"v{i}"].comparisons["output_tok_s"]
        assert pair.comparison.p_value == raw[f"v{i}"].p_value and raw[f"v{i}"].verdict == "better"
        assert pair.comparison.p_adjusted == family[f"v{i}"].p_adjusted
        assert pair.comparison.verdict == family[f"v{i}"].verdict != "better"
        assert pair.note == ten_variants.correction_note("output_tok_s") and "across 10 comparisons" in pair.note
    ad_hoc = ten_variants.compare("v1", "v2")
    assert not ad_hoc.corrected and ad_hoc.comparison.p_adjusted is None


def test_lazy_results_compute_once_and_only_when_asked(story: ResultSet) -> None:
    calls: list[int] = []

    def compute() -> ResultSet:
        calls.append(1)
        return story

    lazy = LazyResults(compute)
    assert not lazy.computed and calls == []
    assert lazy.get() is story and lazy.get() is story
    assert lazy.computed and calls == [1]
    assert LazyResults.of(story).computed


def test_a_median_of_any_recorded_metric_summarised_or_not(story: ResultSet) -> None:
    result = story["eagle3-cuda13"]
    assert result.median("output_tok_s") == result.summaries["output_tok_s"].median == 96.1
    partial = compute_results(story.config, [run for r in story for run in r.runs], metrics=["output_tok_s"])
    assert "ttft_ms_p50" not in partial["eagle3-cuda13"].summaries
    assert partial["eagle3-cuda13"].median("ttft_ms_p50") == 181.0
    assert partial["eagle3-cuda13"].median("no_such_metric") is None
