"""plots.model: what each chart shows, built from a real ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.plots.story import story_results

from benchdoc.errors import UsageError
from benchdoc.ledger import RunMetadata
from benchdoc.plots import bar_chart_data, before_after_data, chart_data, history_data, resolve_metric, select_experiments


@pytest.fixture
def results(tmp_path: Path):  # type: ignore[no-untyped-def]
    return story_results(tmp_path)


def test_bar_chart_keeps_failed_and_untested_as_labelled_gaps(results) -> None:  # type: ignore[no-untyped-def]
    chart = bar_chart_data(results)
    assert [b.experiment for b in chart.bars] == ["baseline", "eagle3-cuda13", "nccl-tree", "nccl-fewer-channels"]
    baseline, eagle, tree, untested = chart.bars
    assert baseline.median == pytest.approx(92.65) and baseline.has_interval and baseline.n == 6
    assert eagle.delta == "+3.8%" and eagle.gap is None
    assert tree.gap == "Failed: CUDA graph incompatible" and tree.median is None
    assert untested.gap == "Untested"
    assert [(r.experiment, r.value) for r in chart.references] == [("baseline", pytest.approx(92.65))]
    assert "Pooled: the latest run of each experiment" in chart.caption and "95% interval of the median" in chart.caption


def test_bar_chart_selection_by_name_alias_and_glob_in_order_given(results) -> None:  # type: ignore[no-untyped-def]
    assert select_experiments(results, ["nccl-*", "EAGLE-3", "baseline"]) == ["nccl-tree", "nccl-fewer-channels", "eagle3", "baseline"]
    chart = bar_chart_data(results, "output_tok_s", ["eagle3*"])
    assert [b.experiment for b in chart.bars] == ["eagle3", "eagle3-cuda13"]
    # No reference among them: the line is what they are compared to.
    assert [r.experiment for r in chart.references] == ["baseline"]


def test_unknown_names_are_errors_with_suggestions(results) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="unknown experiment 'basline' \\(did you mean 'baseline'\\?\\)"):
        select_experiments(results, ["basline"])
    with pytest.raises(UsageError, match="no experiment matches 'vllm-\\*'"):
        select_experiments(results, ["vllm-*"])
    with pytest.raises(UsageError, match="unknown metric 'output_tok'"):
        resolve_metric(results, "output_tok")
    with pytest.raises(UsageError, match="unknown chart kind 'pie'"):
        chart_data("pie", results)
    with pytest.raises(UsageError, match="exactly one experiment"):
        chart_data("history", results, None, ["baseline", "eagle3"])


def test_metric_by_label_and_missing_data_gap(results) -> None:  # type: ignore[no-untyped-def]
    assert resolve_metric(results, "TTFT p50").name == "ttft_ms_p50"
    chart = bar_chart_data(results, "ttft_ms_p50", ["baseline", "eagle3"])
    assert chart.bars[0].median == pytest.approx(40.95)
    assert chart.bars[1].gap == "No TTFT p50 data"  # superseded eagle3 was measured without TTFT


def test_before_after_pairs_the_superseded_with_its_successor(results) -> None:  # type: ignore[no-untyped-def]
    chart = before_after_data(results)
    (pair,) = chart.pairs
    assert (pair.before.experiment, pair.after.experiment) == ("eagle3", "eagle3-cuda13")
    assert pair.before.median == pytest.approx(54.1) and pair.after.median == pytest.approx(96.15)
    assert pair.delta_pct == pytest.approx((96.15 / 54.1 - 1) * 100)
    assert "54.1 -> EAGLE-3 2-step (CUDA 13 + fusion) 96.2 (+77.7%)" in chart.describe()
    with pytest.raises(UsageError, match="no experiment supersedes another among baseline"):
        before_after_data(results, None, ["baseline"])


def test_history_lists_every_run_oldest_first_with_the_pooled_one_marked(results) -> None:  # type: ignore[no-untyped-def]
    chart = history_data(results, None, "baseline")
    assert [p.median for p in chart.points] == [pytest.approx(89.55), pytest.approx(92.65)]
    assert [p.pooled for p in chart.points] == [False, True]
    assert chart.current == pytest.approx(92.65)
    failed = history_data(results, None, "nccl-tree")
    assert [p.gap for p in failed.points] == ["Failed: CUDA graph incompatible"]
    with pytest.raises(UsageError, match="no runs yet"):
        history_data(results, None, "nccl-fewer-channels")


def test_simulated_runs_are_said_to_be_simulated(tmp_path: Path) -> None:
    results = story_results(tmp_path, metadata=RunMetadata(simulator=True))
    chart = bar_chart_data(results)
    assert chart.simulated and "not real hardware" in chart.caption and "Simulated numbers." in chart.describe()
    assert not bar_chart_data(story_results(tmp_path / "real")).simulated
