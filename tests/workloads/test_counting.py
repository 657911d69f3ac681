"""How a finished stream's tokens are counted and judged against a small canned server:
several tokens per chunk without usage, outputs longer than max_tokens, chat streams of
tool calls only, and per-chunk counts through a tokenizer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence

import pytest
from aiohttp import web

from benchdoc.workloads import WorkloadSpec, run_workload

from .tokenizer_fixture import build_tokenizer


def _stream(events: Sequence[dict[str, object]]) -> Callable[[web.Request], object]:
    """A handler streaming ``events`` as SSE data lines, then [DONE]."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(b"data: " + json.dumps(event).encode() + b"\n\n")
            await asyncio.sleep(0.002)
        await response.write(b"data: [DONE]\n\n")
        return response

    return handler


def _text_chunks(texts: Sequence[str], finish: str, usage: int | None = None) -> list[dict[str, object]]:
    events: list[dict[str, object]] = [{"choices": [{"text": t, "finish_reason": None}]} for t in texts]
    events[-1]["choices"][0]["finish_reason"] = finish  # type: ignore[index]
    if usage is not None:
        events.append({"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": usage}})
    return events


@pytest.mark.timeout(30)
def test_several_tokens_a_chunk_without_usage_is_complete_at_the_limit(canned_server) -> None:
    # Speculative decoding: 3 chunks of 4 tokens, finish_reason length, no count at all.
    server = canned_server({"POST /v1/completions": _stream(_text_chunks([" a b c d"] * 3, "length"))})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=3, output_tokens=12))
    assert result.succeeded == 3 and result.metrics["error_rate"] == 0.0
    for record in result.records:
        assert record.output_tokens == 12 and record.output_token_source == "max_tokens"
        assert len(record.chunk_ms) == 3 and record.chunk_token_source == "spread"
    # The per-chunk split is an assumption and the result says so.
    assert result.itl_assumed == 3 and result.to_dict()["itl_assumed"] == 3
    assert result.metrics["output_tok_s"] == pytest.approx(36 / result.duration_s)


@pytest.mark.timeout(30)
def test_fewer_chunks_than_forced_with_another_reason_is_cut_short_as_a_lower_bound(canned_server) -> None:
    server = canned_server({"POST /v1/completions": _stream(_text_chunks([" a b c d"] * 3, "stop"))})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=12))
    assert result.failure_reasons() == {"stream ended after at least 3 of 12 forced tokens (finish_reason stop)": 2}
    assert result.cut_short == 2


@pytest.mark.timeout(30)
def test_an_output_longer_than_max_tokens_is_flagged_not_failed(canned_server) -> None:
    server = canned_server({"POST /v1/completions": _stream(_text_chunks([" w"] * 24, "length", usage=24))})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=12))
    assert result.succeeded == 2
    assert all(r.over_length and r.output_tokens == 24 for r in result.records)
    assert result.over_length == 2 and result.to_dict()["over_length"] == 2
    # A count within the limit is not flagged.
    fits = canned_server({"POST /v1/completions": _stream(_text_chunks([" w"] * 12, "length", usage=12))})
    clean = run_workload(WorkloadSpec(url=fits.url, model="m", requests=2, output_tokens=12))
    assert clean.succeeded == 2 and clean.over_length == 0


@pytest.mark.timeout(30)
def test_a_chat_stream_of_tool_calls_only_has_a_ttft_and_is_complete(canned_server) -> None:
    call = {"index": 0, "id": "c1", "type": "function", "function": {"name": "lookup", "arguments": ""}}
    events: list[dict[str, object]] = [
        {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]},
        {"choices": [{"delta": {"tool_calls": [call]}, "finish_reason": None}]},
    ]
    for piece in ('{"city"', ': "Paris"', "}"):
        events.append({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                                    "finish_reason": None}]})
    events.append({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    events.append({"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 4}})
    server = canned_server({"POST /v1/chat/completions": _stream(events)})
    result = run_workload(WorkloadSpec(url=server.url, api="openai-chat", model="m", requests=2, output_tokens=4,
                                       ignore_eos=False))
    assert result.succeeded == 2
    for record in result.records:
        assert len(record.chunk_ms) == 4 and record.ttft_ms is not None
        assert record.output_tokens == 4 and record.finish_reason == "tool_calls"
    assert "ttft_ms_mean" in result.metrics


@pytest.mark.timeout(60)
def test_per_chunk_tokens_come_from_the_tokenizer_when_one_is_given(canned_server, tmp_path) -> None:
    from benchdoc.workloads.tokenizer import load_tokenizer

    path = build_tokenizer(tmp_path / "tok")
    tokenizer = load_tokenizer(path)
    texts = ["the quick brown", " fox jumps", " over the lazy dog"]
    total = tokenizer.count("".join(texts))
    server = canned_server({"POST /v1/completions": _stream(_text_chunks(texts, "length"))})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=2, output_tokens=total,
                                       input_tokens=8, tokenizer=str(path)))
    assert result.succeeded == 2, result.failure_reasons()
    for record in result.records:
        assert record.output_token_source == "tokenizer" and record.output_tokens == total
        assert record.chunk_token_source == "tokenizer"
        assert list(record.chunk_tokens) == tokenizer.count_pieces(texts)
        assert list(record.chunk_tokens) == [tokenizer.count(t) for t in texts]
    assert result.itl_assumed == 0


def test_count_pieces_adds_up_to_the_whole_count(tmp_path) -> None:
    from benchdoc.workloads.tokenizer import load_tokenizer

    tokenizer = load_tokenizer(build_tokenizer(tmp_path / "tok"))
    # A cut in the middle of a word: its tokens go to the piece where each one starts.
    pieces = ["speculative dec", "oding drafts", "", " a few tokens"]
    counts = tokenizer.count_pieces(pieces)
    assert sum(counts) == tokenizer.count("".join(pieces)) and counts[2] == 0
    assert tokenizer.count_pieces([]) == []
