"""benchdoc.lint.verdicts: verdict phrases, what they assert, and negation."""

from __future__ import annotations

from benchdoc.lint.verdicts import find_verdicts
from benchdoc.lint.words import FAILS, LOSES, SAME, WINS, WORKS


def said(text: str) -> list[tuple[str, str, bool]]:
    return [(text[v.start : v.end], v.meaning, v.negated) for v in find_verdicts(text)]


def test_phrases_and_meanings() -> None:
    assert said("NCCL Tree fails to start: out of memory") == [("fails to start", FAILS, False), ("out of memory", FAILS, False)]
    assert said("EAGLE-3 is net-negative") == [("net-negative", LOSES, False)]
    assert said("It makes no measurable difference") == [("no measurable difference", SAME, False)]
    assert said("Medusa works well, and is the fastest") == [("works", WORKS, False), ("fastest", WINS, False)]
    assert said("it fails to beat the baseline") == [("fails to beat", LOSES, False)]
    assert said("AR fusion is still failing") == [("still failing", FAILS, False)]


def test_failing_a_bar_is_not_a_failed_run() -> None:
    assert said("AWQ failed the accuracy bar") == []


def test_negation() -> None:
    assert said("EAGLE-3 is no longer slower") == [("slower", LOSES, True)]
    assert said("it is not broken") == [("broken", FAILS, True)]
    assert said("EAGLE-3 doesn't work") == [("doesn't work", FAILS, False)]
