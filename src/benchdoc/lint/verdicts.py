"""Verdict words in a sentence: "fails", "works", "net-negative", "no significant difference"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchdoc.lint.words import NEGATION, VERDICT_PHRASES

# One pattern, alternatives in the order of VERDICT_PHRASES: where two could match, the earlier wins.
# The word-boundary test comes first, once: most positions are inside a word and fail it at once.
_PATTERN = re.compile(
    r"(?<![\w-])(?:" + "|".join(f"(?P<v{i}>{phrase})" for i, (_, phrase) in enumerate(VERDICT_PHRASES)) + r")(?![\w-])",
    re.IGNORECASE,
)
_MEANINGS = {f"v{i}": meaning for i, (meaning, _) in enumerate(VERDICT_PHRASES)}


@dataclass(frozen=True)
class VerdictWord:
    start: int
    end: int
    meaning: str  # FAILS, WORKS, WINS, LOSES or SAME (see benchdoc.lint.words)
    negated: bool


# Every verdict phrase contains one of these words; a sentence with none of them is skipped fast.
_TRIGGERS = frozenset(
    ["fail", "fails", "failed", "failing", "crash", "crashes", "crashed", "crashing", "broken", "oom", "ooms", "oomed", "memory", "hangs", "deadlock", "deadlocks", "work", "works", "working", "run", "start", "launch", "load", "boot", "fit", "negative", "loss", "regression", "regresses", "regressed", "hurts", "loses", "lags", "trails", "worth", "gain", "improvement", "speedup", "speed", "benefit", "win", "wins", "winner", "difference", "noise", "par", "same", "indistinguishable", "wash", "equivalent", "slower", "worse", "positive", "faster", "better", "fastest", "best", "outperforms", "beats", "improves", "ahead"]
)
_WORD = re.compile(r"[a-z]+")


def find_verdicts(text: str) -> list[VerdictWord]:
    """Verdict phrases in a sentence, left to right."""
    found: list[VerdictWord] = []
    if _TRIGGERS.isdisjoint(_WORD.findall(text.lower())):
        return found
    for match in _PATTERN.finditer(text):
        start, end = match.span()
        negated = bool(NEGATION.search(text[max(0, start - 40) : start]))
        found.append(VerdictWord(start, end, _MEANINGS[match.lastgroup or ""], negated))
    return found
