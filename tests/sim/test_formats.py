"""The simulator's wire bytes: a burst of tokens is the same bytes as one event per token."""

from __future__ import annotations

import pytest

from benchdoc.sim import formats
from benchdoc.sim.requests import CHAT, COMPLETIONS


@pytest.mark.parametrize("api", [COMPLETIONS, CHAT])
def test_a_burst_is_one_event_per_token(api: str) -> None:
    who = formats.Identity("cmpl-sim-1", 1, "sim-llm")
    burst = formats.openai_chunks(api, who, 1, 6, "length")
    one_by_one = b"".join(
        formats.sse(formats.openai_chunk(api, who, formats.token_text(i), "length" if i == 5 else None))
        for i in range(1, 6)
    )
    assert burst == one_by_one
    assert burst.count(b"data: ") == 5
