"""Verdict words in a sentence: "fails", "works", "net-negative", "no significant difference"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchdoc.lint.words import NEGATION, VERDICT_PHRASES

_PATTERNS = tuple(
    (meaning, re.compile(r"(?<![\w-])(?:" + phrase + r")(?![\w-])", re.IGNORECASE)) for meaning, phrase in VERDICT_PHRASES
)


@dataclass(frozen=True)
class VerdictWord:
    start: int
    end: int
    meaning: str  # FAILS, WORKS, WINS, LOSES or SAME (see benchdoc.lint.words)
    negated: bool


def find_verdicts(text: str) -> list[VerdictWord]:
    """Verdict phrases in a sentence; where phrases overlap, the one listed first wins."""
    found: list[VerdictWord] = []
    for meaning, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < v.end and end > v.start for v in found):
                continue
            negated = bool(NEGATION.search(text[max(0, start - 40) : start]))
            found.append(VerdictWord(start, end, meaning, negated))
    found.sort(key=lambda v: v.start)
    return found
