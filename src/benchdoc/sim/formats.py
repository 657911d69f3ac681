"""The bytes on the wire: OpenAI SSE chunks and bodies, SGLang `/generate` lines.

Every builder returns a plain dict; `sse` frames one as a ``data:`` line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from benchdoc.sim.requests import CHAT, COMPLETIONS

# The simulated model's vocabulary: every output token is one of these words with a
# leading space, so any client that counts words counts tokens.
_WORDS = (
    "the", "model", "is", "a", "simulator", "and", "not", "real", "hardware", "its",
    "tokens", "arrive", "on", "time", "every", "step",
)

DONE = b"data: [DONE]\n\n"
# The key of the simulator's own stamps of a request (arrival, first token written), in the
# final usage chunk of an OpenAI stream and in meta_info of /generate's last event.
STAMPS_KEY = "benchdoc_sim_stamps"


def token_text(position: int) -> str:
    return " " + _WORDS[position % len(_WORDS)]


def tokens_text(start: int, count: int) -> str:
    return "".join(token_text(position) for position in range(start, start + count))


def sse(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


@dataclass(frozen=True)
class Identity:
    """What every chunk of one response repeats."""

    request_id: str
    created: int
    model: str


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def openai_role_chunk(who: Identity) -> dict[str, Any]:
    """The chat stream's opening chunk: the role, with empty content."""
    return {
        "id": who.request_id,
        "object": "chat.completion.chunk",
        "created": who.created,
        "model": who.model,
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None, "finish_reason": None}
        ],
    }


def openai_chunk(api: str, who: Identity, text: str, finish_reason: str | None) -> dict[str, Any]:
    if api == CHAT:
        choice: dict[str, Any] = {"index": 0, "delta": {"content": text}}
        kind = "chat.completion.chunk"
    else:
        choice = {"index": 0, "text": text}
        kind = "text_completion"
    choice["logprobs"] = None
    choice["finish_reason"] = finish_reason
    return {"id": who.request_id, "object": kind, "created": who.created, "model": who.model, "choices": [choice]}


def openai_chunks(api: str, who: Identity, start: int, total: int, finish_reason: str) -> bytes:
    """The SSE events of tokens ``start`` .. ``total - 1``, one per token, the last with
    ``finish_reason``: the same bytes as one ``sse(openai_chunk(...))`` per token, built
    from one template."""
    marker = "\u0000"
    head, tail = sse(openai_chunk(api, who, marker, None)).split(json.dumps(marker).encode())
    events = [head + json.dumps(token_text(position)).encode() + tail for position in range(start, total - 1)]
    events.append(sse(openai_chunk(api, who, token_text(total - 1), finish_reason)))
    return b"".join(events)


def openai_usage_chunk(api: str, who: Identity, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": who.request_id,
        "object": "chat.completion.chunk" if api == CHAT else "text_completion",
        "created": who.created,
        "model": who.model,
        "choices": [],
        "usage": usage(prompt_tokens, completion_tokens),
    }


def openai_body(
    api: str, who: Identity, text: str, finish_reason: str, prompt_tokens: int, completion_tokens: int
) -> dict[str, Any]:
    if api == CHAT:
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}}
        kind = "chat.completion"
    else:
        choice = {"index": 0, "text": text}
        kind = "text_completion"
    choice["logprobs"] = None
    choice["finish_reason"] = finish_reason
    return {
        "id": who.request_id,
        "object": kind,
        "created": who.created,
        "model": who.model,
        "choices": [choice],
        "usage": usage(prompt_tokens, completion_tokens),
    }


@dataclass(frozen=True)
class GenerateState:
    """Cumulative counts a `/generate` line reports in its ``meta_info``."""

    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None  # "length" or "stop" once finished
    speculative: bool
    verify_steps: int
    accepted_drafts: int
    proposed_drafts: int


def generate_payload(who: Identity, text: str, state: GenerateState) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "id": who.request_id,
        "finish_reason": _sglang_finish(state),
        "prompt_tokens": state.prompt_tokens,
        "completion_tokens": state.completion_tokens,
        "cached_tokens": 0,
    }
    if state.speculative:
        meta["spec_verify_ct"] = state.verify_steps
        if state.verify_steps > 0:
            meta["spec_accept_length"] = state.completion_tokens / state.verify_steps
            meta["spec_num_correct_drafts"] = state.accepted_drafts
            meta["spec_num_proposed_drafts"] = state.proposed_drafts
            if state.proposed_drafts:
                meta["spec_accept_rate"] = state.accepted_drafts / state.proposed_drafts
    return {"text": text, "meta_info": meta}


def _sglang_finish(state: GenerateState) -> dict[str, Any] | None:
    if state.finish_reason is None:
        return None
    if state.finish_reason == "length":
        return {"type": "length", "length": state.completion_tokens}
    return {"type": "stop", "matched": 2}


def error_body(message: str, status: int, kind: str) -> dict[str, Any]:
    """An OpenAI-style error object, as vLLM and SGLang answer."""
    return {"object": "error", "message": message, "type": kind, "param": None, "code": status}


__all__ = [
    "CHAT",
    "COMPLETIONS",
    "DONE",
    "GenerateState",
    "Identity",
    "error_body",
    "generate_payload",
    "openai_body",
    "openai_chunk",
    "openai_role_chunk",
    "openai_usage_chunk",
    "sse",
    "token_text",
    "tokens_text",
]
