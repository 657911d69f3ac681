"""benchdoc.lint.mentions: experiment names in prose."""

from __future__ import annotations

from benchdoc.lint.facts import ExperimentFacts
from benchdoc.lint.mentions import MentionFinder


def experiment(name: str, label: str, *aliases: str) -> ExperimentFacts:
    return ExperimentFacts(name, label, aliases, "Works", None, False, None, None, None)


FINDER = MentionFinder([
    experiment("eagle3", "EAGLE-3 2-step", "EAGLE-3"),
    experiment("eagle3-3step", "EAGLE-3 3-step"),
    experiment("fusion", "CUDA 13.0 + all-reduce fusion", "all-reduce fusion"),
    experiment("ring", "NCCL Ring (default)", "Ring"),
])


def named(text: str) -> list[tuple[str, str, str]]:
    return [(text[m.start : m.end], m.experiment, m.via) for m in FINDER.find(text)]


def test_longest_name_wins_and_case_is_ignored() -> None:
    assert named("EAGLE-3 3-step beats eagle-3, and EAGLE-3 2-step too") == [
        ("EAGLE-3 3-step", "eagle3-3step", "label"), ("eagle-3", "eagle3", "alias"), ("EAGLE-3 2-step", "eagle3", "label"),
    ]


def test_word_boundaries_hyphens_and_possessives() -> None:
    assert named("eagle3's result; All reduce fusion; NCCL Ring (default) and the Ring's bandwidth") == [
        ("eagle3", "eagle3", "name"), ("All reduce fusion", "fusion", "alias"),
        ("NCCL Ring (default)", "ring", "label"), ("Ring", "ring", "name"),  # the name, any case
    ]
    assert named("eagle3x, ringing, Rings, subring") == []
