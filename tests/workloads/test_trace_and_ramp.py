"""Arrivals replayed from a trace, and a rate that ramps up."""

from __future__ import annotations

import json
import math

import pytest

from benchdoc.errors import UsageError
from benchdoc.workloads import WorkloadSpec, run_workload
from benchdoc.workloads.arrivals import arrival_times, ramped


def test_a_ramp_up_spreads_the_first_arrivals_then_keeps_the_rate() -> None:
    steady = arrival_times(10.0, count=200, burstiness=1000.0, seed=3)  # nearly regular: 0.1 s apart
    ramp = arrival_times(10.0, count=200, burstiness=1000.0, seed=3, ramp_up_s=4.0)
    assert ramp == sorted(ramp) and len(ramp) == 200
    # The ramp's cumulative rate reaches rate * S / 2 = 20 arrivals at its end (t = 4 s).
    assert sum(1 for t in ramp if t < 4.0) == pytest.approx(20, abs=1)
    # Inside the ramp an arrival comes later than at the full rate; after it, S / 2 later.
    assert all(r >= s for r, s in zip(ramp, steady))
    assert ramp[-1] - steady[-1] == pytest.approx(2.0)
    assert ramped(2.0, 4.0) == pytest.approx(4.0) and ramped(1.0, 4.0) == pytest.approx(math.sqrt(8.0))


@pytest.mark.timeout(60)
def test_a_trace_is_replayed_at_its_times_with_its_lengths(sim_thread, tmp_path) -> None:
    url = sim_thread(ttft_ms=2.0, step_ms=1.0)
    trace = tmp_path / "trace.jsonl"
    rows = [(5000, 12, 3), (5000, 20, 5), (5300, 8, 2), (5600, 30, 4), (6000, 16, 6)]
    trace.write_text("\n".join(json.dumps({"timestamp": t, "input_length": i, "output_length": o, "hash_ids": [1]})
                               for t, i, o in [rows[0], rows[1], rows[3], rows[2], rows[4]]) + "\n",
                     encoding="utf-8")  # out of order: replayed by timestamp (ties as written)
    result = run_workload(WorkloadSpec(url=url, trace=str(trace), metrics_url=""))
    assert result.succeeded == 5
    records = sorted(result.records, key=lambda r: r.index)
    assert [r.due_s for r in records] == pytest.approx([0.0, 0.0, 0.3, 0.6, 1.0])
    assert [(r.requested_input_tokens, r.output_tokens) for r in records] == [(i, o) for _, i, o in rows]
    assert result.settings["arrivals"] == "trace" and result.settings["rate"] == pytest.approx(4.0)


def test_a_bad_trace_is_one_line_naming_its_line(tmp_path) -> None:
    trace = tmp_path / "bad.jsonl"
    trace.write_text('{"timestamp": 0, "input_length": 4, "output_length": 4}\n{"timestamp": 1, "input_length": 0}\n')
    with pytest.raises(UsageError, match="expected 'input_length' as a whole number >= 1, got 0") as caught:
        WorkloadSpec(url="http://127.0.0.1:9", trace=str(trace)).resolved()
    assert str(caught.value).startswith(f"{trace}:2: ")
    with pytest.raises(UsageError, match="give no concurrency or duration"):
        WorkloadSpec(url="http://127.0.0.1:9", trace=str(trace), concurrency=2).resolved()
    with pytest.raises(UsageError, match="ramp_up_s applies to an open loop at a rate"):
        WorkloadSpec(url="http://127.0.0.1:9", concurrency=2, ramp_up_s=3.0).resolved()
