"""The rules: which statements in prose the ledger contradicts.

A statement is read against the experiments its sentence (or table row) names. A name
stands for the experiment's *current* result: the end of its supersedes chain, so
"EAGLE-3" after the stack upgrade means the upgraded run. A statement is accepted when
it matches that current result. It is also accepted when the sentence speaks of the past
(past tense, "before", "from X to Y", a version string of the old setup) and it matches
one of the experiment's older results; and everything in a historical section or under
an ignore directive is skipped.

Precision comes first. A number is reported when the sentence ties it to one experiment
and one metric beyond doubt, or when it matches an older result of an experiment the
sentence names (then the finding says which). A verdict word is reported only next to
an experiment's name, not negated, and only when the computed status contradicts it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from benchdoc.lint.claims import BAD, DOWN, GOOD, SIGNED, UP, Claim, find_claims
from benchdoc.lint.facts import ExperimentFacts, LintFacts, MetricFacts, MetricInfo, RunValue
from benchdoc.lint.findings import STALE_CLAIM, STALE_VALUE, STALE_VERDICT, Finding
from benchdoc.lint.mentions import Mention, MentionFinder
from benchdoc.lint.quantities import Quantity, QuantityFinder, bare_numbers
from benchdoc.lint.text import DocumentText, Unit
from benchdoc.lint.verdicts import VerdictWord, find_verdicts
from benchdoc.lint.words import (
    CLAUSE_BREAK,
    FAILS,
    GENERIC_UNITS,
    HISTORICAL_CUES,
    HYPOTHETICAL,
    LOSES,
    METRIC_NOISE_WORDS,
    PRONOUN_START,
    QUALIFIER_AFTER,
    QUALIFIER_BEFORE,
    SAME,
    STATUS_HEADERS,
    STATUS_WORDS,
    UNIT_SPELLINGS,
    WINS,
    WORKS,
)

_RAN_OK = frozenset({"Works", "Slower", "Worse", "No difference"})
_STATUS_PHRASES = {
    "Works": "now works",
    "Slower": "is now slower",
    "Worse": "is now worse",
    "No difference": "now makes no significant difference",
    "Failed": "now fails",
    "Reference": "is the reference",
    "Untested": "is untested",
    "Measured": "has no verdict yet",
}
_VERDICT_STATUS = {"better": "Works", "worse": "Slower", "same": "No difference", "equivalent": "No difference"}
_VS_HEADER = re.compile(r"^(?:vs\.?|versus|against|Δ|delta|change|diff(?:erence)?)\b", re.IGNORECASE)
_PREPOSITION = re.compile(r"^(?:on|in|at|for|with|under|across|when|during|per|of|to)\b", re.IGNORECASE)
_CELL_VALUE = re.compile(
    r"^\s*(?:~|≈)?\s*[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:(?:±|\+/-)\s*\d+(?:\.\d+)?\s*%?)?\s*(?P<unit>[^\d\s][^\s]*)?\s*$"
)
_MAX_VERDICT_GAP = 80  # characters between an experiment's name and a verdict word about it


@dataclass(frozen=True)
class _Context:
    """What one sentence or table row is about."""

    unit: Unit
    path: str
    mentions: tuple[Mention, ...]
    row_experiment: str | None  # the experiment a table row is about, when the text names none
    historical_hint: bool  # known to speak of the past (a table row whose notes say so)
    table_row: bool = False
    pinned: frozenset[str] = frozenset()  # superseded experiments named by their own label: their own figures apply
    past_test: Callable[[], bool] | None = None  # decides, when first needed, whether the text speaks of the past

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


@dataclass(frozen=True)
class _Delta:
    """An experiment's current delta against another, and where it comes from."""

    value: float  # candidate / target - 1, in %
    low: float | None
    high: float | None
    described: str  # "A against B"
    how: str  # "comparison" (A's own, against its compare_to), "reverse", "change" (before/after) or "medians"
    verdict: str | None = None  # the comparison's verdict, for "comparison"


class ProseChecker:
    """Checks the prose units of documents against the facts of one project."""

    def __init__(self, facts: LintFacts) -> None:
        self.facts = facts
        self.mentions = MentionFinder(facts.experiments.values())
        self.quantities = QuantityFinder(m.unit for m in facts.metrics.values() if m.unit)
        self.keywords = {name: _keyword_pattern(m) for name, m in facts.metrics.items()}
        self.unit_words = {name: _unit_pattern(m.unit) for name, m in facts.metrics.items() if m.unit}
        self._versions_cache: dict[str, re.Pattern[str] | None] = {}
        self._now_cache: dict[tuple[str, str], tuple[float, ...]] = {}
        self._past_cache: dict[tuple[str, str], tuple[float, ...]] = {}

    def old_versions(self, name: str) -> re.Pattern[str] | None:
        """Version strings of the older setups of an experiment's line ("12.8" for an old CUDA), as one pattern."""
        if name not in self._versions_cache:
            versions = sorted(
                {
                    version
                    for member in (*self.facts.lineage(name), self.facts.experiments[name])
                    for metric in member.metrics.values()
                    for run in metric.history
                    for version in run.old_versions
                },
                key=len, reverse=True,
            )
            self._versions_cache[name] = (
                re.compile(r"(?<![\d.])(?:" + "|".join(re.escape(v) for v in versions) + r")(?![\d]|\.\d)")
                if versions else None
            )
        return self._versions_cache[name]

    # -- documents ---------------------------------------------------------------------

    def check(self, document: DocumentText) -> list[Finding]:
        findings: list[Finding] = []
        rows: dict[int, list[Unit]] = {}
        previous: tuple[int, str | None] = (-1, None)  # (block, first experiment named) of the last sentence
        for unit in document.units:
            if unit.row is not None:
                if not unit.historical:
                    rows.setdefault(unit.row, []).append(unit)
                continue
            named = self.mentions.find(unit.text)
            implicit = None
            if PRONOUN_START.match(unit.text) and previous[0] == unit.block:
                implicit = previous[1]
            previous = (unit.block, named[0].experiment if named else implicit)
            if unit.historical:
                continue
            findings.extend(self.sentence(unit, document.path, row_experiment=implicit, implicit=True, mentions=named))
        for cells in rows.values():
            findings.extend(self.row(cells, document.path))
        kept = [f for f in findings if f.line not in document.ignored_lines]
        return sorted(_unique(kept), key=lambda f: (f.line, f.column, f.kind))

    def sentence(
        self, unit: Unit, path: str, row_experiment: str | None = None, row_historical: bool = False,
        implicit: bool = False, row_pinned: frozenset[str] = frozenset(), mentions: Sequence[Mention] | None = None,
    ) -> list[Finding]:
        mentions = tuple(self.mentions.find(unit.text) if mentions is None else mentions)
        if not mentions and row_experiment is None:
            return []
        context = _Context(
            unit, path, mentions, row_experiment, row_historical,
            table_row=row_experiment is not None and not implicit,
            past_test=lambda: self.is_historical(unit.text, mentions),
            pinned=row_pinned | frozenset(m.experiment for m in mentions if self.pins(m, unit.text)),
        )
        findings: list[Finding] = []
        consumed: list[tuple[int, int]] = [(m.start, m.end) for m in mentions]
        has_digit = any(digit in unit.text for digit in "0123456789")
        for claim in find_claims(unit.text) if has_digit else ():
            consumed.append((claim.start, claim.text_end))
            finding = self.claim(context, claim)
            if finding is not None:
                findings.append(finding)
        verdicts = [v for v in find_verdicts(unit.text) if not v.negated and not _inside(v.start, v.end, consumed)]
        meanings = {v.meaning for v in verdicts}
        if FAILS in meanings and WORKS in meanings:
            verdicts = []  # "fails on 16 GB cards, but runs fine here": a nuance, not a verdict
        judged: set[str] = set()
        for verdict in verdicts:
            finding = self.verdict(context, verdict)
            if finding is not None and finding.experiment not in judged:
                judged.add(finding.experiment)  # one sentence, one verdict finding per experiment
                findings.append(finding)
        for quantity in self.quantities.find(unit.text) if has_digit else ():
            if _inside(quantity.start, quantity.end, consumed):
                continue
            finding = self.value(context, quantity)
            if finding is not None:
                findings.append(finding)
        return findings

    def row(self, cells: Sequence[Unit], path: str) -> list[Finding]:
        """A table row: the first cell names the experiment; other cells are read under their headers."""
        cells = sorted(cells, key=lambda c: c.column_index or 0)
        label_cell = next((c for c in cells if c.column_index == 0), None)
        experiment = None
        pinned: frozenset[str] = frozenset()
        if label_cell is not None:
            named = self.mentions.find(label_cell.text)
            if named:
                experiment = named[0].experiment
                pinned = frozenset({experiment}) if self.pins(named[0], label_cell.text) else frozenset()
        historical = any(HISTORICAL_CUES.search(c.text) for c in cells)
        if experiment is None:
            # A row about something the ledger does not know: its cells are read as sentences.
            return [f for c in cells for f in self.sentence(c, path) if c is not label_cell]
        findings: list[Finding] = []
        for cell in cells:
            if cell is label_cell:
                continue
            header = cell.header or ""
            text = cell.text.strip()
            if not text or text in ("—", "-", "–", "n/a", "N/A"):
                continue
            if STATUS_HEADERS.match(header):
                finding = self.status_cell(cell, path, experiment, historical, pinned)
            elif _VS_HEADER.match(header) and "%" in text:
                finding = self.vs_cell(cell, path, experiment, historical, pinned)
            elif _CELL_VALUE.match(cell.text):
                finding = self.value_cell(cell, path, experiment, historical, pinned)
            else:
                findings.extend(
                    self.sentence(cell, path, row_experiment=experiment, row_historical=historical, row_pinned=pinned)
                )
                continue
            if finding is not None:
                findings.append(finding)
        return findings

    def pins(self, mention: Mention, text: str) -> bool:
        """Whether a mention names a superseded experiment by a name of its own (not one its successor shares).

        "NVLS all-reduce (driver 570)" names the old run itself; "EAGLE-3" (and "EAGLE-3 2-step", a prefix
        of its successor's label) names the line of experiments, whose current result is the successor's.
        """
        facts = self.facts.experiments[mention.experiment]
        if not facts.superseded_by or mention.via == "alias":
            return False
        written = _normalise(text[mention.start : mention.end])
        successors = [e for e in self.facts.lineage(mention.experiment) if e.name != facts.name]
        for successor in successors:
            for spelling in (successor.label, successor.name, *successor.aliases):
                if _normalise(spelling).startswith(written):
                    return False
        return True

    def standing(self, name: str, context: _Context | None) -> ExperimentFacts:
        """The experiment whose figures a name stands for in this context."""
        if context is not None and name in context.pinned:
            return self.facts.experiments[name]
        return self.facts.current(name)

    def is_historical(self, text: str, mentions: Iterable[Mention]) -> bool:
        if HISTORICAL_CUES.search(text):
            return True
        for name in {m.experiment for m in mentions}:
            pattern = self.old_versions(name)
            if pattern is not None and pattern.search(text):
                return True
        return False

    # -- values ------------------------------------------------------------------------

    def value(self, context: _Context, quantity: Quantity) -> Finding | None:
        text = context.unit.text
        candidates = [m for m in self.facts.metrics.values() if m.unit and m.unit.strip().lower() in quantity.units]
        experiments = self._experiments_in(context)
        if not candidates or not experiments:
            return None
        scope = self._scope(experiments, context)
        # Most numbers are right: settle those before reading the words around them.
        if any(self._accepts(e, m, quantity, False, context) for e in scope for m in candidates):
            return None
        clause_start, clause_end = context.clause(quantity.start)
        before = text[clause_start : quantity.start]
        if HYPOTHETICAL.search(before) or QUALIFIER_BEFORE.search(text[max(0, quantity.start - 30) : quantity.start]):
            return None
        if QUALIFIER_AFTER.match(text[quantity.unit_end :]):
            return None
        clause = context.plain[clause_start:clause_end]
        named = [m for m in candidates if self.keywords[m.name] and self.keywords[m.name].search(clause)]
        if named:
            metrics, metric_certain = named, len(named) == 1
        elif any(m.unit.strip().lower() in GENERIC_UNITS for m in candidates):
            if "%" in quantity.units:
                return None  # a bare percentage is a claim or a share, not a metric's value
            metrics, metric_certain = candidates, False
        else:
            metrics, metric_certain = candidates, len(candidates) == 1
        attributed = self._nearest(context, quantity.start)
        certain = metric_certain and len({self.standing(e, context).name for e in experiments}) == 1
        historical = context.historical or quantity.before
        if historical and any(self._accepts(e, m, quantity, True, context) for e in scope for m in metrics):
            return None
        old = self._old_match(experiments, attributed, metrics, quantity, context)
        if old is None and not certain:
            return None
        if old is not None:
            owner, metric, run = old
        else:
            owner, metric, run = attributed, metrics[0], None
        return self._value_finding(context, quantity, owner, metric, run)

    def _accepts(
        self, experiment: str, metric: MetricInfo, quantity: Quantity, historical: bool, context: _Context | None
    ) -> bool:
        tolerance = _tolerance(quantity.decimals, metric.digits)
        values = self._values_now(self.standing(experiment, context).name, metric.name)
        if historical:
            values = values + self._values_past(experiment, metric.name)
        return any(_matches(quantity.value, v, tolerance, quantity.bound) for v in values)

    def _values_now(self, name: str, metric: str) -> tuple[float, ...]:
        """The figures of an experiment's own result a sentence may quote: centre, mean, interval, extremes."""
        key = (name, metric)
        if key not in self._now_cache:
            facts = self.facts.experiments[name].metrics.get(metric)
            ok = facts is not None and facts.current is not None
            self._now_cache[key] = (facts.current, *facts.accepted) if ok else ()  # type: ignore[union-attr]
        return self._now_cache[key]

    def _values_past(self, name: str, metric: str) -> tuple[float, ...]:
        """Every run's result along an experiment's supersedes chain."""
        key = (name, metric)
        if key not in self._past_cache:
            self._past_cache[key] = tuple(
                run.value for member in self.facts.lineage(name) for run in _history(member, metric)
            )
        return self._past_cache[key]

    def _old_match(
        self, experiments: Sequence[str], attributed: str, metrics: Sequence[MetricInfo], quantity: Quantity,
        context: _Context | None,
    ) -> tuple[str, MetricInfo, RunValue] | None:
        """An older result of a named experiment (or of its lineage) that the number quotes."""
        order = [attributed, *(e for e in experiments if e != attributed)]
        for experiment in order:
            for member in self.facts.lineage(experiment):
                for metric in metrics:
                    facts = member.metrics.get(metric.name)
                    if facts is None:
                        continue
                    tolerance = _tolerance(quantity.decimals, metric.digits)
                    for run in facts.history:
                        if _matches(quantity.value, run.value, tolerance, "exact") and not self._is_current(member, metric, run, context):
                            return member.name, metric, run
        return None

    def _is_current(self, member: ExperimentFacts, metric: MetricInfo, run: RunValue, context: _Context | None) -> bool:
        current = self.standing(member.name, context)
        facts = current.metrics.get(metric.name)
        if facts is None or facts.current is None or current.name != member.name:
            return False
        return abs(run.value - facts.current) < 1e-12

    def _value_finding(
        self, context: _Context, quantity: Quantity, owner: str, metric: MetricInfo, run: RunValue | None
    ) -> Finding | None:
        current = self.standing(owner, context)
        facts = current.metrics.get(metric.name)
        unit = f" {metric.unit}" if metric.unit and metric.unit != "%" else metric.unit
        quoted = context.unit.text[quantity.start : quantity.unit_end].strip()
        if facts is None or facts.current is None:
            if run is None:
                return None
            state = f"{current.label} {_STATUS_PHRASES.get(current.status, 'is now ' + current.status)}" + (
                f": {current.reason}" if current.reason else ""
            )
            message = f"quotes the result of {run.date} ({_fmt(run.value, metric.digits)}{unit}); {state}"
            ledger = state
            fix = f"reword: {current.label} has no current {metric.label} ({current.status})"
        else:
            now = f"{_fmt(facts.current, metric.digits)}{unit}"
            whose = "the " if current.name == owner else f"{self.facts.experiments[owner].label}'s "
            named_metric = "" if metric.label.strip().lower() == metric.unit.strip().lower() else f"{metric.label} "
            if run is not None:
                message = f"quotes {whose}result of {run.date} ({_fmt(run.value, metric.digits)}{unit}); now {now}"
            else:
                message = f"says {quoted}; {named_metric or 'the result '}of {current.label} is now {now}"
            if current.name != owner:
                message += f" ({current.label}, which supersedes {self.facts.experiments[owner].label})"
            elif run is not None:
                message += f" ({current.label})"
            ledger = f"{current.label}: {named_metric}{now}" + (f", measured {current.measured_on}" if current.measured_on else "")
            fix = (
                f"<!-- benchdoc:value {current.name}.{metric.name} -->{_fmt(facts.current, metric.digits)}"
                f"<!-- benchdoc:end -->{unit}"
            )
        return self._finding(context, quantity.start, quantity.unit_end, STALE_VALUE, message, ledger, fix, current.name)

    def value_cell(
        self, cell: Unit, path: str, experiment: str, historical: bool, pinned: frozenset[str] = frozenset()
    ) -> Finding | None:
        """A number alone in a table cell, read in the metric its column header names."""
        metric = self._header_metric(cell.header or "")
        if metric is None:
            return None
        numbers = bare_numbers(cell.text)
        if not numbers:
            return None
        quantity = numbers[0]
        context = _Context(cell, path, (), experiment, historical, table_row=True, pinned=pinned)
        if self._accepts(experiment, metric, quantity, historical, context):
            return None
        old = self._old_match([experiment], experiment, [metric], quantity, context)
        if old is not None:
            return self._value_finding(context, quantity, old[0], metric, old[2])
        return self._value_finding(context, quantity, experiment, metric, None)

    def _header_metric(self, header: str) -> MetricInfo | None:
        found = [
            m for m in self.facts.metrics.values()
            if (self.unit_words.get(m.name) and self.unit_words[m.name].search(header))
            or (self.keywords[m.name] and self.keywords[m.name].search(header))
        ]
        if len(found) > 1:
            # "Output throughput (tok/s)" names one metric by both; prefer those named by their unit.
            by_unit = [m for m in found if self.unit_words.get(m.name) and self.unit_words[m.name].search(header)]
            named = [m for m in by_unit if self.keywords[m.name] and self.keywords[m.name].search(header)]
            found = named or by_unit or found
        return found[0] if len(found) == 1 else None

    # -- relative claims ---------------------------------------------------------------

    def claim(self, context: _Context, claim: Claim) -> Finding | None:
        text = context.unit.text
        clause_start, clause_end = context.clause(claim.start)
        if HYPOTHETICAL.search(text[clause_start : claim.start]):
            return None
        metric = self._claim_metric(context, claim, (clause_start, clause_end))
        if metric is None:
            return None
        target: str | None = None
        if claim.object_at is not None:
            at = _mention_at(context.mentions, claim.object_at)
            if at is None:
                return None  # compared with something the ledger does not name
            target = at.experiment
        elif claim.object_search_start is not None:
            inside = [m for m in context.mentions if claim.object_search_start <= m.start < claim.start + 80 and m.start > claim.start]
            target = inside[0].experiment if inside else None
        subject = self._claim_subject(context, claim, target)
        if subject is None:
            return None
        if target is None:
            target = self._default_target(context, subject)
            if target is None:
                subject, target = self._subject_for_reference(context, subject)
                if subject is None or target is None:
                    return None
        current_subject = self.standing(subject, context)
        current_target = self.standing(target, context)
        actual = self._actual_delta(subject, target, metric, context)
        if actual is None:
            return None
        delta, low, high, described = actual.value, actual.low, actual.high, actual.described
        claimed = _claimed_intervals(claim, metric)
        if claimed is None:
            return None
        if _claim_holds(claimed, delta, low, high, claim.bound):
            return None
        old = self._historical_comparison(subject, target, metric, claimed, claim.bound, context)
        if old is not None and context.historical:
            return None
        quoted = text[claim.start : self._claim_text_end(context, claim)].strip()
        verdict = _delta_words(delta, metric)
        interval = f" [{low:+.1f}%, {high:+.1f}%]" if low is not None and high is not None else ""
        message = f"says {quoted}; the ledger says {delta:+.1f}%{interval} ({verdict})"
        if old is not None:
            message += f"; it quotes the comparison of {old}"
        if current_subject.name != subject or current_target.name != target:
            message += f" — {described}"
        ledger = f"{described}: {delta:+.1f}%{interval}, {verdict}"
        fix = self._claim_fix(current_subject, current_target, metric, actual)
        return self._finding(context, claim.start, claim.text_end, STALE_CLAIM, message, ledger, fix, current_subject.name, quoted)

    def _claim_text_end(self, context: _Context, claim: Claim) -> int:
        if claim.object_at is not None:
            after = _mention_at(context.mentions, claim.object_at)
            if after is not None:
                return after.end
        return claim.text_end

    def _claim_metric(self, context: _Context, claim: Claim, clause: tuple[int, int]) -> MetricInfo | None:
        noun = claim.noun
        if noun and _PREPOSITION.match(noun):
            named = [m for m in self.facts.metrics.values() if self.keywords[m.name] and self.keywords[m.name].search(noun)]
            if len(named) == 1:
                return named[0]  # "2% faster at prompt processing"
        if noun and not _PREPOSITION.match(noun):
            named = [m for m in self.facts.metrics.values() if self.keywords[m.name] and self.keywords[m.name].search(noun)]
            if len(named) == 1:
                return named[0]
            if not named and claim.polarity in (UP, DOWN) or (not named and claim.factor):
                return None  # "30% higher acceptance": not a metric the ledger holds
            if not named and claim.polarity in (GOOD, BAD) and not _only_filler(noun):
                return None
        # Otherwise the metric named last before the claim in its clause ("cuts TTFT to 146 ms, 20% lower").
        before = context.plain[clause[0] : claim.start]
        last: tuple[int, MetricInfo] | None = None
        for m in self.facts.metrics.values():
            pattern = self.keywords[m.name]
            for match in pattern.finditer(before) if pattern else ():
                if last is None or match.start() > last[0]:
                    last = (match.start(), m)
        if last is not None:
            return last[1]
        if self.facts.primary_metric and self.facts.primary_metric in self.facts.metrics:
            return self.facts.metrics[self.facts.primary_metric]
        return None

    def _claim_subject(self, context: _Context, claim: Claim, target: str | None) -> str | None:
        named_target = _mention_at(context.mentions, claim.object_at) if claim.object_at is not None else None
        before = [
            m for m in context.mentions
            if m.end <= claim.start and m is not named_target and (named_target is not None or m.experiment != target)
        ]
        if target is not None or claim.object_search_start is not None:
            if before:
                return before[-1].experiment
            return context.row_experiment
        if before:
            return before[0].experiment  # the sentence's subject
        return context.row_experiment

    def _default_target(self, context: _Context, subject: str) -> str | None:
        current = self.standing(subject, context)
        return current.compare_to

    def _subject_for_reference(self, context: _Context, reference: str) -> tuple[str | None, str | None]:
        """'A reaches X against B, the reference: a 3% gain' — the other experiment compared with it."""
        others = [
            m.experiment for m in context.mentions
            if m.experiment != reference
            and self.standing(m.experiment, context).compare_to == self.standing(reference, context).name
        ]
        if len(set(others)) == 1:
            return others[0], reference
        return None, None

    def _actual_delta(self, subject: str, target: str, metric: MetricInfo, context: _Context | None) -> _Delta | None:
        """The subject's current delta against the target, its interval, and how it was obtained."""
        s = self.standing(subject, context)
        t = self.standing(target, context)
        s_facts = s.metrics.get(metric.name)
        t_facts = t.metrics.get(metric.name)
        if s.name == t.name:
            # The same line of experiments: "EAGLE-3 on CUDA 13 is 77% faster than EAGLE-3" means before/after.
            named = self.facts.experiments[target]
            named_facts = named.metrics.get(metric.name)
            if s_facts is None or s_facts.current is None or named_facts is None or not named_facts.history or named.name == s.name:
                return None
            old = named_facts.current if named_facts.current is not None else named_facts.history[0].value
            if not old:
                return None
            how = "change" if s.supersedes == named.name else "medians"
            return _Delta((s_facts.current / old - 1) * 100, None, None, f"{s.label} against {named.label}", how)
        comparison = s_facts.comparison if s_facts is not None else None
        if comparison is not None and comparison.against == t.name:
            return _Delta(comparison.delta_pct, comparison.ci_low, comparison.ci_high, f"{s.label} against {t.label}",
                          "comparison", comparison.verdict)
        reverse = t_facts.comparison if t_facts is not None else None
        if reverse is not None and reverse.against == s.name:
            def invert(d: float | None) -> float | None:
                return None if d is None or d <= -100 else (1 / (1 + d / 100) - 1) * 100
            inverted = invert(reverse.delta_pct)
            if inverted is None:
                return None
            return _Delta(inverted, invert(reverse.ci_high), invert(reverse.ci_low), f"{s.label} against {t.label}", "reverse")
        if s_facts is None or t_facts is None or s_facts.current is None or not t_facts.current:
            return None
        return _Delta((s_facts.current / t_facts.current - 1) * 100, None, None,
                      f"{s.label} against {t.label} (from their medians)", "medians")

    def _historical_comparison(
        self, subject: str, target: str, metric: MetricInfo, claimed: list[tuple[float, float]], bound: str,
        context: _Context | None,
    ) -> str | None:
        """The date of an older comparison of the two lines of experiments that the claim matches."""
        subject_line = self.facts.lineage(subject)
        target_line = self.facts.lineage(target)
        target_runs = sorted(
            (run for member in target_line for run in _history(member, metric.name)), key=lambda r: r.run_id
        )
        for member in subject_line:
            facts = member.metrics.get(metric.name)
            if facts is None:
                continue
            if member.name != self.standing(subject, context).name and facts.comparison is not None:
                c = facts.comparison
                if _claim_holds(claimed, c.delta_pct, c.ci_low, c.ci_high, bound):
                    return f"{member.label} ({member.measured_on or 'earlier'})"
            for run in facts.history:
                if not target_runs:
                    break
                earlier = [r for r in target_runs if r.run_id < run.run_id]
                partner = earlier[-1] if earlier else target_runs[0]
                if partner.value and _claim_holds(claimed, (run.value / partner.value - 1) * 100, None, None, bound):
                    if self._is_current(member, metric, run, context) and self._is_current(
                        self.standing(target, context), metric, partner, context
                    ):
                        continue
                    return f"{run.date} ({_fmt(run.value, metric.digits)} against {_fmt(partner.value, metric.digits)})"
        return None

    def _claim_fix(self, subject: ExperimentFacts, target: ExperimentFacts, metric: MetricInfo, delta: _Delta) -> str:
        """The words to write instead, and the value region that keeps them true (its text as sync renders it)."""
        metric_part = "" if metric.name == self.facts.primary_metric else f".{metric.name}"
        if delta.how == "change":
            text = f"{delta.value:+.1f}%"
            return (f'write "{text}", or bind it: <!-- benchdoc:value {subject.name}{metric_part} show=change -->'
                    f"{text}<!-- benchdoc:end -->")
        if delta.how == "comparison":
            text = _verdict_text(delta, metric, target.label)
            return (f'write "{text}", or bind it: <!-- benchdoc:value {subject.name}{metric_part} show=verdict -->'
                    f"{text}<!-- benchdoc:end -->")
        words = _delta_words(delta.value, metric)
        phrase = f"{words} than {target.label}" if words != "no change" else f"no different from {target.label}"
        return (f'write "{phrase}", or bind it: <!-- benchdoc:value {subject.name}{metric_part} show=verdict '
                f"vs={target.name} --><!-- benchdoc:end --> and run `benchdoc sync --write`")

    # -- verdicts ----------------------------------------------------------------------

    def verdict(self, context: _Context, verdict: VerdictWord) -> Finding | None:
        text = context.unit.text
        subject = self._verdict_subject(context, verdict)
        if subject is None:
            return None
        clause_start, clause_end = context.clause(verdict.start)
        current = self.standing(subject, context)
        meaning = verdict.meaning
        target = self._than_target(context, verdict)
        if target is not None and meaning in (WINS, LOSES):
            target_current = self.standing(target, context)
            if target_current.compare_to == current.name and current.compare_to != target_current.name:
                current, meaning = target_current, (LOSES if meaning == WINS else WINS)
            elif current.compare_to != target_current.name:
                return None
        metric = self._clause_metric(context.plain[clause_start:clause_end])
        status, delta = self._status_for(current, metric)
        if status is None or not _contradicts(meaning, status, delta):
            return None
        if context.historical or HYPOTHETICAL.search(text[clause_start : verdict.start]):
            return None
        quoted = text[verdict.start : verdict.end]
        shown = self._status_text(current, metric, status)
        message = f'says "{quoted}", but {current.label} {shown}'
        if current.name != subject:
            message += f" (it supersedes {self.facts.experiments[subject].label})"
        fix = f"reword it, or bind the status: <!-- benchdoc:value {current.name} show=status -->{current.status}<!-- benchdoc:end -->"
        return self._finding(context, verdict.start, verdict.end, STALE_VERDICT, message, f"{current.label}: {shown}", fix, current.name)

    def status_cell(
        self, cell: Unit, path: str, experiment: str, historical: bool, pinned: frozenset[str] = frozenset()
    ) -> Finding | None:
        """A Status column of a hand-kept table: its word against the computed status."""
        if historical:
            return None
        written = " ".join(cell.text.lower().split())
        status = STATUS_WORDS.get(written)
        if status is None:
            return None
        context = _Context(cell, path, (), experiment, historical, table_row=True, pinned=pinned)
        current = self.standing(experiment, context)
        named = self.facts.experiments[experiment]
        own, _ = self._status_for(current, None)
        if status in (current.status, named.status, own):
            return None
        if current.status in ("Measured", "Untested") and status not in ("Failed", "Works"):
            return None
        start = len(cell.text) - len(cell.text.lstrip())
        shown = self._status_text(current, None, current.status)
        message = f'says "{cell.text.strip()}", but {current.label} {shown}'
        fix = f"<!-- benchdoc:value {current.name} show=status -->{current.status}<!-- benchdoc:end -->"
        return self._finding(context, start, len(cell.text.rstrip()), STALE_VERDICT, message, f"{current.label}: {shown}", fix, current.name)

    def vs_cell(
        self, cell: Unit, path: str, experiment: str, historical: bool, pinned: frozenset[str] = frozenset()
    ) -> Finding | None:
        """A "vs X" column: a signed percentage against the header's experiment (or compare_to)."""
        match = re.search(r"(?<![\w.])([+\-−])?(\d+(?:\.\d+)?)\s*%", cell.text)
        if match is None or match.group(1) is None:
            return None
        context = _Context(cell, path, (), experiment, historical, table_row=True, pinned=pinned)
        named = self.mentions.find(cell.header or "")
        target = named[0].experiment if named else self.standing(experiment, context).compare_to
        if target is None or self.facts.primary_metric not in self.facts.metrics:
            return None
        metric = self.facts.metrics[self.facts.primary_metric]
        sign = -1.0 if match.group(1) in ("-", "−") else 1.0
        claim = Claim(
            start=match.start(), end=match.end(), text_end=match.end(), value=float(match.group(2)),
            decimals=len(match.group(2).split(".")[1]) if "." in match.group(2) else 0, factor=False,
            polarity=SIGNED, sign=sign, bound="approx" if "~" in cell.text[: match.start()] else "exact",
            object_at=None, object_search_start=None, noun="", word="vs",
        )
        actual = self._actual_delta(experiment, target, metric, context)
        claimed = _claimed_intervals(claim, metric)
        if actual is None or claimed is None or _claim_holds(claimed, actual.value, actual.low, actual.high, claim.bound):
            return None
        if historical and self._historical_comparison(experiment, target, metric, claimed, claim.bound, context):
            return None
        delta, low, high, described = actual.value, actual.low, actual.high, actual.described
        interval = f" [{low:+.1f}%, {high:+.1f}%]" if low is not None and high is not None else ""
        message = f"says {match.group().strip()}; the ledger says {delta:+.1f}%{interval} ({_delta_words(delta, metric)})"
        fix = self._claim_fix(self.standing(experiment, context), self.standing(target, context), metric, actual)
        return self._finding(context, match.start(), match.end(), STALE_CLAIM, message, f"{described}: {delta:+.1f}%{interval}", fix,
                             self.standing(experiment, context).name)

    def _verdict_subject(self, context: _Context, verdict: VerdictWord) -> str | None:
        text = context.unit.text
        before = [m for m in context.mentions if m.end <= verdict.start]
        if before:
            mention = before[-1]
            gap = text[mention.end : verdict.start]
            if len(gap) <= _MAX_VERDICT_GAP and not CLAUSE_BREAK.search(gap):
                return mention.experiment
            return None
        if context.row_experiment is not None and not context.mentions:
            return context.row_experiment
        return None

    def _than_target(self, context: _Context, verdict: VerdictWord) -> str | None:
        rest = context.unit.text[verdict.end :]
        match = re.match(r"^\s+(?:than|to|vs\.?|versus|against|from|with)\s+(?:(?:the|a|an)\s+)?", rest, re.IGNORECASE)
        if match is None:
            return None
        at = verdict.end + match.end()
        return next((m.experiment for m in context.mentions if m.start == at), None)

    def _clause_metric(self, clause: str) -> str | None:
        named = [name for name, pattern in self.keywords.items() if pattern is not None and pattern.search(clause)]
        if len(named) == 1 and named[0] != self.facts.primary_metric:
            return named[0]
        return None

    def _status_for(self, current: ExperimentFacts, metric: str | None) -> tuple[str | None, float | None]:
        """The status to judge a verdict by, and the delta in the good direction (positive = better)."""
        name = metric or self.facts.primary_metric
        info = self.facts.metrics.get(name) if name else None
        facts = current.metrics.get(name) if name else None
        goodness = None
        if facts is not None and facts.comparison is not None and info is not None:
            goodness = facts.comparison.delta_pct if info.direction == "higher" else -facts.comparison.delta_pct
        if current.status == "Superseded":
            # Named by its own label: judged by its own last result.
            if facts is None or facts.comparison is None:
                return None, None
            return _VERDICT_STATUS.get(facts.comparison.verdict), goodness
        if metric is None or current.status not in _RAN_OK:
            return current.status, goodness
        if facts is None or facts.comparison is None:
            return None, None
        return _VERDICT_STATUS.get(facts.comparison.verdict), goodness

    def _status_text(self, current: ExperimentFacts, metric: str | None, status: str) -> str:
        """'now works (+3.8% vs Baseline)', 'now fails (CUDA graph incompatible)'."""
        name = metric or self.facts.primary_metric
        facts = current.metrics.get(name) if name else None
        detail = ""
        if status != "Failed" and facts is not None and facts.comparison is not None:
            target = self.facts.experiments.get(facts.comparison.against)
            detail = f" ({facts.comparison.delta_pct:+.1f}% vs {target.label if target else facts.comparison.against})"
        elif current.reason:
            detail = f" ({current.reason})"
        phrase = _STATUS_PHRASES.get(status, f"is now {status}")
        if metric is not None:
            phrase += f" on {self.facts.metrics[metric].label}"
        return phrase + detail

    # -- shared ------------------------------------------------------------------------

    def _experiments_in(self, context: _Context) -> list[str]:
        names = [m.experiment for m in context.mentions]
        if context.row_experiment is not None and context.row_experiment not in names:
            names.insert(0, context.row_experiment)
        return names

    def _scope(self, experiments: Sequence[str], context: _Context | None) -> list[str]:
        """The named experiments and those they are compared with: a sentence may quote either."""
        scope = list(dict.fromkeys(experiments))
        for name in list(scope):
            target = self.standing(name, context).compare_to
            if target and target in self.facts.experiments and target not in scope:
                scope.append(target)
        return scope

    def _nearest(self, context: _Context, position: int) -> str:
        before = [m for m in context.mentions if m.end <= position]
        if before:
            return before[-1].experiment
        if context.row_experiment is not None:
            return context.row_experiment
        after = [m for m in context.mentions if m.start >= position]
        return after[0].experiment if after else context.mentions[0].experiment

    def _finding(
        self, context: _Context, start: int, end: int, kind: str, message: str, ledger: str, fix: str,
        experiment: str, quoted: str | None = None,
    ) -> Finding:
        line, column = context.unit.position(start)
        return Finding(
            file=context.path,
            line=line,
            column=column,
            kind=kind,
            section=context.unit.section_name,
            text=quoted if quoted is not None else context.unit.text[start:end].strip(),
            message=message,
            ledger=ledger,
            fix=fix,
            experiment=experiment,
            sentence=" ".join(context.unit.text.split()),
        )


# -- numbers ---------------------------------------------------------------------------


def _tolerance(decimals: int, digits: int) -> float:
    return 0.5 * 10 ** (-min(decimals, digits)) + 1e-9


def _matches(written: float, value: float, tolerance: float, bound: str) -> bool:
    if bound == "approx":
        return abs(written - value) <= max(tolerance, 0.1 * abs(value))
    if bound == "lower":
        return value >= written - tolerance
    if bound == "upper":
        return value <= written + tolerance
    return abs(written - value) <= tolerance + 1e-9 * abs(value)


def _fmt(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def _history(member: ExperimentFacts, metric: str) -> tuple[RunValue, ...]:
    facts: MetricFacts | None = member.metrics.get(metric)
    return facts.history if facts is not None else ()


def _claimed_intervals(claim: Claim, metric: MetricInfo) -> list[tuple[float, float]] | None:
    """The deltas (candidate/target - 1, in %) the claim allows, one interval per reading of it."""
    half = 0.5 * 10 ** (-claim.decimals)
    low_n, high_n = claim.value - half, claim.value + half
    higher_is_better = metric.direction == "higher"

    def direction(polarity: str) -> float:
        if polarity == SIGNED:
            return claim.sign
        if polarity in (UP, DOWN):
            return 1.0 if polarity == UP else -1.0
        good = polarity == GOOD
        return 1.0 if good == higher_is_better else -1.0

    sign = direction(claim.polarity)
    readings: list[tuple[float, float]] = []
    if claim.factor:
        if low_n <= 0:
            return None
        # "1.5x faster": the ratio itself, or its inverse when the number is meant to fall.
        if sign > 0:
            readings.append(((low_n - 1) * 100, (high_n - 1) * 100))
        else:
            readings.append(((1 / low_n - 1) * 100, (1 / high_n - 1) * 100))
    else:
        readings.append((sign * low_n, sign * high_n))
        if claim.polarity in (GOOD, BAD) and high_n < 100:
            # "A is 40% slower than B" is also said when B is 40% faster than A.
            readings.append(((1 / (1 - sign * low_n / 100) - 1) * 100, (1 / (1 - sign * high_n / 100) - 1) * 100))
    return [(min(a, b), max(a, b)) for a, b in readings]


def _claim_holds(
    claimed: list[tuple[float, float]], delta: float, low: float | None, high: float | None, bound: str
) -> bool:
    actual = [(delta - 0.05, delta + 0.05)]
    if low is not None and high is not None:
        actual.append((min(low, high), max(low, high)))
    for lo, hi in claimed:
        if bound == "approx":
            width = max(1.0, 0.15 * max(abs(lo), abs(hi)))
            lo, hi = lo - width, hi + width
        elif bound == "lower":  # "over 3% faster": at least that far, the same way
            if lo >= 0:
                hi = float("inf")
            else:
                lo = float("-inf")
        elif bound == "upper":  # "up to 5% faster": at most that far, the same way
            if lo >= 0:
                lo = 0.0
            else:
                hi = 0.0
        if any(a <= hi and b >= lo for a, b in actual):
            return True
    return False


def _delta_words(delta: float, metric: MetricInfo) -> str:
    if abs(delta) < 0.05:
        return "no change"
    better = (delta > 0) == (metric.direction == "higher")
    word = metric.better_word if better else metric.worse_word
    return f"{abs(delta):.1f}% {word}"


def _verdict_text(delta: _Delta, metric: MetricInfo, target: str) -> str:
    """What a ``show=verdict`` value region renders for this comparison."""
    from benchdoc.docs.render import verdict_sentence

    return verdict_sentence(
        delta.verdict, delta.value, target,
        better_word=metric.better_word, worse_word=metric.worse_word, margin=metric.equivalence_margin,
    )


def _contradicts(meaning: str, status: str, goodness: float | None) -> bool:
    if meaning == FAILS:
        return status in _RAN_OK
    if meaning == WORKS:
        return status == "Failed"
    if meaning == WINS:
        return status in ("Failed", "Slower", "Worse") or (status == "No difference" and goodness is not None and goodness <= 0)
    if meaning == LOSES:
        return status == "Works" or (status == "No difference" and goodness is not None and goodness >= 0)
    if meaning == SAME:
        return status in ("Works", "Slower", "Worse")
    return False


def _only_filler(noun: str) -> bool:
    return all(word.lower() in ("on", "in", "at", "for", "this", "that", "the", "our", "workload", "setup", "overall", "now", "still", "here", "today")
               for word in noun.split())


def _mention_at(mentions: Iterable[Mention], position: int) -> Mention | None:
    """The mention starting at a position, or spanning it ("than |the default config" when the name has an article)."""
    for mention in mentions:
        if position <= mention.start <= position + 1 or mention.start <= position < mention.end:
            return mention
    return None


def _normalise(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())


def _inside(start: int, end: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < hi and end > lo for lo, hi in spans)


def _keyword_pattern(metric: MetricInfo) -> re.Pattern[str] | None:
    words = set()
    for part in re.split(r"[^A-Za-z0-9-]+", f"{metric.label} {metric.name.replace('_', ' ')}"):
        lowered = part.lower().strip("-")
        if len(lowered) >= 2 and not lowered.isdigit() and lowered not in METRIC_NOISE_WORDS:
            words.add(lowered)
    unit = metric.unit.strip().lower()
    words.discard(unit)
    for spelling in UNIT_SPELLINGS.get(unit, ()):
        words.discard(spelling)
    if not words:
        return None
    alternation = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(r"(?<![A-Za-z0-9-])(?:" + alternation + r")(?![A-Za-z0-9-])", re.IGNORECASE)


def _unit_pattern(unit: str) -> re.Pattern[str] | None:
    key = unit.strip().lower()
    if not key:
        return None
    spellings = {key, *UNIT_SPELLINGS.get(key, ())}
    alternation = "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))
    return re.compile(r"(?<![\w/])(?:" + alternation + r")(?![\w/])", re.IGNORECASE)


def _unique(findings: Iterable[Finding]) -> list[Finding]:
    seen: set[tuple[int, int, str]] = set()
    result = []
    for finding in findings:
        key = (finding.line, finding.column, finding.kind)
        if key not in seen:
            seen.add(key)
            result.append(finding)
    return result
