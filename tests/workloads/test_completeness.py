"""A request is complete only when the server said why it stopped and, when the length
was forced, the output reached it. Streams cut short are failures, counted apart."""

from __future__ import annotations

import asyncio
import re

import pytest
from aiohttp import web

from benchdoc.workloads import WorkloadSpec, run_workload

CUT = re.compile(r"stream ended after (\d+) of 64 tokens without finish_reason")


def _preempted_run(url: str, api: str = "openai-completions") -> object:
    return run_workload(
        WorkloadSpec(url=url, api=api, concurrency=2, requests=10, input_tokens=4, output_tokens=64)
    )


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", ["openai-completions", "openai-chat", "sglang"])
def test_streams_preempted_with_done_are_failures_cut_short(sim_subprocess, api: str) -> None:
    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "10", "--preempt-on-arrival", "done")
    result = _preempted_run(url, api)
    # Closed loop at 2: each new request preempts the one running; only the last runs alone.
    assert result.succeeded == 1 and result.cut_short == 9  # type: ignore[attr-defined]
    cut = [r for r in result.records if r.cut_short]  # type: ignore[attr-defined]
    for record in cut:
        match = CUT.fullmatch(record.error)
        assert match, record.error
        assert int(match.group(1)) < 64
        assert record.finish_reason is None
    (complete,) = [r for r in result.records if r.ok]  # type: ignore[attr-defined]
    assert complete.output_tokens == 64 and complete.finish_reason == "length"
    metrics = result.metrics  # type: ignore[attr-defined]
    assert metrics["error_rate"] == pytest.approx(0.9)
    # Only the complete request is in the latency and throughput figures.
    assert metrics["ttft_ms_mean"] == pytest.approx(complete.ttft_ms)
    assert metrics["e2e_ms_mean"] == pytest.approx(complete.e2e_ms)
    assert metrics["request_s"] == pytest.approx(1 / result.duration_s)  # type: ignore[attr-defined]
    assert metrics["output_tok_s"] == pytest.approx(64 / result.duration_s)  # type: ignore[attr-defined]
    data = result.to_dict(include_requests=True)  # type: ignore[attr-defined]
    assert data["cut_short"] == 9 and data["failed"] == 9
    assert sum(1 for r in data["request_records"] if r["cut_short"]) == 9


@pytest.mark.timeout(60)
def test_streams_that_just_close_are_failures_cut_short(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "10", "--preempt-on-arrival", "close")
    result = _preempted_run(url)
    assert result.succeeded == 1 and result.cut_short == 9  # type: ignore[attr-defined]
    for record in result.records:  # type: ignore[attr-defined]
        if record.cut_short:
            assert record.error.endswith("without finish_reason (closed without [DONE])"), record.error
            assert CUT.match(record.error)


@pytest.mark.timeout(60)
def test_a_natural_stop_is_complete_when_the_length_is_not_forced(sim_subprocess) -> None:
    url = sim_subprocess("--ttft-ms", "2", "--step-ms", "1", "--natural-output-tokens", "10")
    forced = run_workload(WorkloadSpec(url=url, requests=3, output_tokens=64, input_tokens=4))
    # The simulator honours ignore_eos: forced, every request runs to 64 tokens.
    assert forced.succeeded == 3 and {r.output_tokens for r in forced.records} == {64}
    free = run_workload(WorkloadSpec(url=url, requests=3, output_tokens=64, input_tokens=4, ignore_eos=False))
    assert free.succeeded == 3 and free.cut_short == 0
    assert {(r.output_tokens, r.finish_reason) for r in free.records} == {(10, "stop")}


def _short_stream(finish_reason: str) -> object:
    """Three tokens with usage, then the given finish_reason and [DONE]: a server that
    ignores the forced length."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for n in (1, 2):
            await response.write(
                b'data: {"choices":[{"text":" w"}],"usage":{"prompt_tokens":4,"completion_tokens":%d}}\n\n' % n
            )
            await asyncio.sleep(0.001)
        await response.write(
            b'data: {"choices":[{"text":" w","finish_reason":"%s"}],'
            b'"usage":{"prompt_tokens":4,"completion_tokens":3}}\n\n' % finish_reason.encode()
        )
        await response.write(b"data: [DONE]\n\n")
        return response

    return handler


@pytest.mark.timeout(30)
def test_a_forced_length_not_reached_is_a_failure_counted_from_usage(canned_server) -> None:
    server = canned_server({"POST /v1/completions": _short_stream("stop")})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=64))
    assert result.failure_reasons() == {"stream ended after 3 of 64 forced tokens (finish_reason stop)": 2}
    assert result.cut_short == 2 and "ttft_ms_mean" not in result.metrics
    # The same stream is complete when the length was not forced.
    free = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=64, ignore_eos=False))
    assert free.succeeded == 2 and {r.output_tokens for r in free.records} == {3}


@pytest.mark.timeout(30)
def test_a_final_usage_event_with_an_empty_choice_is_not_a_chunk(canned_server) -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for _ in range(256):
            await response.write(b'data: {"choices":[{"text":" w","finish_reason":null}]}\n\n')
        await response.write(
            b'data: {"choices":[{"text":"","finish_reason":"length"}],'
            b'"usage":{"prompt_tokens":4,"completion_tokens":256}}\n\n'
        )
        await response.write(b"data: [DONE]\n\n")
        return response

    server = canned_server({"POST /v1/completions": handler})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=256,
                                       continuous_usage=False))
    assert result.succeeded == 2
    for record in result.records:
        assert len(record.chunk_ms) == 256 and record.output_tokens == 256
        assert record.chunk_token_source == "one-per-chunk"
        # One token per chunk: the per-token gaps are the chunk gaps themselves.
        assert record.itl_ms() == pytest.approx(record.chunk_gaps_ms())
    assert result.provenance["chunk_tokens"] == {"one-per-chunk": 2}
