"""Synthetic prompts: the asked-for number of words, the same for the same seed."""

from __future__ import annotations

import random

import pytest

from benchdoc.workloads.prompts import pick_length, synthetic_prompt


def test_prompt_has_the_requested_words_and_is_seeded() -> None:
    prompt = synthetic_prompt(300, seed=5)
    assert len(prompt.split()) == 300
    assert synthetic_prompt(300, seed=5) == prompt
    assert synthetic_prompt(300, seed=6) != prompt
    with pytest.raises(ValueError):
        synthetic_prompt(0, seed=1)


def test_lengths_are_fixed_unless_a_range_is_asked_for() -> None:
    rng = random.Random(0)
    assert {pick_length(128, None, rng) for _ in range(20)} == {128}
    drawn = [pick_length(10, 20, rng) for _ in range(500)]
    assert min(drawn) == 10 and max(drawn) == 20
    with pytest.raises(ValueError):
        pick_length(20, 10, rng)
