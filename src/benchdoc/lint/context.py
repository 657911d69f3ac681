"""What one sentence or table row is about, and how a finding is placed in it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from benchdoc.lint.findings import Finding
from benchdoc.lint.mentions import Mention
from benchdoc.lint.text import Unit
from benchdoc.lint.words import CLAUSE_BREAK


@dataclass(frozen=True)
class Context:
    """What one sentence or table row is about."""

    unit: Unit
    path: str
    mentions: tuple[Mention, ...]
    row_experiment: str | None  # the experiment a table row is about, when the text names none
    historical_hint: bool  # known to speak of the past (a table row whose notes say so)
    table_row: bool = False
    pinned: frozenset[str] = frozenset()  # superseded experiments named by their own label: their own figures apply
    past_test: Callable[[], bool] | None = None  # decides, when first needed, whether the text speaks of the past
    previous: str | None = None  # the experiment the sentence before it (same paragraph) or its heading names first
    section_target: str | None = None  # the second experiment of a heading "A vs B"
    section_subject: str | None = None  # the first experiment of a heading "A vs B"

    @cached_property
    def historical(self) -> bool:
        """The text speaks of the past: older results are fair to quote."""
        return self.historical_hint or (self.past_test is not None and self.past_test())

    @cached_property
    def plain(self) -> str:
        """The text with experiment names blanked, to look for metric names ("all-reduce" in a label is not a metric)."""
        text = self.unit.text
        for mention in self.mentions:
            text = text[: mention.start] + " " * (mention.end - mention.start) + text[mention.end :]
        return text

    @cached_property
    def breaks(self) -> tuple[tuple[int, int], ...]:
        return tuple(m.span() for m in CLAUSE_BREAK.finditer(self.unit.text))

    def clause(self, position: int) -> tuple[int, int]:
        """The clause of the text around a position (between commas-with-conjunction, ;:() and dashes)."""
        start, end = 0, len(self.unit.text)
        for lo, hi in self.breaks:
            if hi <= position:
                start = hi
            elif lo >= position:
                end = lo
                break
        return start, end

    def experiments(self) -> list[str]:
        """The experiments named, the row's first when the text names it only by its row."""
        names = [m.experiment for m in self.mentions]
        if self.row_experiment is not None and self.row_experiment not in names:
            names.insert(0, self.row_experiment)
        return names

    def nearest(self, position: int) -> str:
        """The experiment a number at a position belongs to by place: the last named before it."""
        before = [m for m in self.mentions if m.end <= position]
        if before:
            return before[-1].experiment
        if self.row_experiment is not None:
            return self.row_experiment
        after = [m for m in self.mentions if m.start >= position]
        return after[0].experiment if after else self.mentions[0].experiment

    def finding(
        self, start: int, end: int, kind: str, message: str, ledger: str, fix: str,
        experiment: str, quoted: str | None = None,
    ) -> Finding:
        line, column = self.unit.position(start)
        return Finding(
            file=self.path,
            line=line,
            column=column,
            kind=kind,
            section=self.unit.section_name,
            text=quoted if quoted is not None else self.unit.text[start:end].strip(),
            message=message,
            ledger=ledger,
            fix=fix,
            experiment=experiment,
            sentence=" ".join(self.unit.text.split()),
        )
