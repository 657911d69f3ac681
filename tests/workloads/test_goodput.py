"""Goodput under an SLO (vLLM's rule: a request counts when it meets every threshold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdoc.workloads import WorkloadSpec, run_workload
from benchdoc.workloads.aggregate import meets_slo, run_metrics
from benchdoc.workloads.records import RequestRecord


def record(ttft: float, end: float, tokens: int, ok: bool = True) -> RequestRecord:
    r = RequestRecord(index=0, due_s=0.0, requested_input_tokens=1, requested_output_tokens=tokens, ok=ok)
    r.chunk_ms.append(ttft)
    r.end_ms = end
    r.output_tokens = tokens
    return r


def test_a_request_is_good_only_when_it_meets_every_threshold() -> None:
    slo = (("ttft_ms", 100.0), ("tpot_ms", 10.0))
    assert meets_slo(record(90, 180, 11), slo)  # tpot 9
    assert not meets_slo(record(110, 200, 11), slo)  # ttft over
    assert not meets_slo(record(90, 300, 11), slo)  # tpot 21
    assert meets_slo(record(90, 90, 1), slo)  # one token: no TPOT to miss
    assert not meets_slo(record(1, 2, 2, ok=False), slo)  # a failure never counts


def test_goodput_and_attainment_from_records_counted_by_hand() -> None:
    records = [record(90, 180, 11), record(110, 200, 11), record(90, 300, 11), record(1, 2, 2, ok=False)]
    metrics = run_metrics(records, duration_s=2.0, slo=(("ttft_ms", 100.0), ("tpot_ms", 10.0)))
    assert metrics["goodput_req_s"] == pytest.approx(1 / 2.0)
    assert metrics["slo_attainment"] == pytest.approx(1 / 4)
    assert "goodput_req_s" not in run_metrics(records, duration_s=2.0)


# A 70 ms TTFT bound against a 40 ms model: judged on real time, so it runs alone (scripts/test).
@pytest.mark.timing
@pytest.mark.timeout(60)
def test_goodput_of_a_small_run_matches_a_hand_count(sim_thread, tmp_path: Path) -> None:
    # Two batch slots and four streams: the first two requests start at once (TTFT 40 ms),
    # every later one waits for a slot (TTFT 40 + ~60 ms) and misses a 70 ms TTFT bound.
    url = sim_thread(ttft_ms=40.0, step_ms=5.0, max_running=2)
    dataset = tmp_path / "prompts.jsonl"
    dataset.write_text("".join(json.dumps({"prompt": f"prompt {i} words", "output_len": 5}) + "\n"
                               for i in range(3)), encoding="utf-8")
    spec = WorkloadSpec(url=url, concurrency=4, requests=8, dataset=str(dataset), slo=(("ttft_ms", 70.0),),
                        metrics_url="")
    result = run_workload(spec)
    assert result.failures == []
    good = [r for r in result.records if r.ttft_ms is not None and r.ttft_ms <= 70.0]
    assert len(good) == 2
    metrics = result.metrics
    assert metrics["slo_attainment"] == pytest.approx(2 / 8)
    assert metrics["goodput_req_s"] == pytest.approx(2 / result.duration_s)
    # The dataset's prompts and lengths were used, and the run says which file it was.
    assert all(r.requested_output_tokens == 5 and r.output_tokens == 5 for r in result.records)
    assert all(r.input_tokens == 3 for r in result.records)  # the simulator counts words
    assert result.provenance["dataset"]["path"] == str(dataset)
    assert result.provenance["prompts"] == "jsonl dataset"
    assert result.settings["slo"] == {"ttft_ms": 70.0}
    assert result.to_dict()["metrics"]["slo_attainment"] == pytest.approx(0.25)


@pytest.mark.timeout(60)
def test_shared_prefix_reaches_the_server_as_a_system_message(sim_thread) -> None:
    url = sim_thread(ttft_ms=1.0, step_ms=0.5)
    spec = WorkloadSpec(url=url, api="openai-chat", concurrency=2, requests=4, input_tokens=6, output_tokens=3,
                        shared_prefix_groups=2, shared_prefix_tokens=30, metrics_url="")
    result = run_workload(spec)
    assert result.failures == []
    # The simulator counts the words of every message: 30 of the prefix and 6 of the question.
    assert {r.input_tokens for r in result.records} == {36}
    assert {r.requested_input_tokens for r in result.records} == {36}
