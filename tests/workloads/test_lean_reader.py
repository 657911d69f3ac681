"""The lean reader (an asyncio Protocol over httptools) against real servers on 127.0.0.1:
the simulator in its own process for the three APIs, cut streams and bad statuses, and
canned servers for framings and hang-ups the simulator has no switch for. Where both
readers can read a stream, they must agree on what it held."""

from __future__ import annotations

import asyncio
import re

import pytest
from aiohttp import web

from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload
from benchdoc.workloads.inflight import CUT_MID_BODY
from benchdoc.workloads.lean_reader import unsupported

APIS = ("openai-completions", "openai-chat", "sglang")
CUT = re.compile(r"stream ended after (\d+) of 64 tokens without finish_reason.*")


def _both(spec: WorkloadSpec) -> tuple[object, object]:
    """The same workload through aiohttp and through the lean reader."""
    from dataclasses import replace

    return run_workload(replace(spec, http_client="aiohttp")), run_workload(replace(spec, http_client="lean"))


def _shape(result: object) -> list[tuple[int, bool, int | None, int, str | None]]:
    """What a run read, request by request: index, ok, tokens, chunks, finish reason."""
    return [(r.index, r.ok, r.output_tokens, len(r.chunk_ms), r.finish_reason)  # type: ignore[attr-defined]
            for r in result.records]  # type: ignore[attr-defined]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", APIS)
def test_both_readers_read_the_same_streams_from_the_simulator(sim_subprocess, api: str) -> None:
    url = sim_subprocess("--ttft-ms", "3", "--step-ms", "1")
    spec = WorkloadSpec(url=url, api=api, concurrency=4, requests=12, input_tokens=8, output_tokens=40,
                        output_tokens_max=60, seed=3)
    aio, lean = _both(spec)
    assert lean.provenance["http_client"] == "lean (httptools)"  # type: ignore[attr-defined]
    assert aio.provenance["http_client"] == "aiohttp"  # type: ignore[attr-defined]
    assert lean.succeeded == 12 and aio.succeeded == 12  # type: ignore[attr-defined]
    assert _shape(lean) == _shape(aio)
    # Every token its own chunk, as the simulator sends them; the counts are the server's.
    for record in lean.records:  # type: ignore[attr-defined]
        assert len(record.chunk_ms) == record.output_tokens == record.requested_output_tokens
        assert record.output_token_source == ("meta_info" if api == "sglang" else "usage")
        assert list(record.chunk_ms) == sorted(record.chunk_ms) and record.chunk_ms[0] > 0
        assert record.server_ttft_ms is not None and record.send_delay_ms is not None
        assert 0 <= record.send_delay_ms <= record.chunk_ms[0]
    assert lean.provenance["chunk_tokens"] == aio.provenance["chunk_tokens"]  # type: ignore[attr-defined]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["done", "close"])
def test_cut_streams_are_failures_with_the_same_reasons_through_both_readers(sim_subprocess, mode: str) -> None:
    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "10", "--preempt-on-arrival", mode)
    spec = WorkloadSpec(url=url, concurrency=2, requests=10, input_tokens=4, output_tokens=64)
    for result in _both(spec):
        assert result.succeeded == 1 and result.cut_short == 9  # type: ignore[attr-defined]
        reasons = [r.error for r in result.records if r.cut_short]  # type: ignore[attr-defined]
        assert all(CUT.fullmatch(reason) for reason in reasons), reasons
        if mode == "close":
            assert all(reason.endswith("(closed without [DONE])") for reason in reasons), reasons


@pytest.mark.timeout(60)
def test_bad_status_codes_read_the_same_through_both_readers(sim_subprocess) -> None:
    # One simulator per reader: its injected errors follow its seed, request by request.
    results = []
    for client in ("aiohttp", "lean"):
        url = sim_subprocess("--ttft-ms", "2", "--step-ms", "1", "--error-rate", "0.5", "--seed", "4")
        results.append(run_workload(WorkloadSpec(url=url, concurrency=1, requests=16, output_tokens=4,
                                                 http_client=client)))
    aio, lean = results
    assert lean.failure_reasons() == aio.failure_reasons() == {
        "HTTP 500 Internal Server Error: simulated internal server error (injected by --error-rate)":
            len(aio.failures)
    }
    assert 2 <= len(lean.failures) <= 14
    assert [r.ok for r in lean.records] == [r.ok for r in aio.records]
    assert {r.http_status for r in lean.failures} == {500}


def _events(count: int) -> bytes:
    body = b"".join(
        b'data: {"choices":[{"text":" w"}],"usage":{"prompt_tokens":4,"completion_tokens":%d}}\n\n' % n
        for n in range(1, count)
    )
    return body + (
        b'data: {"choices":[{"text":" w","finish_reason":"length"}],'
        b'"usage":{"prompt_tokens":4,"completion_tokens":%d}}\n\n' % count
    ) + b"data: [DONE]\n\n"


@pytest.mark.timeout(30)
def test_content_length_and_chunked_bodies_and_kept_alive_connections(canned_server) -> None:
    peers: list[object] = []

    async def whole(request: web.Request) -> web.Response:
        assert request.transport is not None
        peers.append(request.transport.get_extra_info("peername"))
        return web.Response(body=_events(5), content_type="text/event-stream")  # Content-Length

    async def chunked(request: web.Request) -> web.StreamResponse:
        assert request.transport is not None
        peers.append(request.transport.get_extra_info("peername"))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        data = _events(5)
        for cut in range(0, len(data), 37):  # events split across chunks at odd places
            await response.write(data[cut : cut + 37])
        return response

    for handler in (whole, chunked):
        peers.clear()
        server = canned_server({"POST /v1/completions": handler})
        spec = WorkloadSpec(url=server.url, model="m", concurrency=2, requests=8, output_tokens=5)
        aio, lean = _both(spec)
        assert lean.succeeded == 8 and _shape(lean) == _shape(aio)  # type: ignore[attr-defined]
        assert {r.output_tokens for r in lean.records} == {5}  # type: ignore[attr-defined]
        lean_peers = set(peers[8:])  # the lean run's requests came in on at most two connections
        assert len(peers) == 16 and 1 <= len(lean_peers) <= 2, peers


@pytest.mark.timeout(30)
def test_other_line_breaks_and_comments_follow_the_full_event_rules(canned_server) -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8"})
        await response.prepare(request)
        await response.write(b": keep-alive\n\n")
        await response.write(b'data: {"choices":[{"text":" a"}],\ndata: "usage":{"completion_tokens":1}}\n\n')
        await response.write(b'data: {"choices":[{"text":" b"}],"usage":{"completion_tokens":2}}\r\n\r\n')
        await response.write(b'data: {"choices":[{"text":" c","finish_reason":"length"}],'
                             b'"usage":{"completion_tokens":3}}\r\n\r\ndata: [DONE]\r\n\r\n')
        return response

    server = canned_server({"POST /v1/completions": handler})
    aio, lean = _both(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=3))
    assert lean.succeeded == 2 and _shape(lean) == _shape(aio)  # type: ignore[attr-defined]
    assert [len(r.chunk_ms) for r in lean.records] == [3, 3]  # type: ignore[attr-defined]


@pytest.mark.timeout(30)
def test_a_server_closing_mid_stream_fails_the_request_cut_short(canned_server) -> None:
    async def rude(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b'data: {"choices":[{"text":"x"}]}\n\n')
        await asyncio.sleep(0.05)
        assert request.transport is not None
        request.transport.abort()
        return response

    server = canned_server({"POST /v1/completions": rude})
    for result in _both(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=3)):
        assert result.failure_reasons() == {CUT_MID_BODY: 2}  # type: ignore[attr-defined]
        assert all(r.cut_short and len(r.chunk_ms) == 1 for r in result.records)  # type: ignore[attr-defined]


@pytest.mark.timeout(30)
def test_hanging_up_after_the_terminating_event_is_complete_and_the_connection_not_reused(canned_server) -> None:
    peers: list[object] = []

    async def rude(request: web.Request) -> web.StreamResponse:
        assert request.transport is not None
        peers.append(request.transport.get_extra_info("peername"))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(
            b'data: {"choices":[{"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}\n\n'
        )
        await response.write(b"data: [DONE]\n\n")
        await asyncio.sleep(0.05)
        request.transport.abort()  # no end of the chunked body, just a reset
        return response

    server = canned_server({"POST /v1/completions": rude})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=3, output_tokens=1, http_client="lean"))
    assert result.failures == [] and result.succeeded == 3
    assert len(set(peers)) == 3  # an unfinished response's connection is closed, never reused


@pytest.mark.timeout(30)
def test_timeouts_and_malformed_events_fail_with_their_reasons(sim_thread, canned_server) -> None:
    url = sim_thread(ttft_ms=5.0, step_ms=2.0, stall_after_tokens=3)
    stalled = run_workload(WorkloadSpec(url=url, concurrency=2, requests=2, output_tokens=20, http_client="lean",
                                        timeouts=Timeouts(idle_s=0.5, first_token_s=5.0)))
    assert stalled.failure_reasons() == {
        "stalled: no data within the idle timeout (0.5 s) after output had started": 2}
    assert [len(r.chunk_ms) for r in stalled.records] == [3, 3]

    async def malformed(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(b'data: {"choices":[{"text":"a"}]}\n\ndata: {oops\n\n')
        return response

    server = canned_server({"POST /v1/completions": malformed})
    bad = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=3, http_client="lean"))
    assert bad.failure_reasons() == {"malformed event: expected JSON after 'data:', got '{oops'": 2}


@pytest.mark.timeout(30)
def test_a_json_answer_and_an_error_body_are_named(canned_server) -> None:
    async def whole(request: web.Request) -> web.Response:
        return web.json_response({"choices": [{"text": "all at once"}]})

    async def refused(request: web.Request) -> web.Response:
        return web.json_response({"object": "error", "message": "too long", "code": 400}, status=400)

    server = canned_server({"POST /v1/completions": whole, "POST /generate": refused})
    json_body = run_workload(WorkloadSpec(url=server.url, model="m", requests=1, output_tokens=3, http_client="lean"))
    (reason,) = json_body.failure_reasons()
    assert reason.startswith("expected an event stream, got a JSON body (streaming not supported?): ")
    refused_run = run_workload(WorkloadSpec(url=server.url, api="sglang", requests=1, output_tokens=3,
                                            http_client="lean"))
    assert refused_run.failure_reasons() == {"HTTP 400 Bad Request: too long": 1}


def test_what_the_lean_reader_leaves_to_aiohttp() -> None:
    headers = {"Content-Type": "application/json"}
    assert unsupported(WorkloadSpec(url="http://127.0.0.1:8000"), headers) is None
    assert unsupported(WorkloadSpec(url="https://example.invalid"), headers) == "https URL"
    assert unsupported(WorkloadSpec(url="http://u:pw@127.0.0.1:8000"), headers) == "credentials in the URL"
    assert unsupported(WorkloadSpec(url="http://127.0.0.1:8000"), {"Authorization": "Bearer a\r\nX: y"}) == (
        "a header value with a line break")


@pytest.mark.timeout(30)
def test_a_url_it_does_not_carry_falls_back_to_aiohttp_and_says_so(sim_thread) -> None:
    url = sim_thread(ttft_ms=2.0, step_ms=1.0)
    with_credentials = url.replace("http://", "http://user:secret@")
    result = run_workload(WorkloadSpec(url=with_credentials, requests=2, output_tokens=3, http_client="lean"))
    assert result.succeeded == 2
    assert result.provenance["http_client"] == "aiohttp (the lean reader does not carry credentials in the URL)"
    assert result.settings["http_client"] == "lean"


@pytest.mark.timeout(30)
def test_the_streams_connections_are_taken_in_before_the_clock_starts(canned_server) -> None:
    """The lean reader opens the streams' connections before it asks which models the server
    serves: by the time that answer comes, the server has taken every one of them in, so no
    measured request waits for its connection to be accepted."""
    seen: list[int] = []
    servers: list[object] = []

    async def models(request: web.Request) -> web.Response:
        seen.append(len(servers[0]._runner.server.connections))  # type: ignore[attr-defined]
        return web.json_response({"object": "list", "data": [{"id": "m"}]})

    async def whole(request: web.Request) -> web.Response:
        return web.Response(body=_events(5), content_type="text/event-stream")

    server = canned_server({"GET /v1/models": models, "POST /v1/completions": whole})
    servers.append(server)
    result = run_workload(WorkloadSpec(url=server.url, concurrency=8, requests=8, output_tokens=5))
    assert result.succeeded == 8 and result.provenance["http_client"] == "lean (httptools)"
    assert seen and seen[0] >= 9, seen  # the 8 streams' connections, and the discovery's own
