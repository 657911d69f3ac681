"""Multi-turn conversations: each turn is sent with the conversation so far, the server's
own answers as the assistant's turns."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from benchdoc.errors import UsageError
from benchdoc.workloads import WorkloadSpec, run_workload


def _conversation(n: int, turns: int) -> dict[str, object]:
    rounds = []
    for t in range(turns):
        rounds += [{"from": "human", "value": f"question {n}.{t} about batching"},
                   {"from": "gpt", "value": "a reference answer of seven words here"}]
    return {"conversations": rounds}


@pytest.mark.timeout(60)
def test_each_turn_carries_the_conversation_and_the_servers_answers(canned_server, tmp_path) -> None:
    bodies: list[dict[str, object]] = []

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        bodies.append(body)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        wanted = body["max_tokens"]
        for k in range(wanted):
            event = {"choices": [{"delta": {"content": f" r{len(bodies)}.{k}"},
                                  "finish_reason": "length" if k == wanted - 1 else None}]}
            await response.write(b"data: " + json.dumps(event).encode() + b"\n\n")
        await response.write(b"data: [DONE]\n\n")
        return response

    server = canned_server({"POST /v1/chat/completions": chat})
    dataset = tmp_path / "conv.json"
    dataset.write_text(json.dumps([_conversation(0, 3), _conversation(1, 2)]), encoding="utf-8")
    result = run_workload(WorkloadSpec(url=server.url, api="openai-chat", model="m", concurrency=1, requests=5,
                                       dataset=str(dataset), multi_turn=True, metrics_url=""))
    assert result.succeeded == 5 and len(bodies) == 5
    lengths = [len(b["messages"]) for b in bodies]  # type: ignore[arg-type]
    assert lengths == [1, 3, 5, 1, 3]  # two conversations, in turn order (the dataset's shuffle aside)
    second = bodies[1]["messages"]  # type: ignore[index]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    # The assistant's turn is what the server answered to the first turn, word for word.
    assert second[1]["content"] == "".join(f" r1.{k}" for k in range(7))
    inputs = [r.requested_input_tokens for r in result.records]
    assert inputs[1] > inputs[0] and inputs[2] > inputs[1]
    assert all(r.requested_output_tokens == 7 for r in result.records)  # the reference answers' length


def test_multi_turn_needs_chat_a_dataset_and_a_closed_loop(tmp_path) -> None:
    with pytest.raises(UsageError, match="multi_turn needs the openai-chat API"):
        WorkloadSpec(url="http://127.0.0.1:9", multi_turn=True, dataset=str(tmp_path / "d.json")).resolved()
    with pytest.raises(UsageError, match="multi_turn needs"):
        WorkloadSpec(url="http://127.0.0.1:9", api="openai-chat", multi_turn=True, rate=2.0,
                     dataset=str(tmp_path / "d.json")).resolved()
