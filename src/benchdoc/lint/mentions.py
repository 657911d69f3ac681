"""Where prose names an experiment: its name, label or an alias, case-insensitive, on word boundaries."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benchdoc.lint.facts import ExperimentFacts

# Words, and every punctuation mark on its own; spaces and hyphens only separate, so
# "EAGLE-3", "EAGLE 3" and "eagle-3" read alike, while "EAGLE3" and "EAGLE-3x" do not.
_TOKEN = re.compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_-]")
_END = ""  # the trie key under which a complete name stores (experiment, via)


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    experiment: str  # the experiment named (not necessarily the current one)
    via: str  # "name", "label" or "alias"


class MentionFinder:
    """Finds every experiment named in a text; at one place the longest name wins.

    Names are kept in a trie of their words, so a text is read once, word by word,
    however many experiments the project has.
    """

    def __init__(self, experiments: Iterable[ExperimentFacts], metric_labels: Iterable[str] = ()) -> None:
        self._trie: dict[str, Any] = {}
        for facts in experiments:
            for spelling, via in ((facts.label, "label"), (facts.name, "name"), *((a, "alias") for a in facts.aliases)):
                words = [token.lower() for token in _TOKEN.findall(spelling)]
                if not words:
                    continue
                node = self._trie
                for word in words:
                    node = node.setdefault(word, {})
                node.setdefault(_END, (facts.name, via))  # the first to claim a spelling keeps it
        # A metric's name is read whole before an experiment's name that is one of its words: in "Radix cache hit
        # rate is 2.1%" no experiment aliased "radix" is named.
        self._metrics: dict[str, Any] = {}
        for label in metric_labels:
            words = [token.lower() for token in _TOKEN.findall(label)]
            node = self._metrics
            for word in words:
                node = node.setdefault(word, {})
            if words:
                node[_END] = True

    def _metric_at(self, tokens: list[tuple[str, int, int]], i: int) -> int:
        """Where a metric's name that starts at token ``i`` ends (a token index), or ``i`` when none does."""
        node, j, stop = self._metrics, i, i
        while j < len(tokens) and tokens[j][0] in node:
            node = node[tokens[j][0]]
            j += 1
            if _END in node:
                stop = j
        return stop

    def find(self, text: str) -> list[Mention]:
        tokens = [(m.group().lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
        found: list[Mention] = []
        i = 0
        while i < len(tokens):
            node = self._trie
            best: tuple[int, tuple[str, str]] | None = None
            j = i
            while j < len(tokens) and tokens[j][0] in node:
                node = node[tokens[j][0]]
                j += 1
                if _END in node:
                    best = (j, node[_END])
            metric_end = self._metric_at(tokens, i) if self._metrics else i
            if best is None or metric_end > best[0]:
                i = max(i + 1, metric_end)
                continue
            stop, (experiment, via) = best
            found.append(Mention(tokens[i][1], tokens[stop - 1][2], experiment, via))
            i = stop
        return found
