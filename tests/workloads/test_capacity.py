"""The capacity search is judged on what the server delivered: a level whose achieved rate
falls well short of the rate offered misses, a search never answers more than 1.25 times
a rate achieved, and a search that met the target everywhere says it found no capacity."""

from __future__ import annotations

import pytest

from benchdoc.workloads import WorkloadSpec
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.result import WorkloadResult
from benchdoc.workloads.saturation import assess
from benchdoc.workloads.sweep import DELIVERED_SHARE, find_capacity, judge_level

pytestmark = pytest.mark.timing


@pytest.mark.timeout(120)
def test_a_search_of_short_levels_never_answers_beyond_what_was_achieved(sim_subprocess) -> None:
    # 30 requests a level and a TTFT bound every level meets: the offered rate outruns the
    # rate 30 requests of about 40 ms each can show, and the search must stop there.
    url = sim_subprocess("--ttft-ms", "20", "--step-ms", "2")
    spec = WorkloadSpec(url=url, requests=30, input_tokens=8, output_tokens=8, warmup_requests=0,
                        slo=(("ttft_ms", 5000.0),), metrics_url="")
    found = find_capacity(spec, target=0.9, start_rate=20.0, precision=0.25, budget_s=60.0)
    assert found.found, found.sentence()
    assert found.low is not None and found.achieved_max_req_s is not None
    assert found.low <= 1.25 * found.achieved_max_req_s, [(s.rate, s.achieved_req_s) for s in found.steps]
    misses = [s for s in found.steps if not s.passed]
    assert misses and all(s.attainment >= 0.9 for s in misses)  # missed on delivery, not on the SLO
    assert all(s.achieved_req_s < DELIVERED_SHARE * s.rate and "achieved" in s.why for s in misses)
    assert "resolution: between" in found.sentence()
    assert set(found.metrics()) == {"capacity_req_s", "capacity_high_req_s"}


@pytest.mark.timeout(60)
def test_a_search_that_met_the_target_everywhere_found_no_capacity(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "1")
    spec = WorkloadSpec(url=url, requests=30, input_tokens=8, output_tokens=4, warmup_requests=0,
                        slo=(("ttft_ms", 5000.0),), metrics_url="")
    found = find_capacity(spec, target=0.9, start_rate=10.0, max_rate=20.0, budget_s=30.0)
    assert [s.passed for s in found.steps] == [True, True]
    assert not found.found and found.capacity_req_s is None and found.metrics() == {}
    assert found.sentence().startswith(
        f"capacity: not found below the achieved maximum of {found.achieved_max_req_s:.3g} req/s"
    )
    data = found.to_dict()
    assert data["capacity_req_s"] is None and data["resolution"] == [20.0, None]


def _result(rate: float, ok: int, duration_s: float, bound: bool) -> WorkloadResult:
    records = []
    for i in range(ok):
        record = RequestRecord(index=i, due_s=i / rate, requested_input_tokens=4, requested_output_tokens=4,
                               sent_s=i / rate, ok=True, end_ms=10.0, output_tokens=4)
        record.chunk_ms.extend([5.0, 6.0, 7.0, 8.0])
        record.chunk_tokens.extend([1, 1, 1, 1])
        records.append(record)
    client = assess([0.99 if bound else 0.1], [0.1] * 10, [10.0] * 10, [0.05] * 10)
    return WorkloadResult(settings={}, provenance={}, records=records, duration_s=duration_s,
                          slo=(("ttft_ms", 100.0),), client=client)


def test_a_level_missed_while_the_client_was_the_bottleneck_stops_the_search() -> None:
    # Rate 2 is delivered; at rate 4 the client, busy, delivered half of it: not the server's miss.
    def run(spec: WorkloadSpec) -> WorkloadResult:
        assert spec.rate is not None
        return _result(spec.rate, 20, 10.0 if spec.rate > 2 else 20 / spec.rate, bound=spec.rate > 2)

    spec = WorkloadSpec(url="http://127.0.0.1:9", requests=20, slo=(("ttft_ms", 1000.0),))
    found = find_capacity(spec, target=0.5, start_rate=2.0, run=run, budget_s=1000.0)
    assert [(s.rate, s.passed, s.client_bound) for s in found.steps] == [(2.0, True, False), (4.0, False, True)]
    assert found.high is None and not found.found
    assert "the client was the bottleneck at 4 req/s" in found.stopped
    step = judge_level(4.0, _result(4.0, 20, 10.0, bound=False), 0.5)
    assert not step.passed and step.why.startswith("achieved 2 req/s, short of 80% of the 4 offered")
