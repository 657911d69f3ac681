"""Hand-kept table rows: the first cell names the experiment, other cells are read under their headers.

A Status column is judged as a verdict, a "vs X" column as a relative claim, a number
alone as a value of the metric its header names; any other cell is read as a sentence
about the row's experiment. A row about something the ledger does not know is read cell
by cell as prose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from benchdoc.lint.findings import Finding
from benchdoc.lint.knowledge import Knowledge
from benchdoc.lint.stale_claims import ClaimRule, is_vs_header
from benchdoc.lint.stale_values import ValueRule
from benchdoc.lint.stale_verdicts import VerdictRule
from benchdoc.lint.text import Unit
from benchdoc.lint.words import HISTORICAL_CUES, STATUS_HEADERS

# Reads a cell as a sentence: (cell, path, row experiment, row historical, pinned experiments).
SentenceReader = Callable[[Unit, str, "str | None", bool, frozenset[str]], list[Finding]]
_EMPTY_CELLS = ("—", "-", "–", "n/a", "N/A")


class TableRule:
    """Reads the cells of one table row, each by what its column holds."""

    def __init__(
        self, knowledge: Knowledge, values: ValueRule, claims: ClaimRule, verdicts: VerdictRule, sentence: SentenceReader
    ) -> None:
        self.know = knowledge
        self.values = values
        self.claims = claims
        self.verdicts = verdicts
        self.sentence = sentence

    def row(self, cells: Sequence[Unit], path: str) -> list[Finding]:
        cells = sorted(cells, key=lambda c: c.column_index or 0)
        label_cell = next((c for c in cells if c.column_index == 0), None)
        experiment = None
        pinned: frozenset[str] = frozenset()
        if label_cell is not None:
            named = self.know.mentions.find(label_cell.text)
            if named:
                experiment = named[0].experiment
                pinned = frozenset({experiment}) if self.know.pins(named[0], label_cell.text) else frozenset()
        historical = any(HISTORICAL_CUES.search(c.text) for c in cells)
        if experiment is None:
            # A row about something the ledger does not know: its cells are read as sentences.
            return [f for c in cells for f in self.sentence(c, path, None, False, frozenset()) if c is not label_cell]
        findings: list[Finding] = []
        for cell in cells:
            if cell is label_cell:
                continue
            header = cell.header or ""
            text = cell.text.strip()
            if not text or text in _EMPTY_CELLS:
                continue
            if STATUS_HEADERS.match(header):
                finding = self.verdicts.cell(cell, path, experiment, historical, pinned)
            elif is_vs_header(header) and "%" in text:
                finding = self.claims.cell(cell, path, experiment, historical, pinned)
            elif self.values.is_value_cell(cell.text):
                finding = self.values.cell(cell, path, experiment, historical, pinned)
            else:
                findings.extend(self.sentence(cell, path, experiment, historical, pinned))
                continue
            if finding is not None:
                findings.append(finding)
        return findings
