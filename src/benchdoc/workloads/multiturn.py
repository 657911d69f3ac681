"""Multi-turn conversations: each stream of a closed loop holds one conversation at a time
and sends its turns in order, every turn with the conversation so far, the server's own
answers as the assistant's turns (as vLLM's and SGLang's multi-turn benchmarks do).

Each turn is one measured request. A turn that fails ends its conversation (the next
turn would have no answer to follow); the stream starts the next conversation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from time import perf_counter
from typing import TYPE_CHECKING

from benchdoc.workloads.inflight import Phase, Planned, turn_request
from benchdoc.workloads.records import RequestRecord

if TYPE_CHECKING:
    from benchdoc.workloads.engine import Engine


async def conversations(engine: Engine, phase: Phase, streams: int, count: int | None, duration_s: float | None,
                        done: Callable[[RequestRecord], None]) -> list[RequestRecord]:
    """Run conversations on ``streams`` streams until ``count`` turns were sent (or
    ``duration_s`` passed); the records of every turn, in the order they were sent."""
    results: list[RequestRecord] = []
    numbers = {"conversation": 0, "turn": 0}

    def more() -> bool:
        if engine.abort_reason is not None or (count is not None and numbers["turn"] >= count):
            return False
        return duration_s is None or perf_counter() - phase.start < duration_s

    async def stream() -> None:
        while more():
            turns = engine.prompts.conversation(numbers["conversation"])
            numbers["conversation"] += 1
            history: list[tuple[str, str]] = []
            for user, output_len in turns:
                if not more():
                    return
                index = numbers["turn"]
                numbers["turn"] += 1
                planned: Planned = turn_request(engine.spec, engine.prompts, engine.model, index,
                                                perf_counter() - phase.start, user, output_len, tuple(history))
                results.append(planned.record)
                record = await engine.send(planned, phase)
                done(record)
                if not record.ok or not planned.reply:
                    break  # the conversation cannot go on without this turn's answer
                history.append((user, planned.reply[0]))

    await asyncio.gather(*(stream() for _ in range(streams)))
    results.sort(key=lambda r: r.index)
    return results
