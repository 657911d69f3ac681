"""The load generator against real servers on 127.0.0.1: load shapes, provenance,
failures and their reasons, and that nothing hangs."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from aiohttp import web

from benchdoc.errors import RunError
from benchdoc.workloads import Timeouts, WorkloadSpec, run_metric_names, run_workload

FAST = dict(ttft_ms=5.0, step_ms=1.0)


# -- load shapes and what is recorded ----------------------------------------------------


@pytest.mark.timeout(30)
def test_closed_loop_records_every_request_and_excludes_warmup(sim_thread) -> None:
    url = sim_thread(**FAST)
    calls: list[tuple[int, int | None]] = []
    result = run_workload(
        WorkloadSpec(url=url, concurrency=4, requests=12, warmup_requests=3, input_tokens=16, output_tokens=8),
        progress=lambda done, total: calls.append((done, total)),
    )
    assert len(result.records) == 12 and len(result.warmup_records) == 3
    assert [r.index for r in result.records] == list(range(12))
    assert result.failures == [] and result.aborted is None
    assert calls == [(i, 12) for i in range(1, 13)]
    assert all(r.output_tokens == 8 and r.output_token_source == "usage" for r in result.records)
    assert result.provenance["output_tokens"] == {"usage": 12}
    assert result.server["model"] == "sim-llm" and result.settings["model"] == "sim-llm"
    assert result.server["owned_by"] == ["benchdoc-simulator"]


@pytest.mark.timeout(30)
def test_samples_carry_every_contract_name_for_the_repetition(sim_thread) -> None:
    url = sim_thread(**FAST)
    result = run_workload(
        WorkloadSpec(url=url, api="sglang", concurrency=2, requests=4, output_tokens=6, percentiles=(95, 99.9))
    )
    samples = result.samples(repetition=3)
    names = {s.metric for s in samples}
    assert all(s.repetition == 3 for s in samples)
    # no speculation here, and no SLO
    expected = set(run_metric_names([95, 99.9])) - {
        "accept_length", "goodput_req_s", "slo_attainment", "capacity_req_s", "capacity_high_req_s"
    }
    assert names == expected
    assert {s.metric: s.value for s in samples}["error_rate"] == 0.0


@pytest.mark.timeout(30)
def test_open_loop_follows_its_schedule_and_reports_client_queueing(sim_thread) -> None:
    url = sim_thread(ttft_ms=50.0, step_ms=1.0)
    # 40 req/s with at most 2 in flight, each taking ~55 ms: requests must wait.
    spec = WorkloadSpec(url=url, rate=40.0, max_concurrency=2, requests=20, output_tokens=5, seed=7)
    result = run_workload(spec)
    assert result.failures == []
    due = [r.due_s for r in result.records]
    assert due == sorted(due) and due[0] == 0.0
    from benchdoc.workloads.arrivals import arrival_times

    assert due == arrival_times(40.0, count=20, seed=7)
    metrics = result.metrics
    assert metrics["queue_ms_p90"] > 20.0
    # Latency starts at the send: the wait is not in TTFT.
    assert metrics["ttft_ms_p50"] < 80.0
    assert result.settings["load"] == "open" and result.settings["arrivals"] == "poisson"


@pytest.mark.timeout(30)
def test_duration_bounds_the_sending(sim_thread) -> None:
    url = sim_thread(ttft_ms=5.0, step_ms=2.0)
    started = time.perf_counter()
    result = run_workload(WorkloadSpec(url=url, concurrency=2, duration_s=0.5, output_tokens=10))
    elapsed = time.perf_counter() - started
    assert 0.5 <= result.duration_s < 1.0 and elapsed < 3.0
    assert len(result.records) >= 6 and result.failures == []
    assert result.metrics["request_s"] == pytest.approx(len(result.records) / result.duration_s)


@pytest.mark.timeout(30)
def test_chunk_counts_are_used_only_without_a_server_count(canned_server) -> None:
    # A server that streams 2 words per chunk, stops by itself and reports no usage at all.
    async def completions(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for _ in range(2):
            await response.write(b'data: {"choices":[{"text":" a b"}]}\n\n')
            await asyncio.sleep(0.002)
        await response.write(b'data: {"choices":[{"text":" a b","finish_reason":"stop"}]}\n\n')
        await response.write(b"data: [DONE]\n\n")
        assert body["max_tokens"] == 50
        return response

    server = canned_server({"POST /v1/completions": completions})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=50, ignore_eos=False))
    assert result.failures == []
    # Never the requested 50: the three chunks are what is known, and it says so.
    assert [r.output_tokens for r in result.records] == [3, 3]
    assert result.provenance["output_tokens"] == {"chunks": 2}
    assert result.provenance["input_tokens"] == {"prompt-words": 2}


@pytest.mark.timeout(30)
def test_api_key_is_sent_as_a_header_and_never_recorded(canned_server) -> None:
    async def models(request: web.Request) -> web.Response:
        return web.json_response({"data": [{"id": "served-model"}]})

    async def chat(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b'data: {"choices":[{"delta":{"content":"x"},"finish_reason":"length"}],"usage":null}\n\n')
        await response.write(
            b'data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1}}\n\ndata: [DONE]\n\n'
        )
        return response

    server = canned_server({"GET /v1/models": models, "POST /v1/chat/completions": chat})
    result = run_workload(
        WorkloadSpec(url=server.url, api="openai-chat", requests=1, output_tokens=1, api_key="sk-test-1234567")
    )
    assert result.failures == []
    assert all(h.get("Authorization") == "Bearer sk-test-1234567" for h in server.requests)
    dumped = json.dumps(result.to_dict(include_requests=True))
    assert "sk-test-1234567" not in dumped
    assert result.settings["model"] == "served-model"


# -- failures ----------------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_stalled_stream_fails_within_its_idle_timeout(sim_thread) -> None:
    url = sim_thread(ttft_ms=5.0, step_ms=2.0, stall_after_tokens=3)
    started = time.perf_counter()
    result = run_workload(
        WorkloadSpec(url=url, concurrency=2, requests=2, output_tokens=20,
                     timeouts=Timeouts(idle_s=0.5, first_token_s=5.0))
    )
    elapsed = time.perf_counter() - started
    assert elapsed < 2.0
    assert len(result.failures) == 2
    for failure in result.failures:
        assert failure.error == "stalled: no data within the idle timeout (0.5 s) after output had started"
        assert len(failure.chunk_ms) == 3  # what did arrive is kept
    assert result.metrics["error_rate"] == 1.0
    assert "ttft_ms_mean" not in result.metrics
    assert result.failed


@pytest.mark.timeout(30)
def test_no_first_token_fails_within_the_first_token_timeout(sim_thread) -> None:
    url = sim_thread(ttft_ms=5.0, step_ms=2.0, stall_after_tokens=0)
    started = time.perf_counter()
    result = run_workload(
        WorkloadSpec(url=url, api="sglang", requests=1, output_tokens=5, timeouts=Timeouts(first_token_s=0.4))
    )
    assert time.perf_counter() - started < 2.0
    assert result.failure_reasons() == {"no output within the first-token timeout (0.4 s)": 1}


@pytest.mark.timeout(30)
def test_http_500_answers_are_counted_as_failures(sim_thread) -> None:
    url = sim_thread(**FAST, error_rate=0.4, seed=1)
    result = run_workload(WorkloadSpec(url=url, concurrency=4, requests=40, output_tokens=4))
    reasons = result.failure_reasons()
    assert list(reasons) == [
        "HTTP 500 Internal Server Error: simulated internal server error (injected by --error-rate)"
    ]
    failed = reasons[next(iter(reasons))]
    assert 5 <= failed <= 30
    assert result.metrics["error_rate"] == failed / 40
    assert all(r.http_status == 500 for r in result.failures)
    # The successes alone make the latency figures.
    assert result.succeeded == 40 - failed and result.metrics["ttft_ms_mean"] < 100


@pytest.mark.timeout(60)
def test_a_server_that_dies_mid_run_ends_the_run_with_a_reason(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "5", "--die-after-requests", "6")
    started = time.perf_counter()
    result = run_workload(WorkloadSpec(url=url, concurrency=2, requests=50, output_tokens=20))
    assert time.perf_counter() - started < 10.0
    assert result.aborted is not None
    assert result.aborted.startswith("stopped sending after 3 consecutive requests failed to connect; last: cannot connect")
    assert result.failed
    assert 1 <= result.succeeded <= 5
    reasons = result.failure_reasons()
    # The requests in flight when it died, the ones refused after, the ones never sent.
    assert any("before the response was complete" in r or "cut off mid-stream" in r for r in reasons), reasons
    assert any(r.startswith("cannot connect") for r in reasons), reasons
    assert any(r.startswith("not sent: stopped sending") for r in reasons), reasons
    assert len(result.records) == 50
    assert result.metrics["error_rate"] == (50 - result.succeeded) / 50


@pytest.mark.timeout(30)
def test_unreachable_server_is_a_run_error(sim_thread) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(RunError, match=rf"cannot reach the server at http://127.0.0.1:{port}"):
        run_workload(WorkloadSpec(url=f"http://127.0.0.1:{port}", requests=1))


def _streaming(*payloads: bytes, status: int = 200):
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(status=status, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for payload in payloads:
            await response.write(payload)
        return response

    return handler


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("payloads", "reason"),
    [
        ((b'data: {"choices":[{"text":"a"}]}\n\n', b"data: {oops\n\n"),
         "malformed event: expected JSON after 'data:', got '{oops'"),
        ((b'data: {"choices":[{"text":"a"}]}\n\n',),
         "stream ended after 1 of 3 tokens without finish_reason (closed without [DONE])"),
        ((b'data: {"error":{"message":"CUDA error: an illegal memory access"}}\n\n',),
         "server reported an error in the stream: CUDA error: an illegal memory access"),
    ],
)
def test_malformed_or_truncated_streams_fail_clearly(canned_server, payloads, reason) -> None:
    server = canned_server({"POST /v1/completions": _streaming(*payloads)})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=3))
    assert result.failure_reasons() == {reason: 2}


@pytest.mark.timeout(30)
def test_http_error_bodies_are_summarised(canned_server) -> None:
    async def bad_request(request: web.Request) -> web.Response:
        return web.json_response(
            {"object": "error", "message": "This model's maximum context length is 4096 tokens.", "code": 400},
            status=400,
        )

    server = canned_server({"POST /generate": bad_request})
    result = run_workload(WorkloadSpec(url=server.url, api="sglang", requests=1, output_tokens=3))
    assert result.failure_reasons() == {
        "HTTP 400 Bad Request: This model's maximum context length is 4096 tokens.": 1
    }


@pytest.mark.timeout(30)
def test_a_server_that_never_answers_is_a_run_error_within_the_bound() -> None:
    import socket

    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        started = time.perf_counter()
        with pytest.raises(RunError, match=r"did not answer GET /v1/models within 1\.5 s"):
            run_workload(WorkloadSpec(url=f"http://127.0.0.1:{port}", requests=1,
                                      timeouts=Timeouts(connect_s=1.0, idle_s=0.5)))
        assert time.perf_counter() - started < 5.0


@pytest.mark.timeout(30)
def test_length_ranges_are_opt_in_seeded_and_recorded(sim_thread) -> None:
    url = sim_thread(**FAST)
    spec = WorkloadSpec(url=url, concurrency=4, requests=30, input_tokens=4, input_tokens_max=40,
                        output_tokens=2, output_tokens_max=12, seed=11)
    first = run_workload(spec)
    again = run_workload(spec)
    asked = [(r.requested_input_tokens, r.requested_output_tokens) for r in first.records]
    assert asked == [(r.requested_input_tokens, r.requested_output_tokens) for r in again.records]
    assert len(set(asked)) > 10
    assert all(4 <= i <= 40 and 2 <= o <= 12 for i, o in asked)
    # The server's counts are what is recorded, and here they match what was asked.
    assert [(r.input_tokens, r.output_tokens) for r in first.records] == asked
    assert first.settings["input_tokens_max"] == 40 and first.settings["output_tokens_max"] == 12


@pytest.mark.timeout(30)
def test_failed_warmup_is_excluded_and_does_not_stop_the_run(canned_server) -> None:
    calls = {"n": 0}

    async def completions(request: web.Request) -> web.StreamResponse:
        calls["n"] += 1
        if calls["n"] <= 2:  # the two warm-up requests
            return web.json_response({"message": "still loading"}, status=503)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b'data: {"choices":[{"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}\n\n')
        await response.write(b"data: [DONE]\n\n")
        return response

    server = canned_server({"POST /v1/completions": completions})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=3, warmup_requests=2, output_tokens=1))
    assert [r.error for r in result.warmup_records] == ["HTTP 503 Service Unavailable: still loading"] * 2
    assert result.failures == [] and result.succeeded == 3
    assert result.metrics["error_rate"] == 0.0
    assert result.to_dict()["warmup_failed"] == 2


@pytest.mark.timeout(30)
def test_a_json_answer_instead_of_a_stream_is_named(canned_server) -> None:
    async def whole(request: web.Request) -> web.Response:
        return web.json_response({"choices": [{"text": "all at once"}]})

    server = canned_server({"POST /v1/completions": whole})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=1, output_tokens=3))
    (reason,) = result.failure_reasons()
    assert reason.startswith("expected an event stream, got a JSON body (streaming not supported?): {")


@pytest.mark.timeout(30)
def test_the_whole_request_bound_is_named_when_it_is_the_one_that_fires(sim_thread) -> None:
    url = sim_thread(ttft_ms=5.0, step_ms=20.0)  # 50 tokens take a second; chunks keep coming
    started = time.perf_counter()
    result = run_workload(
        WorkloadSpec(url=url, requests=1, output_tokens=50, timeouts=Timeouts(idle_s=5.0, request_s=0.3))
    )
    assert time.perf_counter() - started < 2.0
    assert result.failure_reasons() == {"the request took longer than its timeout (0.3 s)": 1}


@pytest.mark.timeout(30)
def test_hanging_up_right_after_the_terminating_event_is_not_a_failure(canned_server) -> None:
    async def rude(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(
            b'data: {"choices":[{"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}\n\n'
        )
        await response.write(b"data: [DONE]\n\n")
        await asyncio.sleep(0.05)
        assert request.transport is not None
        request.transport.abort()  # no end of the chunked body, just a reset
        return response

    server = canned_server({"POST /v1/completions": rude})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=3, output_tokens=1))
    assert result.failures == [] and result.succeeded == 3


@pytest.mark.timeout(30)
def test_hanging_up_mid_stream_is_a_failure(canned_server) -> None:
    async def rude(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b'data: {"choices":[{"text":"x"}]}\n\n')
        await asyncio.sleep(0.05)
        assert request.transport is not None
        request.transport.abort()
        return response

    server = canned_server({"POST /v1/completions": rude})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=3))
    (reason,) = result.failure_reasons()
    assert reason.startswith(("response cut off mid-stream", "the server closed the connection")), reason


@pytest.mark.timeout(60)
def test_a_closed_loops_first_requests_are_due_at_the_start(sim_thread) -> None:
    """Every stream's first request is due when the phase starts, so the time the client takes
    to send a burst is in queue_ms; each later request is due when its stream's last one ended."""
    url = sim_thread(ttft_ms=5.0, step_ms=1.0)
    result = run_workload(WorkloadSpec(url=url, concurrency=16, requests=32, output_tokens=3, metrics_url=""))
    assert result.failures == []
    first = sorted(result.records, key=lambda r: r.sent_s or 0.0)[:16]
    assert {r.due_s for r in first} == {0.0}
    assert all(r.sent_s is not None and r.queue_ms == pytest.approx((r.sent_s - r.due_s) * 1000.0) for r in first)
    latest = max(first, key=lambda r: r.sent_s or 0.0)
    assert latest.queue_ms is not None and latest.queue_ms > 0.0
    later = [r for r in result.records if r not in first]
    assert all(0.0 < r.due_s <= (r.sent_s or 0.0) for r in later)



@pytest.mark.timeout(120)
def test_a_burst_of_streams_is_read_while_it_is_still_being_sent() -> None:
    """256 streams start together against a server on the client's own event loop, which it
    can serve only when the client yields: the first answers are read between groups of
    sends, not only once the last request has gone out."""
    from benchdoc.sim import SimConfig
    from benchdoc.sim.server import SimServer
    from benchdoc.workloads.client import run_workload_async

    async def main() -> Any:
        server = SimServer(SimConfig(ttft_ms=0.0, step_ms=10.0, max_running=4096))
        port = await server.start("127.0.0.1", 0)
        try:
            return await run_workload_async(WorkloadSpec(url=f"http://127.0.0.1:{port}", concurrency=256,
                                                         requests=256, output_tokens=4, metrics_url="", workers=1))
        finally:
            await server.close()

    result = asyncio.run(main())
    assert result.failures == []
    sent = [r.sent_s or 0.0 for r in result.records]
    first_read = min((r.sent_s or 0.0) + (r.ttft_ms or 0.0) / 1000.0 for r in result.records)
    assert first_read < max(sent), (first_read, max(sent))
