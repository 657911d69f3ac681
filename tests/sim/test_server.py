"""The simulated server over real HTTP: wire formats, timing against the model, counters."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from benchdoc.sim import expected
from benchdoc.sim.config import SimConfig

from .conftest import SimClient, Streamed, least_of

# Judged on real time: run alone, after the parallel part of the suite (scripts/test).
pytestmark = pytest.mark.timing

FAST = {"ttft_ms": 2.0, "step_ms": 1.0}


def _words(text: str) -> int:
    return len(text.split())


def test_models_lists_the_model_as_simulated(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(model="tiny-sim", **FAST)
    status, text = client.get(sim.url + "/v1/models")
    assert status == 200
    import json

    listing = json.loads(text)
    assert listing["object"] == "list"
    assert [m["id"] for m in listing["data"]] == ["tiny-sim"]
    assert listing["data"][0]["owned_by"] == "benchdoc-simulator"


def test_health_and_server_info_say_simulator(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(step_ms=0.25, ttft_ms=1.0)
    assert client.get(sim.url + "/health")[0] == 200
    status, text = client.get(sim.url + "/server_info")
    import json

    info = json.loads(text)
    assert status == 200 and info["simulator"] is True
    assert "not real hardware" in info["description"]
    assert info["config"]["step_ms"] == 0.25


def test_completions_stream_format_with_usage(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(**FAST)
    body = {"model": "sim-llm", "prompt": "one two three", "max_tokens": 5, "stream": True,
            "stream_options": {"include_usage": True}}
    result = client.stream(sim.url + "/v1/completions", body)
    assert result.status == 200 and result.content_type == "text/event-stream"
    assert result.events[-1][1] == "[DONE]"
    chunks = result.payloads
    token_chunks, usage_chunk = chunks[:-1], chunks[-1]
    assert all(c["object"] == "text_completion" and c["model"] == "sim-llm" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    texts = [c["choices"][0]["text"] for c in token_chunks]
    assert len(texts) == 5 and all(texts) and sum(_words(t) for t in texts) == 5
    assert [c["choices"][0]["finish_reason"] for c in token_chunks] == [None] * 4 + ["length"]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"] == {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}


def test_completions_stream_without_include_usage_has_no_usage_chunk(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(**FAST)
    result = client.stream(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 3, "stream": True})
    assert all("usage" not in c for c in result.payloads)
    assert len(result.payloads) == 3


def test_without_stream_usage_no_stream_carries_usage_even_when_asked(sim_factory: Any, client: SimClient) -> None:
    """--no-stream-usage: as llama-cpp-python's server, which ignores stream_options."""
    sim = sim_factory(**FAST, stream_usage=False)
    body = {"prompt": "one two three", "max_tokens": 4, "stream": True, "stream_options": {"include_usage": True}}
    result = client.stream(sim.url + "/v1/completions", body)
    assert result.status == 200 and result.events[-1][1] == "[DONE]"
    assert all("usage" not in c for c in result.payloads) and len(result.payloads) == 4
    assert result.payloads[-1]["choices"][0]["finish_reason"] == "length"


def test_chat_stream_opens_with_role_then_content(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(**FAST)
    body = {"messages": [{"role": "user", "content": "hello there"}], "max_tokens": 4, "stream": True,
            "stream_options": {"include_usage": True}}
    chunks = client.stream(sim.url + "/v1/chat/completions", body).payloads
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    contents = [c["choices"][0]["delta"]["content"] for c in chunks[1:-1]]
    assert len(contents) == 4 and all(contents)
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"
    assert chunks[-1]["usage"] == {"prompt_tokens": 2, "completion_tokens": 4, "total_tokens": 6}


def test_non_streaming_bodies_carry_text_and_usage(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(**FAST)
    status, completion = client.post(sim.url + "/v1/completions", {"prompt": "a b", "max_tokens": 6})
    assert status == 200 and completion["object"] == "text_completion"
    assert _words(completion["choices"][0]["text"]) == 6
    assert completion["usage"] == {"prompt_tokens": 2, "completion_tokens": 6, "total_tokens": 8}
    status, chat = client.post(sim.url + "/v1/chat/completions",
                               {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2})
    assert status == 200 and chat["object"] == "chat.completion"
    assert chat["choices"][0]["message"]["role"] == "assistant"
    assert _words(chat["choices"][0]["message"]["content"]) == 2
    assert chat["choices"][0]["finish_reason"] == "length"
    assert chat["usage"]["completion_tokens"] == 2


def test_natural_stop_reports_stop_and_the_real_count(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(natural_output_tokens=3, **FAST)
    status, body = client.post(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 10})
    assert status == 200
    assert body["choices"][0]["finish_reason"] == "stop" and body["usage"]["completion_tokens"] == 3


def test_generate_stream_has_cumulative_text_and_meta_info(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(**FAST)
    body = {"text": "a b c d", "sampling_params": {"max_new_tokens": 4}, "stream": True}
    result = client.stream(sim.url + "/generate", body)
    assert result.events[-1][1] == "[DONE]"
    lines = result.payloads
    assert [m["meta_info"]["completion_tokens"] for m in lines] == [1, 2, 3, 4]
    assert [_words(m["text"]) for m in lines] == [1, 2, 3, 4]
    assert all(lines[i + 1]["text"].startswith(lines[i]["text"]) for i in range(3))
    assert all(m["meta_info"]["prompt_tokens"] == 4 for m in lines)
    assert [m["meta_info"]["finish_reason"] for m in lines[:-1]] == [None] * 3
    assert lines[-1]["meta_info"]["finish_reason"] == {"type": "length", "length": 4}
    assert "spec_verify_ct" not in lines[-1]["meta_info"]


def test_generate_without_stream_answers_one_object(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(**FAST)
    status, body = client.post(sim.url + "/generate", {"input_ids": [1, 2, 3], "sampling_params": {"max_new_tokens": 3}})
    assert status == 200
    assert _words(body["text"]) == 3
    assert body["meta_info"]["prompt_tokens"] == 3 and body["meta_info"]["completion_tokens"] == 3


@pytest.mark.parametrize(
    ("path", "body", "raw", "status", "fragment"),
    [
        ("/v1/completions", None, b"{not json", 400, "not valid JSON"),
        ("/v1/completions", {"prompt": "x", "model": "other"}, None, 404, "The model `other` does not exist."),
        ("/v1/chat/completions", {"messages": "hi"}, None, 400, "'messages' must be a non-empty list"),
    ],
)
def test_bad_requests_get_an_openai_error_body(
    sim_factory: Any, client: SimClient, path: str, body: Any, raw: bytes | None, status: int, fragment: str
) -> None:
    sim = sim_factory(**FAST)
    got, answer = client.post(sim.url + path, body, raw=raw)
    assert got == status
    assert answer["object"] == "error" and answer["code"] == status
    assert fragment in answer["message"]


def _gaps(result: Streamed) -> list[float]:
    times = [t for t, p in result.events if isinstance(p, dict) and p.get("choices")]
    return [(b - a) * 1000 for a, b in zip(times, times[1:])]


def _tpot_ms(result: Streamed, ttft_ms: float) -> float:
    """TPOT from sending to the last token, less the model's TTFT.

    A busy machine only adds to it: a late read of the first chunk would shorten a
    first-to-last span (the chunks arrive bunched), but nothing moves the last token earlier.
    """
    times = [t for t, p in result.events if isinstance(p, dict) and (p.get("choices") or "meta_info" in p)]
    return ((times[-1] - result.sent) * 1000 - ttft_ms) / (len(times) - 1)


def test_noise_free_timing_matches_the_model(sim_factory: Any, client: SimClient) -> None:
    config = {"ttft_ms": 30.0, "step_ms": 3.0}
    sim = sim_factory(**config)
    body = {"prompt": "w " * 10, "max_tokens": 21, "stream": True}
    client.stream(sim.url + "/v1/completions", body)  # warm the server's code paths
    model = expected(SimConfig(**config), input_tokens=10, output_tokens=21)
    results: list[Streamed] = []

    def ttft() -> float:
        results.append(client.stream(sim.url + "/v1/completions", body))
        return (results[-1].events[0][0] - results[-1].sent) * 1000

    # Loopback HTTP adds well under a few ms; the model is never undercut.
    assert model.ttft_ms - 0.5 <= least_of(6, ttft) <= model.ttft_ms + 5.0
    assert model.tpot_ms * 0.95 <= min(_tpot_ms(r, model.ttft_ms) for r in results) <= model.tpot_ms * 1.15
    # Chunks leave one step apart. A client starved of CPU reads them in bunches, so the
    # claim is that some stream of a few was read at the model's pace.
    def read_at_pace(result: Streamed) -> bool:
        return abs(statistics.median(_gaps(result)) - model.itl_ms) <= 0.25 * model.itl_ms

    while not any(read_at_pace(r) for r in results) and len(results) < 10:
        results.append(client.stream(sim.url + "/v1/completions", body))
    assert any(read_at_pace(r) for r in results), [statistics.median(_gaps(r)) for r in results]


def test_sub_millisecond_steps_are_not_truncated(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=0.4)
    body = {"prompt": "x", "max_tokens": 41, "stream": True}
    tpot = least_of(5, lambda: _tpot_ms(client.stream(sim.url + "/v1/completions", body), 1.0))
    # Whole-millisecond truncation would give 0 or 1 ms per token.
    assert 0.4 * 0.9 <= tpot <= 0.4 * 1.6, tpot


def test_speculative_chunks_carry_several_tokens_and_consistent_meta_info(
    sim_factory: Any, client: SimClient
) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=0.2, verify_ms=0.1, draft_steps=3, accept_prob=0.8, seed=1)
    result = client.stream(sim.url + "/generate",
                           {"text": "x", "sampling_params": {"max_new_tokens": 60}, "stream": True})
    metas = [p["meta_info"] for p in result.payloads]
    counts = [m["completion_tokens"] for m in metas]
    sizes = [b - a for a, b in zip(counts, counts[1:])]
    assert max(sizes) > 1 and max(sizes) <= 4
    assert counts[-1] == 60
    assert [m["spec_verify_ct"] for m in metas] == list(range(len(metas)))
    for meta in metas[1:]:
        assert meta["spec_accept_length"] == pytest.approx(meta["completion_tokens"] / meta["spec_verify_ct"])
    # The OpenAI route streams the same multi-token chunks.
    chunks = client.stream(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 60, "stream": True}).payloads
    assert max(_words(c["choices"][0]["text"]) for c in chunks) > 1
    assert sum(_words(c["choices"][0]["text"]) for c in chunks) == 60


def test_long_run_accept_length_matches_the_model(sim_factory: Any, client: SimClient) -> None:
    settings = {"ttft_ms": 0.0, "step_ms": 0.0, "draft_steps": 2, "accept_prob": 0.6, "seed": 2}
    sim = sim_factory(**settings)
    before = client.metrics(sim.url)
    results = client.stream_many(
        sim.url + "/generate",
        [{"text": "x", "sampling_params": {"max_new_tokens": 1500}, "stream": True}] * 2,
    )
    after = client.metrics(sim.url)
    model = expected(SimConfig(**settings), 1, 1500).accept_length  # 1 + 0.6 + 0.36
    finals = [r.payloads[-1]["meta_info"] for r in results]
    per_request = sum(m["completion_tokens"] for m in finals) / sum(m["spec_verify_ct"] for m in finals)
    assert per_request == pytest.approx(model, rel=0.03)
    label = '{model_name="sim-llm"}'
    drafts = after[f"vllm:spec_decode_num_drafts_total{label}"] - before[f"vllm:spec_decode_num_drafts_total{label}"]
    accepted = (after[f"vllm:spec_decode_num_accepted_tokens_total{label}"]
                - before[f"vllm:spec_decode_num_accepted_tokens_total{label}"])
    assert 1 + accepted / drafts == pytest.approx(model, rel=0.03)


def test_counters_move_with_the_tokens_served(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(ttft_ms=0.5, step_ms=0.1, draft_steps=2, accept_prob=0.5)
    label = '{model_name="sim-llm"}'
    before = client.metrics(sim.url)
    assert before[f"vllm:num_requests_running{label}"] == 0
    client.stream(sim.url + "/v1/completions", {"prompt": "a b c", "max_tokens": 10, "stream": True})
    client.post(sim.url + "/v1/chat/completions", {"messages": [{"role": "user", "content": "d e"}], "max_tokens": 7})
    client.stream(sim.url + "/generate", {"text": "f", "sampling_params": {"max_new_tokens": 5}, "stream": True})
    after = client.metrics(sim.url)

    def delta(name: str) -> float:
        return after[name] - before.get(name, 0.0)

    assert delta(f"vllm:prompt_tokens_total{label}") == 3 + 2 + 1
    assert delta(f"vllm:generation_tokens_total{label}") == 10 + 7 + 5
    assert delta('vllm:request_success_total{model_name="sim-llm",finished_reason="length"}') == 3
    drafts = delta(f"vllm:spec_decode_num_drafts_total{label}")
    assert delta(f"vllm:spec_decode_num_draft_tokens_total{label}") == 2 * drafts
    # Each request releases its first token from prefill, then 1 + accepted per verify step.
    assert delta(f"vllm:generation_tokens_total{label}") == 3 + drafts + delta(
        f"vllm:spec_decode_num_accepted_tokens_total{label}")
    positions = [after.get(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{model_name="sim-llm",position="{p}"}}', 0)
                 for p in range(2)]
    assert sum(positions) == after[f"vllm:spec_decode_num_accepted_tokens_total{label}"]
    assert positions[0] >= positions[1]
    assert after[f"vllm:num_requests_running{label}"] == 0


def test_requests_beyond_max_running_queue(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(ttft_ms=5.0, step_ms=2.0, max_running=2)
    body = {"prompt": "x", "max_tokens": 11, "stream": True}
    results = sorted(client.stream_many(sim.url + "/v1/completions", [body] * 3), key=lambda r: r.events[0][0])
    first_two, third = results[:2], results[2]
    earliest_end = min(r.events[-1][0] for r in first_two)
    # All three were sent while both slots were busy, so the third had to queue ...
    assert third.sent < earliest_end
    # ... and its first token came only after a whole request had finished and freed a slot.
    # Judged on the stream's own timestamps (cause before effect), not on a duration that a
    # busy machine stretches.
    assert third.events[0][0] >= earliest_end


def test_step_time_grows_with_running_requests(sim_factory: Any, client: SimClient) -> None:
    sim = sim_factory(ttft_ms=1.0, step_ms=2.0, load_slope=1.0)
    body = {"prompt": "x", "max_tokens": 16, "stream": True}
    alone = least_of(6, lambda: _tpot_ms(client.stream(sim.url + "/v1/completions", body), 1.0))
    pair = least_of(6, lambda: statistics.fmean(
        _tpot_ms(r, 1.0) for r in client.stream_many(sim.url + "/v1/completions", [body] * 2)))
    assert alone == pytest.approx(2.0, rel=0.2)
    assert pair == pytest.approx(4.0, rel=0.2)


def test_same_seed_gives_the_same_chunks_and_errors(sim_factory: Any, client: SimClient) -> None:
    settings = {"ttft_ms": 0.5, "step_ms": 0.1, "draft_steps": 3, "accept_prob": 0.5, "error_rate": 0.3}

    def observe(seed: int) -> list[Any]:
        sim = sim_factory(seed=seed, **settings)
        seen: list[Any] = []
        for _ in range(8):
            result = client.stream(sim.url + "/generate",
                                   {"text": "x", "sampling_params": {"max_new_tokens": 20}, "stream": True})
            if result.status != 200:
                seen.append(result.status)
            else:
                seen.append([p["meta_info"]["completion_tokens"] for p in result.payloads])
        return seen

    first = observe(9)
    assert first == observe(9)
    assert first != observe(10)
    assert 500 in first and any(isinstance(x, list) for x in first)


def test_client_leaving_mid_stream_frees_its_slot(sim_factory: Any, client: SimClient) -> None:
    import asyncio

    import aiohttp

    sim = sim_factory(ttft_ms=1.0, step_ms=5.0, max_running=1)

    async def leave_early() -> None:
        async with aiohttp.ClientSession() as session:
            body = {"prompt": "x", "max_tokens": 200, "stream": True}
            async with session.post(sim.url + "/v1/completions", json=body) as response:
                await response.content.readline()
                response.close()  # hang up after the first chunk

    asyncio.run(leave_early())
    # The only slot is free again: a new request is served at once, not after 200 steps.
    result = client.stream(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 2, "stream": True})
    assert (result.events[0][0] - result.sent) * 1000 < 500
    samples = client.metrics(sim.url)
    assert samples['vllm:num_requests_running{model_name="sim-llm"}'] == 0
    assert samples['vllm:request_success_total{model_name="sim-llm",finished_reason="abort"}'] == 1
