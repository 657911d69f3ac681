"""Hand-kept table rows: each cell read with its row's and its column's context.

A row is about the experiment its label cell names: the first cell, or else the first
cell that starts with an experiment's name ("| 2026-11-02 | EAGLE-3 | 54.1 |"). Its other
cells are read under their headers: a Status column as a verdict, a "vs X" column as a
relative claim, a number under a header naming a metric as that metric's value; any
other cell ("71.3 tok/s", "96.1 tok/s, +3.8%") is read as a sentence about the row's
experiment. A row whose label names a metric instead, in a table whose column headers
name experiments, is read the other way round: each number is its column's experiment's
value of the row's metric. A row about something the ledger does not know is read cell
by cell as prose.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchdoc.lint.claim_truth import calls_it_noise
from benchdoc.lint.facts import MetricInfo
from benchdoc.lint.findings import Finding
from benchdoc.lint.knowledge import Knowledge
from benchdoc.lint.stale_claims import ClaimRule, is_vs_header
from benchdoc.lint.stale_values import ValueRule
from benchdoc.lint.stale_verdicts import VerdictRule
from benchdoc.lint.text import Unit
from benchdoc.lint.words import HISTORICAL_CUES, STATUS_HEADERS, STATUS_WORDS
from benchdoc.results.status import Status

# Reads a cell as a sentence: (cell, path, row experiment, row historical, pinned experiments).
SentenceReader = Callable[[Unit, str, "str | None", bool, frozenset[str]], list[Finding]]
_EMPTY_CELLS = ("—", "-", "–", "n/a", "N/A")
_CHANGE = re.compile(r"%|\d\s*[x×](?!\w)")  # a percentage, or a factor ("2.03x faster")
_CHANGE_WORDS = re.compile(r"\b(?:change|delta|diff)\b|Δ", re.IGNORECASE)
_NAME_LEAD = 2  # characters a label cell may hold before the experiment's name ("* EAGLE-3", "(a) ...")


@dataclass(frozen=True)
class _Row:
    cells: tuple[Unit, ...]
    path: str
    label: Unit | None  # the cell that names what the row is about
    experiment: str | None
    pinned: frozenset[str]
    historical: bool
    hedged: bool  # a cell says the differences are noise: a "No difference" status, "within noise"


class TableRule:
    """Reads the cells of one table row, each by what its row and its column hold."""

    def __init__(
        self, knowledge: Knowledge, values: ValueRule, claims: ClaimRule, verdicts: VerdictRule, sentence: SentenceReader
    ) -> None:
        self.know = knowledge
        self.values = values
        self.claims = claims
        self.verdicts = verdicts
        self.sentence = sentence

    def row(self, cells: Sequence[Unit], path: str) -> list[Finding]:
        ordered = tuple(sorted(cells, key=lambda c: c.column_index or 0))
        label, experiment, pinned = self._label(ordered)
        historical = any(HISTORICAL_CUES.search(c.text) for c in ordered) or (
            label is not None and experiment is not None and self.values.dated_before(label.text, experiment))
        hedged = any(calls_it_noise(c.text) or _status_word(c.text) is Status.NO_DIFFERENCE for c in ordered)
        row = _Row(ordered, path, label, experiment, pinned, historical, hedged)
        if experiment is not None:
            return [f for cell in ordered if cell is not label for f in self._experiment_cell(row, cell)]
        transposed = self._metric_row(row)
        if transposed is not None:
            return transposed
        # A row about something the ledger does not know: its cells are read as sentences.
        return [f for c in ordered for f in self.sentence(c, path, None, False, frozenset()) if c is not label]

    def _label(self, cells: Sequence[Unit]) -> tuple[Unit | None, str | None, frozenset[str]]:
        """The row's label cell, the experiment it names and whether it names a superseded one by its own name."""
        first = next((c for c in cells if c.column_index == 0), None)
        candidates = [first] if first is not None else []
        candidates += [c for c in cells if c is not first]
        for cell in candidates:
            named = self.know.mentions.find(cell.text)
            if not named:
                continue
            lead = len(cell.text) - len(cell.text.lstrip())
            if cell is first or named[0].start - lead <= _NAME_LEAD:
                experiment = named[0].experiment
                pinned = frozenset({experiment}) if self.know.pins(named[0], cell.text) else frozenset()
                return cell, experiment, pinned
        return first, None, frozenset()

    def _experiment_cell(self, row: _Row, cell: Unit) -> list[Finding]:
        """One cell of a row about an experiment, read by what its column holds."""
        assert row.experiment is not None
        header = cell.header or ""
        text = cell.text.strip()
        if not text or text in _EMPTY_CELLS:
            return []
        finding: Finding | None
        if STATUS_HEADERS.match(header) and _status_word(text) is not None:
            finding = self.verdicts.cell(cell, row.path, row.experiment, row.historical, row.pinned)
        elif is_vs_header(header) and _CHANGE.search(text):
            columns = [self.values.header_metric(c.header or "") for c in row.cells if c is not cell]
            finding = self.claims.cell(cell, row.path, row.experiment, row.historical, row.pinned, row.hedged,
                                       columns=tuple(m for m in columns if m is not None))
        elif self.values.is_value_cell(cell.text) and (metric := self.values.header_metric(header)) is not None:
            if _CHANGE.search(text) and metric.unit.strip() != "%":
                # "-10%" under "TTFT p50 change" is a change of the metric, never its value in ms.
                return self._change_of_metric(row, cell, metric)
            finding = self.values.cell(cell, row.path, row.experiment, row.historical, row.pinned)
        elif self.values.is_value_cell(cell.text) and (metric := self._label_metric(row, cell)) is not None:
            # "| 95 s | eager cold start |": a label after the figure names its experiment and its metric.
            finding = self.values.cell(cell, row.path, row.experiment, row.historical, row.pinned, metric=metric)
        else:
            # "71.3 tok/s" under "Result", or words: a sentence about the row's experiment.
            return self.sentence(cell, row.path, row.experiment, row.historical, row.pinned)
        return [finding] if finding is not None else []

    def _label_metric(self, row: _Row, cell: Unit) -> MetricInfo | None:
        """The one metric the row's label names besides its experiment, when the cell's figure is in its unit."""
        if row.label is None or cell is row.label:
            return None
        text = row.label.text
        for mention in self.know.mentions.find(text):
            text = text[: mention.start] + " " * (mention.end - mention.start) + text[mention.end :]
        metric = self.values.header_metric(text)
        quantities = self.know.quantities.find(cell.text)
        if metric is None or not metric.unit or len(quantities) != 1:
            return None
        return metric if metric.unit.strip().lower() in quantities[0].units else None

    def _change_of_metric(self, row: _Row, cell: Unit, metric: MetricInfo) -> list[Finding]:
        """A change under a header naming a metric: a claim when the header says it is a change
        against the experiment's reference ("TTFT p50 change", "Δ TTFT"), else nothing (its
        reference is not known, and no fix may guess one)."""
        if row.experiment is None or not _CHANGE_WORDS.search(cell.header or ""):
            return []
        finding = self.claims.cell(cell, row.path, row.experiment, row.historical, row.pinned, row.hedged,
                                   columns=(metric,))
        return [finding] if finding is not None else []

    def _metric_row(self, row: _Row) -> list[Finding] | None:
        """A row labelled by a metric in a table whose columns are experiments; None when it is not one."""
        if row.label is None or row.label.column_index != 0:
            return None
        metric = self.values.header_metric(row.label.text)
        if metric is None:
            return None
        findings: list[Finding] = []
        read_any = False
        for cell in row.cells:
            if cell is row.label or not self.values.is_value_cell(cell.text):
                continue
            named = self.know.mentions.find(cell.header or "")
            if len({m.experiment for m in named}) != 1:
                continue  # "main (APC off)": two names of one experiment are one
            read_any = True
            pinned = frozenset({named[0].experiment}) if self.know.pins(named[0], cell.header or "") else frozenset()
            finding = self.values.cell(cell, row.path, named[0].experiment, row.historical, pinned, metric=metric)
            if finding is not None:
                findings.append(finding)
        if read_any:
            findings += self._change_cells(row, metric)
        return findings if read_any else None

    def _change_cells(self, row: _Row, metric: MetricInfo) -> list[Finding]:
        """A before/after table's change column ("| Goodput | 6.12 | 7.66 | +25% |"): the last experiment
        column against the first, on the row's metric, when exactly two columns name an experiment."""
        sides = [named.pop() for c in row.cells if c is not row.label
                 if len(named := {m.experiment for m in self.know.mentions.find(c.header or "")}) == 1]
        if len(set(sides)) != 2:
            return []
        findings = []
        for cell in row.cells:
            if cell is not row.label and is_vs_header(cell.header or "") and _CHANGE.search(cell.text) \
                    and not self.know.mentions.find(cell.header or ""):
                finding = self.claims.cell(cell, row.path, sides[-1], row.historical, row.pinned, row.hedged,
                                           columns=(metric,), against=sides[0])
                if finding is not None:
                    findings.append(finding)
        return findings


def _status_word(text: str) -> Status | None:
    """The status a cell's whole text names ("FAILED" -> "Failed"), or None."""
    return STATUS_WORDS.get(" ".join(text.lower().split()))
