"""The rules: which statements in prose the ledger contradicts.

A statement is read against the experiments its sentence (or table row) names. A name
stands for the experiment's *current* result: the end of its supersedes chain, so
"EAGLE-3" after the stack upgrade means the upgraded run. A statement is accepted when
it matches that current result. It is also accepted when the sentence speaks of the past
(past tense, "before", "from X to Y", a version string of the old setup) and it matches
one of the experiment's older results; and everything in a historical section or under
an ignore directive is skipped.

Precision comes first. This module only walks a document and hands each statement to
its rule: relative claims (:mod:`~benchdoc.lint.stale_claims`), verdict words
(:mod:`~benchdoc.lint.stale_verdicts`), numbers (:mod:`~benchdoc.lint.stale_values`);
table rows go through :mod:`~benchdoc.lint.tables`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from benchdoc.lint.attribution import place
from benchdoc.lint.claim_reading import VS_PREFIX, without_result
from benchdoc.lint.claims import Claim
from benchdoc.lint.context import Context
from benchdoc.lint.facts import LintFacts
from benchdoc.lint.findings import STALE_VERDICT, Finding
from benchdoc.lint.knowledge import Knowledge, inside
from benchdoc.lint.mentions import Mention
from benchdoc.lint.stale_claims import ClaimRule
from benchdoc.lint.stale_values import ValueRule, disowns
from benchdoc.lint.stale_verdicts import VerdictRule
from benchdoc.lint.tables import TableRule
from benchdoc.lint.text import DocumentText, Unit
from benchdoc.lint.verdicts import VerdictWord, find_verdicts
from benchdoc.lint.words import CLAUSE_BREAK, FAILS, LOSES, NOT_OURS, PRONOUN_START, QUESTION, VERSUS, WINS, WORKS

_MAX_BY_GAP = 40
_BY_BEFORE = re.compile(r"\bby\s*(?:~|about\s+|roughly\s+|around\s+)?$", re.IGNORECASE)
_SUPERLATIVE = re.compile(r"fastest|(?:the )?best|(?:the )?(?:clear )?winner", re.IGNORECASE)


class ProseChecker:
    """Checks the prose units of documents against the facts of one project."""

    def __init__(self, facts: LintFacts) -> None:
        self.facts = facts
        self.know = Knowledge(facts)
        self.values = ValueRule(self.know)
        self.claims = ClaimRule(self.know)
        self.verdicts = VerdictRule(self.know)
        self.tables = TableRule(self.know, self.values, self.claims, self.verdicts, self._cell_sentence)

    def check(self, document: DocumentText) -> list[Finding]:
        findings: list[Finding] = []
        rows: dict[int, list[Unit]] = {}
        previous: tuple[int, str | None] = (-1, None)  # (block, first experiment named) of the last sentence
        headings: dict[tuple[str, ...], tuple[str | None, str | None]] = {}
        units = document.units
        for index, unit in enumerate(units):
            if unit.row is not None:
                if not unit.historical:
                    rows.setdefault(unit.row, []).append(unit)
                continue
            named = self.know.mentions.find(unit.text)
            implicit = None
            before = previous[1] if previous[0] == unit.block else None
            if PRONOUN_START.match(unit.text):
                implicit = before
            previous = (unit.block, _subject_named(unit.text, named) or implicit or (before if named else None))
            if unit.historical or _disowned(unit, units[index + 1 : index + 2]):
                continue
            section = headings.get(unit.section)
            if section is None:
                section = headings[unit.section] = self._section_parties(unit.section)
            findings.extend(self.sentence(unit, document.path, row_experiment=implicit, implicit=True, mentions=named,
                                          previous=before or section[0], section_target=section[1],
                                          section_subject=section[0]))
        for cells in rows.values():
            findings.extend(self.tables.row(cells, document.path))
        kept = [f for f in findings if f.line not in document.ignored_lines]
        return sorted(_unique(kept), key=lambda f: (f.line, f.column, f.kind))

    def sentence(
        self, unit: Unit, path: str, row_experiment: str | None = None, row_historical: bool = False,
        implicit: bool = False, row_pinned: frozenset[str] = frozenset(), mentions: Sequence[Mention] | None = None,
        previous: str | None = None, section_target: str | None = None, section_subject: str | None = None,
    ) -> list[Finding]:
        """The findings of one sentence (or table cell read as one)."""
        mentions = tuple(self.know.mentions.find(unit.text) if mentions is None else mentions)
        if not mentions and row_experiment is None and previous is None:
            return []
        if QUESTION.search(unit.text) or NOT_OURS.search(unit.text):
            return []  # a question, or a figure someone else measured: no claim about the ledger
        context = Context(
            unit, path, mentions, row_experiment, row_historical,
            table_row=row_experiment is not None and not implicit,
            past_test=lambda: self.know.is_historical(unit.text, mentions, unit.section, unit.lead),
            pinned=row_pinned | frozenset(m.experiment for m in mentions if self.know.pins(m, unit.text)),
            previous=previous, section_target=section_target, section_subject=section_subject,
        )
        findings: list[Finding] = []
        consumed: list[tuple[int, int]] = [(m.start, m.end) for m in mentions]
        has_digit = any(digit in unit.text for digit in "0123456789")
        claims = self.claims.read(context)  # digits, or a factor in words ("twice as fast")
        for claim in claims:
            consumed.append((claim.start, claim.text_end))
            finding = self.claims.claim(context, claim, claims)
            if finding is not None:
                findings.append(finding)
        verdicts = [v for v in find_verdicts(unit.text) if not v.negated and not inside(v.start, v.end, consumed)
                    and not _sized_by(unit.text, v, claims)]
        meanings = {v.meaning for v in verdicts}
        if FAILS in meanings and WORKS in meanings:
            verdicts = []  # "fails on 16 GB cards, but runs fine here": a nuance, not a verdict
        judged: set[str] = set()
        comparative: set[int] = set()  # ids of verdict findings that say no more than a figure beside them
        for verdict in verdicts:
            finding = self.verdicts.verdict(context, verdict)
            if finding is not None and finding.experiment not in judged:
                judged.add(finding.experiment)  # one sentence, one verdict finding per experiment
                findings.append(finding)
                if not self._stands_alone(unit.text, verdict, finding, mentions):
                    comparative.add(id(finding))
        quantities = self.know.quantities.find(unit.text) if has_digit else []
        comparisons = [self.claims.parties(context, claim) for claim in claims] if quantities else []
        if quantities:  # "2710 tok/s, ahead of the 8k budget": a verdict compares too
            comparisons += [c for c in (self.verdicts.parties(context, v) for v in verdicts) if c is not None]
            comparisons.sort(key=lambda c: c.start)
        for quantity in quantities:
            if inside(quantity.start, quantity.end, consumed):
                continue
            only = not claims and not any(q is not quantity and q.units & quantity.units for q in quantities)
            finding = self.values.value(context, quantity, place(context, quantity, quantities, comparisons), only)
            if finding is not None:
                findings.append(finding)
        return self._one_no_result_statement(findings, comparative)

    def _one_no_result_statement(self, findings: list[Finding], comparative: set[int]) -> list[Finding]:
        """A sentence that quotes a figure of an experiment with no result and calls it "ahead of" another
        makes one statement the ledger cannot back: the figure's finding says it; a comparative verdict adds
        nothing. "It works fine, and gives 190 tok/s" makes two: that it runs, and its figure."""
        figures = {f.experiment for f in findings if f.kind != STALE_VERDICT and f.experiment in self.facts.experiments
                   and without_result(self.facts.experiments[f.experiment])}
        return [f for f in findings if id(f) not in comparative or f.experiment not in figures]

    def _stands_alone(self, text: str, verdict: VerdictWord, finding: Finding, mentions: Sequence[Mention]) -> bool:
        """Whether a verdict is a statement apart from a figure of the same experiment in its sentence: a
        superlative ranks it among all ("11,800 tok/s, our fastest yet"), and a verdict whose experiment is
        named again after it leaves the figure to a statement of its own ("X works fine, and X gives 190
        tok/s"), and that it runs is never the figure's to say ("works and generates 1350 tok/s": two
        statements). "2710 tok/s, ahead of Y": one statement, the figure's."""
        if verdict.meaning in (WORKS, FAILS) or _SUPERLATIVE.fullmatch(text[verdict.start : verdict.end]):
            return True  # that it runs is a statement apart from what it gives ("works and delivers 3,100 tok/s")
        return any(m.start >= verdict.end and finding.experiment in (m.experiment, self.know.standing(m.experiment, None).name)
                   for m in mentions)

    def _section_parties(self, section: tuple[str, ...]) -> tuple[str | None, str | None]:
        """What a section's heading is about: "## 2P1D" (its subject), "## 2P1D vs TP8" (subject and target)."""
        if not section:
            return None, None
        heading = section[-1]
        named = list(dict.fromkeys(m.experiment for m in self.know.mentions.find(heading)))
        if len(named) == 1:
            return named[0], None
        if len(named) == 2 and VERSUS.search(heading):
            return named[0], named[1]
        return None, None

    def _cell_sentence(
        self, cell: Unit, path: str, row_experiment: str | None, historical: bool, pinned: frozenset[str]
    ) -> list[Finding]:
        return self.sentence(cell, path, row_experiment=row_experiment, row_historical=historical, row_pinned=pinned)


def _sized_by(text: str, verdict: VerdictWord, claims: Sequence[Claim]) -> bool:
    """Whether a comparative verdict's size is a claim after "by" in its clause ("improves TTFT p50 by 12%
    over FP8", "is faster by 12%"): one statement, which the claim checks with its size."""
    if verdict.meaning not in (WINS, LOSES):
        return False
    for claim in claims:
        gap = text[verdict.end : claim.start]
        if 0 <= len(gap) <= _MAX_BY_GAP and _BY_BEFORE.search(gap) and not CLAUSE_BREAK.search(gap):
            return True
    return False


def _disowned(unit: Unit, following: Sequence[Unit]) -> bool:
    """Whether a sentence cut at a semicolon is disowned by the clause after it ("X does 7,900 tok/s on
    their cluster; that is another machine", "...; we have not reproduced it")."""
    return (unit.text.rstrip().endswith(";") and bool(following) and following[0].block == unit.block
            and following[0].row is None and disowns(following[0].text))


def _subject_named(text: str, named: Sequence[Mention]) -> str | None:
    """The first experiment a sentence names that is not only what it compares with ("vs TP8: ...")."""
    for mention in named:
        if not VS_PREFIX.search(text[max(0, mention.start - 20) : mention.start]):
            return mention.experiment
    return None


def _unique(findings: Iterable[Finding]) -> list[Finding]:
    seen: set[tuple[int, int, str]] = set()
    result = []
    for finding in findings:
        key = (finding.line, finding.column, finding.kind)
        if key not in seen:
            seen.add(key)
            result.append(finding)
    return result
