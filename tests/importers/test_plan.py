"""Planning an import: one configuration at a time, chosen metrics, no double imports."""

from __future__ import annotations

import pytest

from benchdoc.errors import UsageError
from benchdoc.importers import ImportedRun, parse_file, plan_import

from .conftest import sample


def runs() -> list[ImportedRun]:
    return parse_file(sample("sglang_serving.jsonl"), "sglang-serving")


def test_runs_of_several_configurations_need_a_choice() -> None:
    with pytest.raises(UsageError) as info:
        plan_import(runs(), "eagle3")
    message = info.value.message
    assert "2 different configurations" in message and "--select" in message and "--mixed" in message
    assert "max_concurrency=16 random_input_len=1024 random_output_len=256' (2 runs)" in message


def test_select_takes_a_label_or_a_glob() -> None:
    plan = plan_import(runs(), "eagle3", select="*max_concurrency=32*")
    assert [r.line for r in plan.runs] == [3] and plan.experiment == "eagle3"
    exact = plan_import(runs(), "eagle3", select=runs()[0].label)
    assert [r.line for r in exact.runs] == [1, 2]
    with pytest.raises(UsageError, match="--select 'concurrency=8' matches no run; the file holds: 'backend=sglang"):
        plan_import(runs(), "eagle3", select="concurrency=8")


def test_mixed_keeps_everything() -> None:
    assert len(plan_import(runs(), "eagle3", mixed=True).runs) == 3


def test_metric_patterns_keep_only_those_metrics() -> None:
    plan = plan_import(runs(), "eagle3", select="*=16*", metrics=["output_tok_s", "ttft_ms_p*"])
    assert set(plan.runs[0].metrics()) == {"output_tok_s", "ttft_ms_p50", "ttft_ms_p90", "ttft_ms_p95", "ttft_ms_p99"}
    with pytest.raises(UsageError, match="--metric tok_s matches no metric of sglang_serving.jsonl:1; it has: accept_length"):
        plan_import(runs(), "eagle3", select="*=16*", metrics=["tok_s"])


def test_runs_imported_before_are_skipped_with_their_run_id() -> None:
    all_runs = runs()
    plan = plan_import(all_runs, "eagle3", mixed=True, recorded={all_runs[0].fingerprint: 7})
    assert [r.line for r in plan.runs] == [2, 3]
    assert [(d.run.line, d.recorded_as) for d in plan.duplicates] == [(1, 7)]
    new = plan.new_runs("note")
    assert [n.experiment for n in new] == ["eagle3", "eagle3"] and new[0].note == "note"
