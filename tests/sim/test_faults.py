"""Injected faults, in-process: not ready yet, stalled streams, HTTP 500s, a crash."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest

from benchdoc.sim import SimConfig, SimStartFailure, start_in_thread

from .conftest import SimClient


def test_not_ready_until_the_delay_has_passed(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=0.5, ready_delay_s=0.4)
    status, _ = client.get(sim.url + "/health")
    assert status == 503
    refused, body = client.post(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 2})
    assert refused == 503 and "loading" in body["message"]
    deadline = time.monotonic() + 5
    while client.get(sim.url + "/health")[0] != 200:
        assert time.monotonic() < deadline, "never became ready"
        time.sleep(0.05)
    assert client.post(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 2})[0] == 200


def test_stalled_stream_keeps_the_connection_open_without_data(sim_factory: Any) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=0.5, stall_after_tokens=3)

    async def run() -> tuple[list[dict[str, Any]], bool]:
        received: list[dict[str, Any]] = []
        async with aiohttp.ClientSession() as session:
            body = {"prompt": "x", "max_tokens": 10, "stream": True}
            async with session.post(sim.url + "/v1/completions", json=body) as response:
                assert response.status == 200
                try:
                    while True:
                        line = await asyncio.wait_for(response.content.readline(), timeout=0.4)
                        assert line, "the server closed the stalled stream"
                        if line.startswith(b"data: {"):
                            import json

                            received.append(json.loads(line[6:]))
                except asyncio.TimeoutError:
                    return received, response.connection is not None and not response.content.at_eof()
        raise AssertionError("unreachable")

    received, still_open = asyncio.run(run())
    assert [c["choices"][0]["text"] for c in received] and len(received) == 3
    assert still_open


def test_stalled_non_streaming_request_never_answers(sim_factory: Any) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=0.5, stall_after_tokens=0)

    async def run() -> None:
        timeout = aiohttp.ClientTimeout(total=0.3)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.post(sim.url + "/v1/completions", json={"prompt": "x", "max_tokens": 4}):
                pass

    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(run())


def test_error_rate_answers_500_with_a_json_body(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(ttft_ms=0.5, step_ms=0.1, error_rate=0.5, seed=4)
    statuses = []
    for _ in range(40):
        status, body = client.post(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 2})
        statuses.append(status)
        if status == 500:
            assert body["object"] == "error" and body["code"] == 500 and "simulated" in body["message"]
    assert set(statuses) == {200, 500}
    assert 8 <= statuses.count(500) <= 32
    errors = client.metrics(sim.url)['benchdoc_sim:request_errors_total{model_name="sim-llm"}']
    assert errors == statuses.count(500)


def test_error_rate_one_fails_every_request(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(error_rate=1.0)
    result = client.stream(sim.url + "/generate", {"text": "x", "stream": True})
    assert result.status == 500 and result.body["type"] == "InternalServerError"


def test_dies_when_the_nth_request_starts(sim_factory: Any) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=0.5, die_after_requests=3)

    async def run() -> list[str]:
        outcomes = []
        async with aiohttp.ClientSession() as session:
            for _ in range(4):
                try:
                    async with session.post(sim.url + "/v1/completions", json={"prompt": "x", "max_tokens": 2}) as r:
                        await r.read()
                        outcomes.append(str(r.status))
                except aiohttp.ClientError as err:
                    outcomes.append(type(err).__name__)
        return outcomes

    outcomes = asyncio.run(run())
    assert outcomes[:2] == ["200", "200"]
    assert all(not outcome.isdigit() for outcome in outcomes[2:])


def test_fail_start_raises_with_the_log() -> None:
    with pytest.raises(SimStartFailure) as caught:
        start_in_thread(SimConfig(fail_start="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert "Traceback (most recent call last)" in caught.value.log
    assert caught.value.log.strip().endswith("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert str(caught.value).startswith("torch.OutOfMemoryError")


@pytest.mark.parametrize("mode", ["done", "close"])
def test_a_new_arrival_preempts_the_oldest_running_stream(sim_factory: Any, client: SimClient, mode: str) -> None:
    sim = sim_factory(ttft_ms=5.0, step_ms=10.0, preempt_on_arrival=mode)
    body = {"prompt": "x", "max_tokens": 40, "stream": True, "stream_options": {"include_usage": True}}

    async def run() -> list[list[Any]]:
        async def one(delay: float) -> list[Any]:
            await asyncio.sleep(delay)
            events: list[Any] = []
            async with aiohttp.ClientSession() as session:
                async with session.post(sim.url + "/v1/completions", json=body) as response:
                    async for raw in response.content:
                        line = raw.decode().strip()
                        if line.startswith("data: "):
                            data = line[6:]
                            events.append(data if data == "[DONE]" else json.loads(data))
            return events

        return list(await asyncio.gather(one(0.0), one(0.05)))

    older, newer = asyncio.run(run())
    texts = [e for e in older if isinstance(e, dict) and e.get("choices")]
    assert 0 < len(texts) < 40
    assert all(e["choices"][0]["finish_reason"] is None for e in texts)
    if mode == "done":
        assert older[-1] == "[DONE]"
        assert older[-2]["usage"]["completion_tokens"] == len(texts)
    else:
        assert "[DONE]" not in older and not any("usage" in e for e in older if isinstance(e, dict))
    # The newer request ran alone to the end.
    assert newer[-1] == "[DONE]" and newer[-3]["choices"][0]["finish_reason"] == "length"
    assert client.metrics(sim.url)['vllm:num_preemptions_total{model_name="sim-llm"}'] == 1.0


def test_preemption_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="preempt_on_arrival must be one of 'done', 'close'"):
        SimConfig(preempt_on_arrival="sometimes")
