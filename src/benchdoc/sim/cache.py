"""The simulator's prefix cache and KV-cache occupancy, for its server metrics.

Neither changes a latency: they exist so a client scraping ``/metrics`` sees the gauges
and counters vLLM and SGLang export move with the load. A prompt is cut into blocks of
``BLOCK_WORDS`` words (the simulator counts a word as a token); a block is a hit when the
same leading blocks were seen before, as a radix or block-hash prefix cache finds them.
The KV cache holds, for each running request, its prompt and its ``max_tokens``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

BLOCK_WORDS = 16
KV_CACHE_TOKENS = 65_536  # the simulated KV cache's size, for its usage gauge
_MAX_BLOCKS = 100_000  # blocks remembered, least recently used evicted first


class PrefixCache:
    """Leading prompt blocks seen so far, by the hash of everything up to each block's end."""

    def __init__(self) -> None:
        self._blocks: OrderedDict[int, None] = OrderedDict()
        self.last_hit_rate = 0.0  # of the last prompt looked up (SGLang's gauge is per batch)

    def lookup(self, words: list[str]) -> int:
        """Tokens of ``words`` found cached (whole leading blocks); the prompt is cached after."""
        hit = 0
        missed = False
        key = 0
        for start in range(0, len(words) - len(words) % BLOCK_WORDS, BLOCK_WORDS):
            key = hash((key, tuple(words[start : start + BLOCK_WORDS])))
            if not missed and key in self._blocks:
                hit += BLOCK_WORDS
                self._blocks.move_to_end(key)
                continue
            missed = True
            self._blocks[key] = None
            if len(self._blocks) > _MAX_BLOCKS:
                self._blocks.popitem(last=False)
        self.last_hit_rate = hit / len(words) if words else 0.0
        return hit


def prompt_words(api: str, body: Any) -> list[str]:
    """The words of a request's prompt (every message's text, in order, on the chat API)."""
    if not isinstance(body, dict):
        return []
    if api == "chat":
        words: list[str] = []
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                words += content.split()
        return words
    text = body.get("text") if api == "generate" else body.get("prompt")
    if isinstance(text, list) and len(text) == 1:
        text = text[0]
    return text.split() if isinstance(text, str) else []
