"""One request of a run: what it sends, the phase it belongs to, its deadlines, and how a
reader reports a failed exchange.

These are shared by the run's engine (which plans, times and judges requests) and the
HTTP readers (which carry one request over the wire and stamp what comes back).
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass
from typing import Any

from benchdoc.workloads.extras import merge_body, parse_extra_body
from benchdoc.workloads.prompt_source import PromptSource
from benchdoc.workloads.protocols import GenerationRequest, request_body
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.spec import WorkloadSpec

# Warm-up requests are numbered from here so their prompts differ from measured ones.
WARMUP_INDEX_BASE = 1_000_000_000
# After the terminating event, how long the server may take to end the response before
# the connection is dropped (the request itself is complete by then).
CLOSE_GRACE_S = 1.0
# The reasons of a connection closed under a response, the same whichever reader saw it.
CLOSED_EARLY = "the server closed the connection before the response was complete"
CUT_MID_BODY = "response cut off mid-stream: the server closed the connection before the end of the body"


class Watch:
    """The deadline of one in-flight request, checked by the watchdog."""

    __slots__ = ("task", "deadline", "reason", "hard_deadline", "hard_reason", "expired", "finished_stream")

    def __init__(self, task: asyncio.Task[Any], deadline: float, reason: str, hard_deadline: float,
                 hard_reason: str) -> None:
        self.task = task
        self.deadline = deadline  # the first-token or idle bound in force, never past hard_deadline
        self.reason = reason
        self.hard_deadline = hard_deadline  # the whole request's bound
        self.hard_reason = hard_reason
        self.expired = False
        self.finished_stream = False


@dataclass
class Phase:
    """Warm-up or measured: when it started and when its last request ended."""

    name: str
    start: float
    last_end: float


@dataclass(frozen=True)
class Planned:
    """A request ready to go: its record (filled in as it runs) and its JSON body; ``reply``,
    when given, receives the output text of a complete request (a multi-turn conversation
    sends it back as the assistant's turn)."""

    record: RequestRecord
    body: bytes
    reply: list[str] | None = None


class ReadFailure(Exception):
    """An exchange that failed on the wire, in words that do not depend on the reader.

    ``kind``: ``connect`` (no connection: counts towards stopping the run), ``cut`` (the
    response ended early: not a failure once the terminating event was read) or
    ``network`` (anything else). ``cut_short`` marks a stream that had started.
    """

    def __init__(self, reason: str, kind: str = "network", cut_short: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.cut_short = cut_short


@dataclass(frozen=True)
class Built:
    """A request's body, built (its prompt made and counted) before it is due."""

    body: bytes
    input_tokens: int
    output_tokens: int


def build_request(spec: WorkloadSpec, prompts: PromptSource, model: str | None, number: int) -> Built:
    """The JSON body of the request numbered ``number`` (warm-up ones from WARMUP_INDEX_BASE)."""
    prompt = prompts.plan(number)
    generation = GenerationRequest(
        prompt=prompt.text,
        system=prompt.system,
        output_tokens=prompt.output_tokens,
        model=model,
        temperature=spec.temperature,
        ignore_eos=spec.ignore_eos,
        continuous_usage=spec.continuous_usage,
    )
    body = request_body(spec.api, generation)
    if spec.extra_body:
        body = merge_body(body, _extra_body(spec.extra_body))
    return Built(json.dumps(body).encode(), prompt.input_tokens, prompt.output_tokens)


@functools.lru_cache(maxsize=4)
def _extra_body(text: str) -> dict[str, Any]:
    """The --extra-body object, parsed once (the spec was checked: it is an object)."""
    return parse_extra_body(text)


def plan_request(spec: WorkloadSpec, prompts: PromptSource, model: str | None, index: int, due_s: float,
                 warmup: bool = False, built: Built | None = None) -> Planned:
    """The body and empty record of request ``index``, due ``due_s`` into its phase (its
    body ``built`` beforehand, or built now)."""
    if built is None:
        built = build_request(spec, prompts, model, index + (WARMUP_INDEX_BASE if warmup else 0))
    record = RequestRecord(
        index=index, due_s=due_s, requested_input_tokens=built.input_tokens,
        requested_output_tokens=built.output_tokens,
    )
    return Planned(record, built.body)


def turn_request(spec: WorkloadSpec, prompts: PromptSource, model: str | None, index: int, due_s: float,
                 user: str, output_tokens: int, history: tuple[tuple[str, str], ...]) -> Planned:
    """One turn of a conversation: ``user``'s message after ``history``, its reply wanted."""
    generation = GenerationRequest(prompt=user, output_tokens=output_tokens, model=model, temperature=spec.temperature,
                                   ignore_eos=spec.ignore_eos, continuous_usage=spec.continuous_usage, history=history)
    body = request_body(spec.api, generation)
    if spec.extra_body:
        body = merge_body(body, _extra_body(spec.extra_body))
    sent = prompts.count_text(" ".join([*(t for turn in history for t in turn), user]))
    record = RequestRecord(index=index, due_s=due_s, requested_input_tokens=sent, requested_output_tokens=output_tokens)
    return Planned(record, json.dumps(body).encode(), reply=[])


def http_error(status: int, reason: str | None, raw: bytes) -> str:
    """One line for a non-200 answer: the status and the server's own message."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error", payload.get("message", payload.get("detail")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error:
            text = str(error)
    text = " ".join(text.split())
    if len(text) > 200:
        text = text[:200] + "..."
    head = f"HTTP {status}" + (f" {reason}" if reason else "")
    from benchdoc.untrusted import safe_line  # the body is the server's text: no escapes, no secrets

    return safe_line(f"{head}: {text}") if text else safe_line(head)


def json_body_error(raw: bytes) -> str:
    """The reason for a whole JSON answer where an event stream was asked for."""
    from benchdoc.untrusted import safe_line

    excerpt = safe_line(" ".join(raw.decode("utf-8", errors="replace").split())[:200])
    return f"expected an event stream, got a JSON body (streaming not supported?): {excerpt}"


def describe(err: BaseException) -> str:
    text = str(err).strip()
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
