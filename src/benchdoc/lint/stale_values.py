"""Stale values: a number with a metric's unit that is no longer the experiment's result.

Most numbers are right, so each is first tried against every figure the named
experiments (and what they are compared with) may fairly be quoted with. A wrong number
is reported when the sentence ties it to one experiment and one metric beyond doubt, or
when it matches an older result of an experiment the sentence names (then the finding
says which).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchdoc.lint.context import Context
from benchdoc.lint.facts import MetricInfo, RunValue
from benchdoc.lint.findings import STALE_VALUE, Finding
from benchdoc.lint.knowledge import STATUS_PHRASES, Knowledge, fmt, matches, tolerance
from benchdoc.lint.quantities import Quantity, bare_numbers
from benchdoc.lint.text import Unit
from benchdoc.lint.words import (
    GENERIC_UNITS,
    HYPOTHETICAL,
    QUALIFIER_AFTER,
    QUALIFIER_BEFORE,
)

_CELL_VALUE = re.compile(
    r"^\s*(?:~|≈)?\s*[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:(?:±|\+/-)\s*\d+(?:\.\d+)?\s*%?)?\s*(?P<unit>[^\d\s][^\s]*)?\s*$"
)


class ValueRule:
    """Numbers in sentences, and numbers alone in a table cell under a metric's header."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.know = knowledge
        self.facts = knowledge.facts

    def value(self, context: Context, quantity: Quantity) -> Finding | None:
        text = context.unit.text
        candidates = [m for m in self.facts.metrics.values() if m.unit and m.unit.strip().lower() in quantity.units]
        experiments = context.experiments()
        if not candidates or not experiments:
            return None
        scope = self.know.scope(experiments, context)
        # Most numbers are right: settle those before reading the words around them.
        if any(self.accepts(e, m, quantity, False, context) for e in scope for m in candidates):
            return None
        clause_start, clause_end = context.clause(quantity.start)
        before = text[clause_start : quantity.start]
        if HYPOTHETICAL.search(before) or QUALIFIER_BEFORE.search(text[max(0, quantity.start - 30) : quantity.start]):
            return None
        if QUALIFIER_AFTER.match(text[quantity.unit_end :]):
            return None
        clause = context.plain[clause_start:clause_end]
        named = [m for m in candidates if self.know.names_metric(m.name, clause)]
        if named:
            metrics, metric_certain = named, len(named) == 1
        elif any(m.unit.strip().lower() in GENERIC_UNITS for m in candidates):
            if "%" in quantity.units:
                return None  # a bare percentage is a claim or a share, not a metric's value
            metrics, metric_certain = candidates, False
        else:
            metrics, metric_certain = candidates, len(candidates) == 1
        attributed = context.nearest(quantity.start)
        certain = metric_certain and len({self.know.standing(e, context).name for e in experiments}) == 1
        historical = context.historical or quantity.before
        if historical and any(self.accepts(e, m, quantity, True, context) for e in scope for m in metrics):
            return None
        old = self.old_match(experiments, attributed, metrics, quantity, context)
        if old is None and not certain:
            return None
        if old is not None:
            owner, metric, run = old
        else:
            owner, metric, run = attributed, metrics[0], None
        return self.finding(context, quantity, owner, metric, run)

    def accepts(
        self, experiment: str, metric: MetricInfo, quantity: Quantity, historical: bool, context: Context | None
    ) -> bool:
        allowed = tolerance(quantity.decimals, metric.digits)
        values = self.know.values_now(self.know.standing(experiment, context).name, metric.name)
        if historical:
            values = values + self.know.values_past(experiment, metric.name)
        return any(matches(quantity.value, v, allowed, quantity.bound) for v in values)

    def old_match(
        self, experiments: Sequence[str], attributed: str, metrics: Sequence[MetricInfo], quantity: Quantity,
        context: Context | None,
    ) -> tuple[str, MetricInfo, RunValue] | None:
        """An older result of a named experiment (or of its lineage) that the number quotes."""
        order = [attributed, *(e for e in experiments if e != attributed)]
        for experiment in order:
            for member in self.facts.lineage(experiment):
                for metric in metrics:
                    facts = member.metrics.get(metric.name)
                    if facts is None:
                        continue
                    allowed = tolerance(quantity.decimals, metric.digits)
                    for run in facts.history:
                        if matches(quantity.value, run.value, allowed, "exact") and not self.know.is_current(
                            member, metric, run, context
                        ):
                            return member.name, metric, run
        return None

    def finding(
        self, context: Context, quantity: Quantity, owner: str, metric: MetricInfo, run: RunValue | None
    ) -> Finding | None:
        current = self.know.standing(owner, context)
        facts = current.metrics.get(metric.name)
        unit = f" {metric.unit}" if metric.unit and metric.unit != "%" else metric.unit
        quoted = context.unit.text[quantity.start : quantity.unit_end].strip()
        if facts is None or facts.current is None:
            if run is None:
                return None
            state = f"{current.label} {STATUS_PHRASES.get(current.status, 'is now ' + current.status)}" + (
                f": {current.reason}" if current.reason else ""
            )
            message = f"quotes the result of {run.date} ({fmt(run.value, metric.digits)}{unit}); {state}"
            ledger = state
            fix = f"reword: {current.label} has no current {metric.label} ({current.status})"
        else:
            now = f"{fmt(facts.current, metric.digits)}{unit}"
            whose = "the " if current.name == owner else f"{self.facts.experiments[owner].label}'s "
            named_metric = "" if metric.label.strip().lower() == metric.unit.strip().lower() else f"{metric.label} "
            if run is not None:
                message = f"quotes {whose}result of {run.date} ({fmt(run.value, metric.digits)}{unit}); now {now}"
            else:
                message = f"says {quoted}; {named_metric or 'the result '}of {current.label} is now {now}"
            if current.name != owner:
                message += f" ({current.label}, which supersedes {self.facts.experiments[owner].label})"
            elif run is not None:
                message += f" ({current.label})"
            ledger = f"{current.label}: {named_metric}{now}" + (f", measured {current.measured_on}" if current.measured_on else "")
            fix = (
                f"<!-- benchdoc:value {current.name}.{metric.name} -->{fmt(facts.current, metric.digits)}"
                f"<!-- benchdoc:end -->{unit}"
            )
        return context.finding(quantity.start, quantity.unit_end, STALE_VALUE, message, ledger, fix, current.name)

    @staticmethod
    def is_value_cell(text: str) -> bool:
        """A cell holding one number, perhaps hedged, with a spread or a unit: "~41 ms", "96.1 ± 0.3"."""
        return _CELL_VALUE.match(text) is not None

    def cell(
        self, cell: Unit, path: str, experiment: str, historical: bool, pinned: frozenset[str] = frozenset(),
        metric: MetricInfo | None = None,
    ) -> Finding | None:
        """A number alone in a table cell, read in the metric its column header (or its row's label) names."""
        metric = metric or self.header_metric(cell.header or "")
        if metric is None:
            return None
        numbers = bare_numbers(cell.text)
        if not numbers:
            return None
        quantity = numbers[0]
        context = Context(cell, path, (), experiment, historical, table_row=True, pinned=pinned)
        if self.accepts(experiment, metric, quantity, historical, context):
            return None
        old = self.old_match([experiment], experiment, [metric], quantity, context)
        if old is not None:
            return self.finding(context, quantity, old[0], metric, old[2])
        return self.finding(context, quantity, experiment, metric, None)

    def header_metric(self, header: str) -> MetricInfo | None:
        know = self.know
        found = [
            m for m in self.facts.metrics.values() if know.names_unit(m.name, header) or know.names_metric(m.name, header)
        ]
        if len(found) > 1:
            # "Output throughput (tok/s)" names one metric by both; prefer those named by their unit.
            by_unit = [m for m in found if know.names_unit(m.name, header)]
            named = [m for m in by_unit if know.names_metric(m.name, header)]
            found = named or by_unit or found
        return found[0] if len(found) == 1 else None
