"""Synthetic prompts of a requested length, and the lengths themselves.

Without the server's tokenizer the client cannot build a prompt of exactly N tokens. It
builds N words drawn from very common English words, each a single token in the usual
BPE vocabularies, so the count is close; the server's own prompt count (when it reports
one) is what the run records, with where it came from.
"""

from __future__ import annotations

import random

# Short, frequent words: one token each (with their leading space) in common vocabularies.
_WORDS = ["the", "of", "and", "to", "in", "is", "was", "for", "on", "that", "with", "as", "by", "at", "from", "his", "her", "it", "an", "be", "are", "this", "which", "or", "had", "not", "but", "were", "have", "all", "their", "one", "has", "been", "there", "who", "they", "more", "new", "time", "also", "would", "some", "can", "after", "first", "other", "two", "into", "most", "only", "over", "when", "year", "made", "world", "may", "city", "where", "under", "used", "three", "well", "many", "such", "later", "about", "these", "then", "long", "part", "high", "both", "group", "state", "known", "during", "through", "may", "since", "early", "each"]


def synthetic_prompt(words: int, seed: int) -> str:
    """A prompt of ``words`` words, the same for the same seed."""
    if words < 1:
        raise ValueError(f"a prompt needs at least one word (got {words})")
    rng = random.Random(seed)
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def pick_length(low: int, high: int | None, rng: random.Random) -> int:
    """``low`` when no range was asked for, else uniform over ``low..high`` inclusive."""
    if high is None or high == low:
        return low
    if high < low:
        raise ValueError(f"length range {low}..{high} is empty")
    return rng.randint(low, high)
