"""Failure reasons grouped by cause: numbers that differ become the range they took."""

from __future__ import annotations

from benchdoc.reasons import group_reasons


def test_reasons_differing_only_in_numbers_are_one_cause() -> None:
    counts = {
        "stream ended after 3 of 64 tokens without finish_reason": 2,
        "stream ended after 61 of 64 tokens without finish_reason": 1,
        "HTTP 500: internal error": 4,
        "stream ended after 17 of 64 tokens without finish_reason": 3,
    }
    assert group_reasons(counts) == {
        "stream ended after 3–61 of 64 tokens without finish_reason": 6,
        "HTTP 500: internal error": 4,
    }


def test_grouped_reasons_group_again() -> None:
    first = group_reasons({"timed out after 1.5 s": 1, "timed out after 2.5 s": 1})
    second = group_reasons({"timed out after 0.5 s": 2})
    assert first == {"timed out after 1.5–2.5 s": 2}
    assert group_reasons({**first, **second}) == {"timed out after 0.5–2.5 s": 4}
    assert group_reasons({"no numbers": 1, "other": 3}) == {"other": 3, "no numbers": 1}
