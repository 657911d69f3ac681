"""One workload over several client processes: shares, one time line, one result."""

from __future__ import annotations

import pytest

from benchdoc.errors import UsageError
from benchdoc.workloads import WorkloadSpec, run_workload
from benchdoc.workloads.arrivals import arrival_times
from benchdoc.workloads.workers import WorkerPart, run_with_workers

# Judged on real time: run alone, after the parallel part of the suite (scripts/test).
pytestmark = pytest.mark.timing


def test_parts_share_indices_and_counts() -> None:
    parts = [WorkerPart(i, 3, 0.0) for i in range(3)]
    assert [p.share(10) for p in parts] == [4, 3, 3]
    assert [[i for i in range(7) if p.owns(i)] for p in parts] == [[0, 3, 6], [1, 4], [2, 5]]


@pytest.mark.timeout(90)
def test_closed_loop_over_two_workers_is_one_run(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "20", "--step-ms", "2")
    progress: list[int] = []
    result = run_workload(
        WorkloadSpec(url=url, concurrency=4, requests=12, warmup_requests=2, input_tokens=6, output_tokens=8,
                     metrics_url="", workers=2),
        progress=lambda done, total: progress.append(done),
    )
    assert result.failures == []
    assert [r.index for r in result.records] == list(range(12))
    assert len(result.warmup_records) == 2
    assert progress == list(range(1, 13))
    assert result.settings["workers"] == 2
    assert result.client is not None and result.client.workers == 2
    # Every request on one time line: sent after the common start.
    assert all(r.sent_s is not None and r.sent_s >= 0 for r in result.records)
    assert result.metrics["ttft_ms_p50"] >= 19.5  # never faster than the model (a busy machine only adds)
    assert result.duration_s > 0 and result.provenance["output_tokens"] == {"usage": 12}


@pytest.mark.timeout(90)
def test_open_loop_over_two_workers_keeps_the_schedule(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "1")
    spec = WorkloadSpec(url=url, rate=40.0, requests=20, input_tokens=4, output_tokens=4, seed=3, metrics_url="")
    result = run_with_workers(spec, 2)
    assert result.failures == []
    schedule = arrival_times(40.0, 20, None, 1.0, 3)
    assert [r.due_s for r in result.records] == pytest.approx(schedule)
    # Sent when due: the workers share one clock and one start.
    assert all(abs(r.sent_s - r.due_s) < 0.2 for r in result.records)  # type: ignore[operator]


def test_more_workers_than_streams_is_refused() -> None:
    with pytest.raises(UsageError, match="2 workers need at least as many streams"):
        run_with_workers(WorkloadSpec(url="http://127.0.0.1:1", concurrency=1), 2)


def test_workers_that_cannot_help_here_are_named() -> None:
    from benchdoc.workloads.workers import crowded

    assert crowded(1, 1) is None and crowded(2, 4) is None
    why = crowded(2, 2)
    assert why is not None and why.startswith("2 client worker processes with 2 cores free")
    assert "use at most 1 here" in why
    assert crowded(3, 1) is not None and "1 core free" in (crowded(3, 1) or "")


@pytest.mark.timeout(90)
def test_more_workers_than_cores_run_and_say_so(sim_subprocess) -> None:
    import os

    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "1")
    workers = len(os.sched_getaffinity(0)) + 1  # more than there are cores, however idle the machine
    result = run_with_workers(WorkloadSpec(url=url, concurrency=workers, requests=workers, input_tokens=4,
                                           output_tokens=4, metrics_url=""), workers)
    assert result.failures == [] and result.client is not None
    assert any(note.startswith(f"{workers} client worker processes with") for note in result.client.notes)
    assert "use at most" in result.client.sentence()
