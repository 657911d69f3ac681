"""Failure reasons grouped by cause: reasons that differ only in their numbers are one cause.

An open-loop run whose streams are cut says "stream ended after 3 of 64 tokens",
"... after 17 of 64 tokens" and so on: one cause, not eighteen. :func:`group_reasons` puts
such reasons together, keeps each number that all of them share and writes the others
as the range they took ("stream ended after 3–61 of 64 tokens"), adding up their counts.
A range is read back as a number, so grouped counts can be grouped again (the
repetitions of one run, the runs of a sweep).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

RANGE_DASH = "–"
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:" + RANGE_DASH + r"\d+(?:\.\d+)?)?")


def _split(reason: str) -> tuple[tuple[str, ...], list[tuple[float, float, str, str]]]:
    """The reason's words around its numbers, and each number as (low, high, low text, high text)."""
    words = tuple(_NUMBER.split(reason))
    numbers = []
    for found in _NUMBER.findall(reason):
        low, _, high = found.partition(RANGE_DASH)
        high = high or low
        numbers.append((float(low), float(high), low, high))
    return words, numbers


def _join(words: tuple[str, ...], spans: list[tuple[float, float, str, str]]) -> str:
    parts = [words[0]]
    for (low, high, low_text, high_text), word in zip(spans, words[1:]):
        parts.append(low_text if low == high else f"{low_text}{RANGE_DASH}{high_text}")
        parts.append(word)
    return "".join(parts)


def group_reasons(counts: Mapping[str, int]) -> dict[str, int]:
    """Reasons that differ only in their numbers merged into one, with their counts added
    up; the most frequent cause first (ties in the order first seen)."""
    groups: dict[tuple[str, ...], tuple[list[tuple[float, float, str, str]], int]] = {}
    for reason, count in counts.items():
        words, numbers = _split(reason)
        if words not in groups:
            groups[words] = (numbers, count)
            continue
        spans, total = groups[words]
        merged = []
        for (low, high, low_text, high_text), (new_low, new_high, new_low_text, new_high_text) in zip(spans, numbers):
            lower = (low, low_text) if low <= new_low else (new_low, new_low_text)
            upper = (high, high_text) if high >= new_high else (new_high, new_high_text)
            merged.append((lower[0], upper[0], lower[1], upper[1]))
        groups[words] = (merged, total + count)
    grouped = [(_join(words, spans), total) for words, (spans, total) in groups.items()]
    ordered = sorted(range(len(grouped)), key=lambda i: -grouped[i][1])
    return {grouped[i][0]: grouped[i][1] for i in ordered}
