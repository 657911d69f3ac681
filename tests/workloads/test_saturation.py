"""The client's own load, measured: a saturated client is flagged, an idle one is not."""

from __future__ import annotations

import pytest

from benchdoc.workloads import WorkloadSpec, run_workload
from benchdoc.workloads.saturation import assess

# Judged on real time: run alone, after the parallel part of the suite (scripts/test).
pytestmark = pytest.mark.timing


def test_the_verdict_names_each_reason() -> None:
    calm = assess([0.2], [0.1] * 100, [10.0] * 100, [0.05] * 10)
    assert not calm.bound and calm.reasons == () and calm.smallest_gap_ms == 10.0
    assert calm.sentence().startswith("client kept up: client CPU 20% of a core")
    # The largest lag is given as finely as its p99 (0.14 ms was once beside "max 0.1 ms").
    fine = assess([0.02], [0.14] * 100, [10.0] * 100)
    assert "event-loop lag p99 0.14 ms (max 0.14 ms)" in fine.sentence()
    busy = assess([0.97], [4.0] * 100, [1.0] * 100, [3.0] * 10, ttfts_ms=[20.0] * 10)
    assert busy.bound and len(busy.reasons) == 3
    assert "the client used 97% of a core" in busy.reasons[0]
    assert "lagged 4.00 ms (p99), more than 25% of the smallest chunk gaps measured between reads (1.00 ms" in busy.reasons[1]
    assert ("requests' bytes left 3.00 ms (p99; max 3.00 ms) after their send stamp, more than 10% of the "
            "smallest TTFTs measured (20.00 ms, p10)") in busy.reasons[2]
    assert busy.sentence().startswith("CLIENT-BOUND: ")
    assert calm.headline() == "client kept up (CPU 20% of a core)"
    assert busy.headline() == ("CLIENT-BOUND: the client used 97% of a core (and 2 more); "
                               "latencies include the client's own delay")
    # Lateness while the client idled is the machine's: noted, not the client's saturation.
    starved = assess([0.05], [4.0] * 100, [1.0] * 100, [3.0] * 10, busy_shares=[0.1], ttfts_ms=[20.0] * 10)
    assert not starved.bound and len(starved.notes) == 2
    assert "while the client's event loop was idle 90% of the time (the machine's lateness, not the client's own work)" in starved.notes[0]
    # A loop with work always pending is saturated however little CPU the machine gave it.
    squeezed = assess([0.2], [40.0] * 100, [1.0] * 100, busy_shares=[0.97])
    assert squeezed.bound and "event loop was busy 97% of the time" in squeezed.reasons[0]
    assert "the machine's lateness" in starved.sentence()


def test_chunks_read_together_give_no_gap_for_the_lag_to_bend() -> None:
    # A server writing every token after the first at once: one read holds them, their gaps
    # are 0 whatever the loop did; the lag is weighed against the gaps between reads.
    together = [0.0] * 255
    burst = assess([0.3], [0.4] * 100, (together + [2.0]) * 20)
    assert not burst.bound and burst.smallest_gap_ms == 2.0, burst.reasons
    assert not assess([0.3], [0.4] * 100, together).bound  # no gap between reads at all: nothing to weigh
    # A loop lagging 3 ms behind tokens 1 ms apart reads them three at a time: flagged by the
    # gaps between its reads, stretched to its lag.
    lagged = assess([0.7], [3.0] * 100, [0.0, 0.0, 3.0] * 100)
    assert lagged.bound and "smallest chunk gaps measured between reads (3.00 ms, p10)" in lagged.reasons[0]


def test_the_send_delay_is_weighed_against_the_smallest_ttfts() -> None:
    delays = [0.1] * 98 + [1.5, 2.0]  # p99 1.5 ms, max 2 ms
    # 1.5 ms against TTFTs of 10 ms and more: above a tenth of the smallest, the client's doing.
    short = assess([0.7], [0.1] * 100, [10.0] * 100, delays, ttfts_ms=[10.0] * 50 + [200.0] * 50)
    assert short.bound and len(short.reasons) == 1 and "smallest TTFTs measured (10.00 ms, p10)" in short.reasons[0]
    assert short.send_delay_ms_p50 == pytest.approx(0.1) and short.send_delay_ms_max == 2.0
    assert "send delay p99 1.51 ms (max 2.00 ms)" in short.sentence()
    # The same delays against TTFTs of 100 ms and more are within the fraction: not flagged.
    long = assess([0.7], [0.1] * 100, [10.0] * 100, delays, ttfts_ms=[100.0] * 100)
    assert not long.bound and long.smallest_ttft_ms == 100.0
    # No TTFT measured: nothing to weigh the delay against.
    assert not assess([0.7], [0.1] * 100, [10.0] * 100, delays).bound


@pytest.mark.timeout(90)
@pytest.mark.parametrize("event_loop", ["asyncio", "uvloop"])
def test_many_streams_of_a_zero_latency_server_saturate_one_client(sim_subprocess, event_loop: str) -> None:
    url = sim_subprocess("--ttft-ms", "0", "--step-ms", "0", "--max-running", "4096")
    result = run_workload(WorkloadSpec(url=url, concurrency=128, requests=128, input_tokens=4, output_tokens=150,
                                       metrics_url="", workers=1, event_loop=event_loop))
    assert result.failures == []
    assert result.provenance["event_loop"].split()[0] == event_loop
    client = result.client
    assert client is not None and client.bound, client
    # Its loop always had work: busy (running or waiting for a CPU) nearly all the time, on either loop.
    assert client.loop_busy_share is not None and client.loop_busy_share > 0.5, client
    assert client.probes > 0 and client.workers == 1
    assert result.to_dict()["client"]["bound"] is True
    assert all(r.send_delay_ms is not None and r.send_delay_ms >= 0 for r in result.records)
    # The send delay is a figure of the run (small: the connections were opened before the clock started).
    metrics = result.metrics
    assert metrics["send_delay_ms_p50"] <= metrics["send_delay_ms_p99"] <= metrics["send_delay_ms_max"]
    assert metrics["send_delay_ms_max"] == max(r.send_delay_ms or 0.0 for r in result.records)
    assert client.send_delay_ms_p99 == pytest.approx(metrics["send_delay_ms_p99"])
    assert client.smallest_ttft_ms is not None
    assert {"send_delay_ms_p99", "send_delay_ms_max"} <= set(result.to_dict()["metrics"])


@pytest.mark.timeout(60)
@pytest.mark.parametrize("event_loop", ["asyncio", "uvloop"])
def test_a_few_slow_streams_leave_the_client_idle(sim_subprocess, event_loop: str) -> None:
    url = sim_subprocess("--ttft-ms", "10", "--step-ms", "40")
    result = run_workload(WorkloadSpec(url=url, concurrency=2, requests=4, input_tokens=4, output_tokens=10,
                                       metrics_url="", event_loop=event_loop))
    assert result.failures == []
    client = result.client
    assert client is not None and not client.bound, client.reasons
    assert client.loop_busy_share is not None and client.loop_busy_share < 0.5, client
    assert client.cpu_share < 0.5 and client.smallest_gap_ms is not None and client.smallest_gap_ms > 30
    assert not any("send stamp" in r for r in client.reasons)
    assert result.metrics["send_delay_ms_max"] >= result.metrics["send_delay_ms_p50"] >= 0
    assert result.settings["workers"] == 1


@pytest.mark.timeout(60)
def test_client_ttft_is_set_beside_the_servers_own_stamps(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "30", "--step-ms", "5")
    for api in ("openai-completions", "sglang"):
        result = run_workload(WorkloadSpec(url=url, api=api, concurrency=2, requests=4, input_tokens=4,
                                           output_tokens=5, metrics_url=""))
        assert result.failures == []
        for record in result.records:
            assert record.server_ttft_ms is not None and record.ttft_ms is not None
            assert record.server_ttft_ms >= 29.5  # the model's TTFT, however late the server's timer
            # One clock: the client cannot see the first token before the server wrote it.
            assert record.ttft_ms >= record.server_ttft_ms
        client = result.client
        assert client is not None and client.ttft_error_ms_mean is not None and client.ttft_error_ms_mean >= 0
        assert "beside the server's own stamps" in client.sentence()


@pytest.mark.timeout(60)
def test_the_servers_mean_ttft_is_on_its_metrics_page(sim_thread) -> None:
    # A client that cannot read the stamps in the stream (another tool's) sets its mean TTFT
    # beside the sum and count the simulator keeps of the same stamps.
    import urllib.request

    url = sim_thread(ttft_ms=20.0, step_ms=1.0)
    result = run_workload(WorkloadSpec(url=url, concurrency=2, requests=6, output_tokens=3, metrics_url=""))
    with urllib.request.urlopen(url + "/metrics", timeout=10) as page:
        text = page.read().decode()
    figures = dict(line.rsplit(" ", 1) for line in text.splitlines() if line.startswith("vllm:time_to_first_token"))
    [count] = [float(v) for k, v in figures.items() if k.startswith("vllm:time_to_first_token_seconds_count")]
    [total] = [float(v) for k, v in figures.items() if k.startswith("vllm:time_to_first_token_seconds_sum")]
    stamped = [r.server_ttft_ms for r in result.records if r.server_ttft_ms is not None]
    assert count == len(stamped) == 6
    assert total * 1000.0 / count == pytest.approx(sum(stamped) / len(stamped), rel=1e-6)


@pytest.mark.timeout(60)
def test_uvloop_is_the_default_and_the_provenance_names_the_loop(sim_thread) -> None:
    import uvloop

    url = sim_thread(ttft_ms=2.0, step_ms=1.0)
    result = run_workload(WorkloadSpec(url=url, concurrency=2, requests=4, output_tokens=5, metrics_url=""))
    assert result.failures == [] and result.settings["event_loop"] == "uvloop"
    assert result.provenance["event_loop"] == f"uvloop {uvloop.__version__}"
    assert result.client is not None and result.client.loop_busy_share is not None and result.client.probes > 0
    asked = run_workload(WorkloadSpec(url=url, concurrency=2, requests=4, output_tokens=5, metrics_url="",
                                      event_loop="asyncio"))
    assert asked.settings["event_loop"] == "asyncio" and asked.provenance["event_loop"] == "asyncio"


def test_the_monitor_samples_lag_on_reads_only_and_adds_no_timer_of_its_own() -> None:
    import asyncio
    import time

    from benchdoc.workloads.saturation import LoopMonitor

    async def main() -> LoopMonitor:
        monitor = LoopMonitor(interval_s=0.01)
        monitor.start()
        loop = asyncio.get_running_loop()
        await asyncio.sleep(0.05)  # idle: nothing read, nothing sampled, nothing scheduled
        assert monitor.lateness == [] and not loop._scheduled  # type: ignore[attr-defined]
        for _ in range(5):  # a read, then 30 ms of work before the loop gets round again
            monitor.note(time.perf_counter())
            monitor.note(time.perf_counter())  # within the interval: no second sample
            until = time.perf_counter() + 0.03
            while time.perf_counter() < until:  # work, not sleep: the thread runs or waits for a CPU
                pass
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        monitor.stop()
        return monitor

    monitor = asyncio.run(main())
    cpu, busy, lags = monitor.measure()
    assert len(lags) == 5 and all(lag >= 29.0 for lag in lags), lags
    assert busy is not None and busy > 0.5  # slept 50 ms of about 200, in its poll
