"""Where prose names an experiment: its name, label or an alias, case-insensitive, on word boundaries."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from benchdoc.lint.facts import ExperimentFacts


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    experiment: str  # the experiment named (not necessarily the current one)
    via: str  # "name", "label" or "alias"


class MentionFinder:
    """Finds every experiment named in a text; at one place the longest name wins."""

    def __init__(self, experiments: Iterable[ExperimentFacts]) -> None:
        names: dict[str, tuple[str, str]] = {}  # normalised spelling -> (experiment, via)
        spellings: list[str] = []
        for facts in experiments:
            for spelling, via in ((facts.label, "label"), (facts.name, "name"), *((a, "alias") for a in facts.aliases)):
                key = _normalise(spelling)
                if key and key not in names:
                    names[key] = (facts.name, via)
                    spellings.append(" ".join(spelling.split()))
        self._names = names
        # Longest first, so "EAGLE-3 3-step" wins over "EAGLE-3" where both start.
        ordered = sorted(spellings, key=len, reverse=True)
        self._pattern = (
            re.compile(r"(?<![\w])(?:" + "|".join(_spelling_pattern(n) for n in ordered) + r")(?![\w])", re.IGNORECASE)
            if ordered
            else None
        )

    def find(self, text: str) -> list[Mention]:
        if self._pattern is None:
            return []
        found = []
        for match in self._pattern.finditer(text):
            key = _normalise(match.group())
            experiment, via = self._names.get(key, (None, ""))
            if experiment is None:
                continue
            found.append(Mention(match.start(), match.end(), experiment, via))
        return found


def _spelling_pattern(name: str) -> str:
    """A name as a pattern: any run of spaces matches any other; a hyphen may be a space."""
    parts = []
    for ch in name:
        if ch == " ":
            parts.append(r"[\s-]+")
        elif ch == "-":
            parts.append(r"[\s-]")
        else:
            parts.append(re.escape(ch))
    return "".join(parts)


def _normalise(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())
