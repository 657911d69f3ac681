"""Stale verdicts: a verdict word next to an experiment's name that its computed status contradicts.

A verdict word is reported only next to an experiment's name (or in its table row), not
negated, and only when the status computed from the ledger says otherwise: "works" for
an experiment that now fails, "faster" for one now slower, a Status column's word.
"""

from __future__ import annotations

import re

from benchdoc.lint.attribution import Comparison
from benchdoc.lint.claim_reading import NEW_CLAUSE, never_succeeded, no_result_state, without_result
from benchdoc.lint.context import Context
from benchdoc.lint.facts import ExperimentFacts
from benchdoc.lint.findings import STALE_VERDICT, Finding
from benchdoc.lint.knowledge import Knowledge, cite_current, cite_latest
from benchdoc.lint.text import Unit
from benchdoc.lint.verdicts import VerdictWord
from benchdoc.lint.words import (
    CLAUSE_BREAK,
    FAILS,
    HYPOTHETICAL,
    LOSES,
    SAME,
    STATUS_WORDS,
    WINS,
    WORKS,
)
from benchdoc.results.status import Status
from benchdoc.results.words import status_of_verdict, status_phrase, verdict_sentence

_MAX_VERDICT_GAP = 80
# A verdict word that a comparison's verdict sentence can stand in for, when no target follows it.
_BARE_COMPARATIVE = re.compile(r"faster|slower|better|worse", re.IGNORECASE)
_DIRECT = re.compile(r"\s+(?:(?:the|a|an)\s+)?", re.IGNORECASE)
_LINKED = re.compile(r"^\s*(?:than|to|vs\.?|versus|against|from|with|on|at|for|in)\b", re.IGNORECASE)  # characters between an experiment's name and a verdict word about it


_HEAD_OPENING = re.compile(r"\s*[*_]*\s*[:—–]")
# "faster to restart", "better to wait": the speed or merit of doing something else, not a result.
_TO_INFINITIVE = re.compile(r"\s+to\s+(?!first\b|the\b|a\b|an\b|its\b|their\b)[a-z]+", re.IGNORECASE)
# "same throughput", "equal TTFT": the sentence itself says where there is no difference.
_SAME_AS_NAMED = re.compile(r"(?<![\w-])(?:(?:the\s+)?same|equal|identical|matching)\s+(?P<what>[\w/ -]{1,30})", re.IGNORECASE)
# What a bare "faster" or "better" is judged on, named without the primary metric's own words.
_BARE_SPEED = re.compile(r"(?:throughput|speed|performance|perf)\b", re.IGNORECASE)
# A coordinated clause whose verb is its own, with no subject repeated: "... faster than BF16 and needs
# 41% less memory". Its metric is not the verdict's.
_OWN_VERB = re.compile(r"\s(?:and|but)\s+(?:also\s+|only\s+)?[a-z]+s\s+(?=~?\d|about\b|roughly\b|only\b|just\b|less\b|"
                       r"more\b|fewer\b|half\b|twice\b|a\b|an\b|the\b)", re.IGNORECASE)

# A verdict under a condition named right after it: "net-negative only if the model is sensitive".
_CONDITION_AFTER = re.compile(r"\s*,?\s*(?:(?:only\s+|just\s+)?(?:if|unless|when|whenever|provided|as\s+long\s+as)\b|"
                              r"with\s+[\w.-]+\s*(?:=|<|>|≤|≥)\s*\S)", re.IGNORECASE)
# A verdict that takes its target right after it ("beats X", "on par with X"), or after "than"/"vs" ("faster than X").
_TAKES_TARGET = re.compile(r"beats|outperforms|ahead of|loses to|lags(?: behind)?|trails|on par with|equivalent to|"
                           r"the same as|indistinguishable from", re.IGNORECASE)
_THAN_LINK = re.compile(r"\s+(?:than|vs\.?|versus|against)\s+", re.IGNORECASE)
# What the ledger's own comparison stands for, when a verdict's target is not named: "than the baseline".
_ROLE_TARGET = re.compile(r"(?:(?:the|our|its|their)\s+)?(?:baseline|reference|default)s?\b", re.IGNORECASE)
# "pays for that speed-up", "this speedup": a noun pointing back at a claim made before, not a new one.
_POINTS_BACK = re.compile(r"(?<![\w-])(?:that|this|those|these|such|the\s+same)\s+$", re.IGNORECASE)
_VERDICT_NOUN = re.compile(r"speed-?up|(?:the\s+)?(?:clear\s+)?winner", re.IGNORECASE)


class VerdictRule:
    """Verdict words in sentences, and the Status column of a hand-kept table."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.know = knowledge
        self.facts = knowledge.facts

    def verdict(self, context: Context, verdict: VerdictWord) -> Finding | None:
        text = context.unit.text
        subject = self._verdict_subject(context, verdict)
        if subject is None:
            return None
        clause_start, clause_end = context.clause(verdict.start)
        if verdict.meaning in (WINS, LOSES) and _TO_INFINITIVE.match(text, verdict.end):
            return None
        current = self.know.standing(subject, context)
        meaning = verdict.meaning
        target = self._than_target(context, verdict)
        if target is None and (meaning == SAME or _TAKES_TARGET.fullmatch(text[verdict.start : verdict.end])):
            target = self._direct_target(context, verdict)  # "equivalent to X", "on par with X", "beats X"
        if target is None and meaning in (WINS, LOSES, SAME) and _unnamed_target(text, verdict, context):
            return None  # "beats pure PP", "faster than before": compared with what the ledger does not name
        elsewhere = target is not None and self.know.standing(target, context).name != current.compare_to
        if without_result(current) and meaning in (WINS, LOSES, SAME, WORKS) and (
            current.status is Status.UNTESTED or current.unreliable is not None or elsewhere
        ):
            # Never run, unreliable, or compared with something other than its compare_to: the status does not say.
            return self._about_no_result(context, verdict, current)
        if target is not None and meaning in (WINS, LOSES, SAME) and without_result(self.know.standing(target, context)):
            return self._about_no_result(context, verdict, self.know.standing(target, context))
        metric = self._clause_metric(_own_part(context.plain, clause_start, verdict.end, clause_end))
        if target is not None and meaning in (WINS, LOSES, SAME):
            target_current = self.know.standing(target, context)
            if not self._pair_of(current, target_current):
                # Compared with what it is not compared with: the query layer's comparison of the pair says.
                return self._pair_verdict(context, verdict, current, target_current, metric)
            if target_current.compare_to == current.name and current.compare_to != target_current.name:
                current = target_current
                meaning = {WINS: LOSES, LOSES: WINS}.get(meaning, meaning)
        status, delta = self._status_for(current, metric)
        if status is None or not _contradicts(meaning, status, delta):
            return None
        if status is Status.NO_DIFFERENCE and self._says_same(context.plain, metric):
            return None  # "the better choice for short prompts: same throughput, ...": better at something else
        if context.historical or HYPOTHETICAL.search(context.plain[clause_start : verdict.start]):
            return None
        if _conditional_or_pointing_back(text, verdict):
            return None
        quoted = text[verdict.start : verdict.end]
        shown = self._status_text(current, metric, status)
        message = f'says "{quoted}", but {current.label} {shown}'
        if current.name != subject:
            message += f" (it supersedes {self.facts.experiments[subject].label})"
        fix = self._prose_fix(context, verdict, current, metric, shown)
        return context.finding(verdict.start, verdict.end, STALE_VERDICT, message, f"{current.label}: {shown}", fix, current.name)

    def _prose_fix(
        self, context: Context, verdict: VerdictWord, current: ExperimentFacts, metric: str | None, shown: str
    ) -> str:
        """A fix that reads as a sentence once applied, else words to write by hand (no region).

        Only a bare comparative ("EAGLE-3 is faster.") can take a region in its place: the
        comparison's verdict sentence ("3.8% faster than Baseline") fills the same slot. A status
        word ("Works") in place of "is broken" or "doesn't work" would not read, so those get none.
        """
        name = metric or self.facts.primary_metric
        info = self.facts.metrics.get(name) if name else None
        facts = current.metrics.get(name) if name else None
        comparison = facts.comparison if facts is not None else None
        quoted = context.unit.text[verdict.start : verdict.end]
        rest = context.unit.text[verdict.end :]
        if (
            info is not None and comparison is not None and comparison.verdict in ("better", "worse")
            and _BARE_COMPARATIVE.fullmatch(quoted) and not _LINKED.match(rest)
        ):
            other = self.facts.experiments.get(comparison.against)
            text = verdict_sentence(comparison.verdict, comparison.delta_pct,
                                    other.label if other else comparison.against, metric=info,
                                    margin=info.equivalence_margin)
            metric_part = "" if info.name == self.facts.primary_metric else f".{info.name}"
            return (f'write "{text}", or bind it: <!-- benchdoc:value {current.name}{metric_part} show=verdict -->'
                    f"{text}<!-- benchdoc:end -->")
        return f'no fix proposed: reword it, e.g. "{current.label} {shown}"'

    def _about_no_result(self, context: Context, verdict: VerdictWord, party: ExperimentFacts) -> Finding | None:
        """"Mooncake is faster than 1P1D" when Mooncake never ran successfully (against anyone)."""
        text = context.unit.text
        clause_start, _ = context.clause(verdict.start)
        history = context.historical and not never_succeeded(self.facts, party.name)
        if history or HYPOTHETICAL.search(context.plain[clause_start : verdict.start]):
            return None
        if party.status is Status.FAILED and verdict.meaning == LOSES:
            return None  # "not worth it", "a regression": what a failure also says
        quoted = text[verdict.start : verdict.end]
        state = no_result_state(party)
        message = f'says "{quoted}", but the ledger has no successful result to judge: {state}'
        return context.finding(verdict.start, verdict.end, STALE_VERDICT, message, state,
                               f"no fix proposed: reword it; {state}", party.name)

    def cell(
        self, cell: Unit, path: str, experiment: str, historical: bool, pinned: frozenset[str] = frozenset()
    ) -> Finding | None:
        """A Status column of a hand-kept table: its word against the computed status."""
        if historical:
            return None
        written = " ".join(cell.text.lower().split())
        status = STATUS_WORDS.get(written)
        if status is None:
            return None
        context = Context(cell, path, (), experiment, historical, table_row=True, pinned=pinned)
        current = self.know.standing(experiment, context)
        named = self.facts.experiments[experiment]
        own, _ = self._status_for(current, None)
        if status in (current.status, named.status, own):
            return None
        undecided = (Status.MEASURED, Status.UNTESTED)
        if current.status in undecided and status not in (Status.FAILED, Status.WORKS):
            return None
        if status is Status.WORKS and current.status is Status.NO_DIFFERENCE and written == cell.text.strip():
            # Lower case, "works" is the plain word (it runs and does its job), which no difference does not
            # contradict; "Works" as the status column spells it is the ledger's word, which it does.
            return None

        start = len(cell.text) - len(cell.text.lstrip())
        shown = self._status_text(current, None, current.status)
        message = f'says "{cell.text.strip()}", but {current.label} {shown}'
        fix = f"<!-- benchdoc:value {current.name} show=status -->{current.status}<!-- benchdoc:end -->"
        return context.finding(start, len(cell.text.rstrip()), STALE_VERDICT, message, f"{current.label}: {shown}", fix, current.name)

    def _verdict_subject(self, context: Context, verdict: VerdictWord) -> str | None:
        text = context.unit.text
        before = [m for m in context.mentions if m.end <= verdict.start]
        if before:
            mention = before[-1]
            gap = text[mention.end : verdict.start]
            if len(gap) <= _MAX_VERDICT_GAP and not CLAUSE_BREAK.search(gap):
                return mention.experiment
            head = _HEAD_OPENING.match(gap)
            if (len(before) == 1 and head is not None and not CLAUSE_BREAK.search(gap, head.end())
                    and not text[: mention.start].strip(" -*>[]x")):
                # "sha256: no difference from ...", "NVFP4: 11,800 tok/s, our fastest yet": the head of a line
                return mention.experiment
            return None
        if context.row_experiment is not None and not context.mentions:
            return context.row_experiment
        return None

    def parties(self, context: Context, verdict: VerdictWord) -> Comparison | None:
        """Who a comparative verdict compares ("2710 tok/s, ahead of the 8k budget"), when it names both."""
        if verdict.meaning not in (WINS, LOSES) or verdict.negated:
            return None
        subject = self._verdict_subject(context, verdict)
        target = self._than_target(context, verdict)
        if target is None:  # "ahead of X", "beats X": the phrase takes its target directly
            direct = _DIRECT.match(context.unit.text, verdict.end)
            target = next((m.experiment for m in context.mentions if direct and m.start == direct.end()), None)
        if subject is None or target is None or subject == target:
            return None
        return Comparison(verdict.start, subject, target)

    def _pair_verdict(
        self, context: Context, verdict: VerdictWord, current: ExperimentFacts, target: ExperimentFacts, metric: str | None
    ) -> Finding | None:
        """"Outlines is on par with xgrammar", both compared with a third: judged by the pair's own comparison,
        which lies outside the compare_to family (no correction for multiple comparisons)."""
        name = metric or self.facts.primary_metric
        info = self.facts.metrics.get(name) if name else None
        comparison = self.facts.pair(current.name, target.name, name) if name else None
        if info is None or comparison is None:
            return None
        status = status_of_verdict(comparison.verdict)
        goodness = comparison.delta_pct if info.direction == "higher" else -comparison.delta_pct
        if status is None or not _contradicts(verdict.meaning, status, goodness):
            return None
        clause_start, _ = context.clause(verdict.start)
        if context.historical or HYPOTHETICAL.search(context.plain[clause_start : verdict.start]):
            return None
        quoted = context.unit.text[verdict.start : verdict.end]
        shown = (f"{status_phrase(status)} against {target.label} on {info.label} ({comparison.delta_pct:+.1f}%, "
                 f"a pair outside the compare_to family; {cite_current(current)})")
        message = f'says "{quoted}", but {current.label} {shown}'
        return context.finding(verdict.start, verdict.end, STALE_VERDICT, message, f"{current.label}: {shown}",
                               f'no fix proposed: reword it, e.g. "{current.label} {shown}"', current.name)

    def _direct_target(self, context: Context, verdict: VerdictWord) -> str | None:
        """The name right after a phrase that takes its target itself ("equivalent to X", "beats X")."""
        direct = _DIRECT.match(context.unit.text, verdict.end)
        return next((m.experiment for m in context.mentions if direct and m.start == direct.end()), None)

    @staticmethod
    def _pair_of(current: ExperimentFacts, target: ExperimentFacts) -> bool:
        """Whether the two are a comparison the status speaks of: one is the other's compare_to."""
        return current.compare_to == target.name or target.compare_to == current.name

    def _than_target(self, context: Context, verdict: VerdictWord) -> str | None:
        rest = context.unit.text[verdict.end :]
        match = re.match(r"^\s+(?:than|to|vs\.?|versus|against|from|with)\s+(?:(?:the|a|an)\s+)?", rest, re.IGNORECASE)
        if match is None:
            return None
        at = verdict.end + match.end()
        return next((m.experiment for m in context.mentions if m.start == at), None)

    def _says_same(self, plain: str, metric: str | None) -> bool:
        """Whether the sentence says there is no difference in the metric a verdict is judged on."""
        pattern = self.know.keywords.get(metric or self.facts.primary_metric or "")
        for found in _SAME_AS_NAMED.finditer(plain):
            what = found.group("what")
            if (pattern is not None and pattern.search(what)) or (metric is None and _BARE_SPEED.match(what)):
                return True
        return False

    def _clause_metric(self, clause: str) -> str | None:
        named = [name for name, pattern in self.know.keywords.items() if pattern is not None and pattern.search(clause)]
        if len(named) == 1 and named[0] != self.facts.primary_metric:
            return named[0]
        return None

    def _status_for(self, current: ExperimentFacts, metric: str | None) -> tuple[Status | None, float | None]:
        """The status to judge a verdict by, and the delta in the good direction (positive = better)."""
        name = metric or self.facts.primary_metric
        info = self.facts.metrics.get(name) if name else None
        facts = current.metrics.get(name) if name else None
        goodness = None
        if facts is not None and facts.comparison is not None and info is not None:
            goodness = facts.comparison.delta_pct if info.direction == "higher" else -facts.comparison.delta_pct
        if current.status is Status.SUPERSEDED:
            # Named by its own label: judged by its own last result.
            if facts is None or facts.comparison is None:
                return None, None
            return status_of_verdict(facts.comparison.verdict), goodness
        if metric is None or not current.status.ran:
            return current.status, goodness
        if facts is None or facts.comparison is None:
            return None, None
        return status_of_verdict(facts.comparison.verdict), goodness

    def _status_text(self, current: ExperimentFacts, metric: str | None, status: Status) -> str:
        """'now works (+3.8% vs Baseline)', 'now fails (CUDA graph incompatible)'."""
        name = metric or self.facts.primary_metric
        facts = current.metrics.get(name) if name else None
        detail = ""
        if status is not Status.FAILED and facts is not None and facts.comparison is not None:
            target = self.facts.experiments.get(facts.comparison.against)
            detail = (f" ({facts.comparison.delta_pct:+.1f}% vs {target.label if target else facts.comparison.against}, "
                      f"{cite_current(current)})")
        elif current.reason or current.runs:
            detail = " (" + ", ".join(part for part in (current.reason, cite_latest(current)) if part) + ")"
        phrase = status_phrase(status)
        if metric is not None:
            phrase += f" on {self.facts.metrics[metric].label}"
        return phrase + detail


def _contradicts(meaning: str, status: Status, goodness: float | None) -> bool:
    no_difference = status is Status.NO_DIFFERENCE
    if meaning == FAILS:
        return status.ran
    if meaning == WORKS:
        return status is Status.FAILED
    if meaning == WINS:
        return (status is Status.FAILED or status.loses or status is Status.INCONCLUSIVE
                or (no_difference and goodness is not None and goodness <= 0))
    if meaning == LOSES:
        return (status is Status.WORKS or status is Status.INCONCLUSIVE
                or (no_difference and goodness is not None and goodness >= 0))
    if meaning == SAME:
        # "on par with 570" of one whose latest run failed: it has no result to be on par with.
        return status is Status.WORKS or status.loses or status is Status.FAILED
    return False


def _unnamed_target(text: str, verdict: VerdictWord, context: Context) -> bool:
    """Whether words after a verdict give it a target that is no experiment's name ("beats pure PP")."""
    if _TAKES_TARGET.fullmatch(text[verdict.start : verdict.end]):
        at = verdict.end
    else:
        link = _THAN_LINK.match(text, verdict.end)
        if link is None:
            return False
        at = link.end()
    at += len(text[at:]) - len(text[at:].lstrip())
    rest = text[at:]
    if not rest or not (rest[0].isalnum() or rest[0] in "`'\"") or any(m.start <= at < m.end for m in context.mentions):
        return False
    article = re.match(r"(?:the|a|an)\s+", rest, re.IGNORECASE)
    if article is not None and any(m.start == at + article.end() for m in context.mentions):
        return False  # "beats the TP8 build": a name after an article
    return _ROLE_TARGET.match(rest) is None and not re.match(r"(?:on|in|at|for|by|across|under)\b", rest, re.IGNORECASE)


def _conditional_or_pointing_back(text: str, verdict: VerdictWord) -> bool:
    """"net-negative only if ...": a condition, not a result; "pays for that speed-up": a claim made before."""
    if _CONDITION_AFTER.match(text, verdict.end):
        return True
    return bool(_VERDICT_NOUN.fullmatch(text[verdict.start : verdict.end]) and _POINTS_BACK.search(text[: verdict.start]))


def _own_part(plain: str, start: int, verdict_end: int, end: int) -> str:
    """The words of a verdict's clause that are its own: up to a coordinated clause with a verb of its own."""
    for pattern in (NEW_CLAUSE, _OWN_VERB):
        found = pattern.search(plain, verdict_end, end)
        if found is not None:
            end = found.start()
    return plain[start:end]
