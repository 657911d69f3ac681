"""The parts of a comparative claim: which metric it is about, who is compared with whom.

:mod:`benchdoc.lint.claims` reads a claim's shape (its number, its direction, where its
explicit target starts). This module reads the rest of the sentence for the other parts:

- **The metric**, named anywhere in the claim's clause, by a word of its label or by its
  unit ("+11% tok/s", "1.2x slower than FP16 on TTFT p99", "TTFT p99 is 8% lower ..."):
  the one named in the claim's own stretch of the clause (between the claims next to it)
  before it, else after it; a table cell's column header; else the primary metric when
  the clause names no other. When several metrics could be meant, every one is a
  candidate and the claim is only reported when it is false of all of them, with no fix.
- **The subject**: named before the claim, or between its word and its link ("8% lower
  with chunked prefill than without"), or, for a sentence that names only the target
  ("vs TP8: ITL p50 -31%"), the experiment the sentence before it in the same paragraph
  named. A subject taken from another sentence is an inference: reported without a fix.
- **The target**: named after the link ("than X", "over X", "X's"; "FP8 KV ... than BF16's" names
  BF16 KV, the last word of the subject's name left out), or by a "vs X" at the
  head of the sentence for a bare signed change ("vs TP8: +11% tok/s"), or the subject's
  ``compare_to``.

It also knows which experiments have no successful result to make a claim about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from benchdoc.lint.claims import SIGNED, UP, Claim
from benchdoc.lint.context import Context
from benchdoc.lint.facts import ExperimentFacts, LintFacts, MetricInfo
from benchdoc.lint.knowledge import (
    PERCENTILE,
    PERCENTILE_AFTER,
    Knowledge,
    cite_current,
    cite_latest,
    label_percentile,
    matches,
    tolerance,
)
from benchdoc.lint.quantities import Quantity
from benchdoc.lint.words import GENERIC_UNITS
from benchdoc.results.status import Status
from benchdoc.results.words import status_phrase

# A "vs X" heading a sentence of bare changes: "vs TP8: +11% tok/s, TTFT p99 -23%".
VS_PREFIX = re.compile(
    r"(?:^|[\s(])(?:vs\.?|versus|against|over|relative to|compared (?:to|with)|(?:in )?comparison (?:to|with)|next to|unlike|"
    # "cannot be told apart from X", "indistinguishable from X", "cannot tell A from X": X is what A is compared with
    r"equivalent to|on par with|same as|identical to|"  # "generation equivalent to X, prompt processing up 9%"
    r"told apart from|indistinguishable from|(?<=tell )[\w.+-]+(?: [\w.+-]+)? from)\s+(?:the\s+)?$", re.IGNORECASE
)

# "runs at 410 GB/s", "sits at 5.1 req/s", "peaks at 3,900 tok/s": a verb of a result before "at" makes the
# figure after it the subject's result, not the load it is measured under.
_RESULT_VERBS = ("run", "runs", "ran", "sit", "sits", "sat", "land", "lands", "landed", "peak", "peaks", "peaked",
                 "stay", "stays", "stayed", "settle", "settles", "settled", "plateau", "plateaus", "plateaued",
                 "come in", "comes in", "came in", "top out", "tops out", "topped out", "is", "was", "are", "were")
_NOT_A_RESULT = "".join(rf"(?<!\b{verb} )" for verb in _RESULT_VERBS)
_AT_BEFORE = re.compile(_NOT_A_RESULT + r"\b(?:at|@)\s*~?$", re.IGNORECASE)
# "at 6 req/s": the load a claim is made under, whose unit names no metric of the claim.
_AT_FIGURE = re.compile(r"(?:" + _NOT_A_RESULT + r"\bat|@)\s*~?\d[\d.,]*k?\s*[A-Za-z][\w/]*", re.IGNORECASE)

# A coordinated clause with a verb of its own: "... and goodput is 11.70 req/s".
NEW_CLAUSE = re.compile(r"\s(?:and|but|while|whereas)\s+(?:the\s+|its\s+|their\s+)?[\w /-]{1,30}?\s"
                         r"(?:is|are|was|were|stays?|stayed|reach(?:es|ed)?|sits?|hits?|holds?)\b", re.IGNORECASE)

# A signed change in parentheses right after "... than X" states that comparison's size.
# "equivalent with X (-0.3%)", "on par with X (+0.4%)": the same for a comparison said to find no difference.
_THAN_BEFORE = re.compile(r"\b(?:than|over|equivalent (?:with|to)|on par with|identical to|same as)\s+(?:the\s+)?$",
                          re.IGNORECASE)
_ANNOTATES = re.compile(r"^\s*(?:alone|itself|on its own)?\s*[(\[]\s*$", re.IGNORECASE)


# "DP8/TP8 = 1.6": two named experiments, a slash, then the ratio (not followed by a unit).
_SLASH = re.compile(r"\s*/\s*")
_RATIO_AFTER = re.compile(
    r"(?:\s+(?:[A-Za-z][\w-]*\s+){0,3}?(?:ratio\s*)?(?P<sep>=|:|is|of|≈|~)|\s*(?P<sign>=|:|≈|~))\s*(?P<approx>≈|~|about\s+)?\s*"
    r"(?P<num>\d+(?:\.\d+)?)\s*[x×]?(?![\w.%/])(?!\s*(?:%|ms\b|s\b|us\b|µs\b|[A-Za-z]+/s\b|tok|req|GB|W\b|percent))",
)

# "from 54.1 to 96.1 tok/s (+77.6%)", "54.1 → 96.1": one experiment's before and after.
_BEFORE_AFTER = re.compile(r"\bfrom\s+~?[\d.,]+k?\b[^.;]{0,20}?\bto\s+~?[\d.,]+|[\d.,]+\s*\S{0,6}\s*(?:→|->|=>|⟶)\s*[\d.,]+",
                           re.IGNORECASE)


def before_after(claim: Claim, text: str) -> tuple[str, str] | None:
    """The two figures ("1100", "1300") of the before/after a bare signed change follows, if it follows one."""
    if not is_change_of_one(claim, text):
        return None
    found = list(_BEFORE_AFTER.finditer(text[: claim.start]))[-1].group(0)
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", found)
    return (numbers[0], numbers[-1]) if len(numbers) >= 2 else None


def is_change_of_one(claim: Claim, text: str) -> bool:
    """A bare signed change that states the before/after it follows, not a comparison of two."""
    return claim.polarity == SIGNED and not claim.word and bool(_BEFORE_AFTER.search(text[: claim.start]))


# Words that make a number in a metric's unit a setting of the load: "offered", "arrival rate", "SLO".
_LOAD_BEFORE = re.compile(
    r"(?:\b(?:offered|arrivals?(?: rate)?|request rate|load(?: of)?|SLO(?: of)?|objective(?: of)?|rate=|"
    r"concurrency(?: of)?|sending|send|at a rate of|poisson(?: rate)?(?: of)?)|[@=])\s*(?:of\s+)?(?:~\s*)?$",
    re.IGNORECASE,
)
_LOAD_AFTER = re.compile(
    r"^\s*(?:offered|of (?:offered )?load|arrivals?|arrival rate|request rate|SLO|objective|deadline|budget|"
    r"(?:TTFT |ITL |TPOT |latency )?(?:SLO|target|objective))\b",
    re.IGNORECASE,
)
# Which workload settings a unit can quote.
_LOAD_KEYS = {
    "req/s": re.compile(r"rate|qps|req_s", re.IGNORECASE),
    "ms": re.compile(r"_ms$", re.IGNORECASE),
    "s": re.compile(r"(?:_s|duration)$", re.IGNORECASE),
    "tok/s": re.compile(r"tok_s$", re.IGNORECASE),
}


def is_load_setting(facts: LintFacts, context: Context, quantity: Quantity, experiments: list[str]) -> bool:
    """Whether a number in a metric's unit describes the load (a rate offered, an SLO threshold), not a result.

    Told by the words next to it ("6 req/s offered", "the 2,000 ms SLO"), or by its value being
    a setting of the workload of an experiment the sentence names, in a unit that setting has.
    """
    text = context.unit.text
    if _LOAD_BEFORE.search(text[max(0, quantity.start - 30) : quantity.start]) or _LOAD_AFTER.match(
        text[quantity.unit_end :]
    ):
        return True
    keys = [pattern for unit, pattern in _LOAD_KEYS.items() if unit in quantity.units]
    if not keys:
        return False
    for name in experiments:
        for key, value in facts.experiments[name].load if name in facts.experiments else ():
            if any(p.search(key) for p in keys) and matches(quantity.value, value, tolerance(quantity.decimals, 6), "exact"):
                return True
    return False


# Two metrics named together, the claim about either: "goodput and TTFT p95 by 20%".
_JOINED = re.compile(r"^[\w -]{0,20}?\s*(?:and|or|/|&|,)\s+[\w -]{0,20}?\s(?:by|are|is|both|improve|drop|fall|rise)",
                     re.IGNORECASE)


# Words before a claim that are not a subject of their own ("vs TP8:", "rate=4:", "at 4 req/s").
_NAME_WORD = re.compile(r"[A-Za-z0-9][\w.+-]*(?<![.])")
_NO_SUBJECT_WORDS = frozenset((
    "vs", "versus", "against", "over", "relative", "to", "compared", "with", "the", "and", "at", "on", "in",
    "for", "is", "are", "its", "rate", "concurrency", "qps", "load", "req", "tok", "ms", "s", "x", "p50",
    "p90", "p95", "p99", "then", "now", "here", "so", "also", "e2e",
))


@dataclass(frozen=True)
class MetricReading:
    """The metrics a claim may be about; ``certain`` when the words name exactly one."""

    candidates: tuple[MetricInfo, ...]
    certain: bool
    default: bool = False  # no metric named: the primary one, by default


def without_result(experiment: ExperimentFacts) -> bool:
    """Whether an experiment has no successful result a performance claim could be about:
    its latest run failed, it never ran (or every run was retracted), or its result is unreliable."""
    return experiment.status in (Status.FAILED, Status.UNTESTED) or experiment.unreliable is not None


def never_succeeded(facts: LintFacts, name: str) -> bool:
    """Whether no experiment of a line has any run the ledger counts (never run, or every run
    retracted): a past-tense figure of it ("reached 4,950 tok/s last month") cannot be its
    history either. A line that ran and failed may have worked before its failures were
    recorded ("reached 1,450 tok/s before the capture bug"): that stays history."""
    return all(e.status is Status.UNTESTED and not any(m.history for m in e.metrics.values())
               for e in facts.lineage(name))


def no_result_state(experiment: ExperimentFacts) -> str:
    """What the ledger says instead: 'Mooncake now fails: RDMA device not found (run #7 of 2026-10-10)'."""
    if experiment.status is Status.UNTESTED:
        ok_before = ""
    else:
        ok_before = "" if not any(m.history for m in experiment.metrics.values()) else ", after earlier successful runs"
    reason = f": {experiment.reason}" if experiment.reason and experiment.status is Status.FAILED else ""
    latest = cite_latest(experiment)
    where = f" ({latest}{ok_before})" if latest else ""
    if experiment.status is Status.UNTESTED:
        return f"{experiment.label} has no counted run (never run, or every run retracted)"
    if experiment.unreliable is not None and experiment.status not in (Status.FAILED,):
        return f"{experiment.label}'s result is unreliable: {experiment.unreliable} ({cite_current(experiment)})"
    return f"{experiment.label} {status_phrase(experiment.status)}{reason}{where}"


class ClaimReader:
    """Reads a claim's metric, subject and target from its sentence."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.know = knowledge
        self.facts = knowledge.facts
        self._unit_owner = _unit_owners(self.facts.metrics.values())
        self._labels = [(m.name, re.compile(r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in m.label.split()) + r"(?![\w-])",
                                            re.IGNORECASE)) for m in self.facts.metrics.values() if len(m.label.split()) >= 2]

    # -- the metric ------------------------------------------------------------------

    def metrics_in(self, text: str) -> list[tuple[int, MetricInfo]]:
        """(position, metric) of every metric a text names by a word of its label or by its own unit.

        A percentile after the word picks among metrics that share it ("TTFT p50" is not TTFT p99), and a
        percentile alone names the metric of that percentile whose word the text named before it
        ("TTFT p50 151 ms, p99 420 ms")."""
        found: list[tuple[int, MetricInfo]] = []
        wholes = self._whole_labels(text)
        for metric in self.facts.metrics.values():
            pattern = self.know.keywords.get(metric.name)
            for match in pattern.finditer(text) if pattern else ():
                if any(lo <= match.start() < hi and name != metric.name for lo, hi, name in wholes):
                    continue  # "resident memory" names Resident memory whole, not Memory bandwidth by "memory"
                given = PERCENTILE_AFTER.match(text, match.end())
                own = label_percentile(metric.label)
                if given is None or own is None or given.group(1).lower() == own:
                    found.append((match.start(), metric))
            if self._unit_owner.get(metric.unit.strip().lower()) == metric.name:
                unit = self.know.unit_words.get(metric.name)
                for match in unit.finditer(text) if unit else ():
                    found.append((match.start(), metric))
        for alone in _PERCENTILE_ALONE.finditer(text):
            earlier = {m.name for at, m in found if at < alone.start()}
            fits = [m for m in self.facts.metrics.values() if label_percentile(m.label) == alone.group(1).lower()
                    and any(_stem(m.label) == _stem(self.facts.metrics[e].label) for e in earlier)]
            if len(fits) == 1 and not any(at <= alone.start() < at + 12 and m.name == fits[0].name for at, m in found):
                found.append((alone.start(), fits[0]))
        return sorted(found, key=lambda item: item[0])

    def _whole_labels(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, metric) of every label a text holds whole, when that label has several words."""
        spans = [(m.start(), m.end(), name) for name, pattern in self._labels for m in pattern.finditer(text)]
        # a label inside a longer one is no label of its own there
        return [s for s in spans if not any(o[0] <= s[0] and s[1] <= o[1] and o[1] - o[0] > s[1] - s[0] for o in spans)]

    def metric(self, context: Context, claim: Claim, neighbours: list[Claim]) -> MetricReading | None:
        """The metric of a claim from the words of its clause (see the module's docstring)."""
        clause_start, clause_end = context.clause(claim.start)
        # An earlier claim's own words run to the next comma ("1.5x eager tok/s, 1.4x eager TTFT").
        earlier = [_tail_end(context.unit.text, c.text_end, claim.start) for c in neighbours
                   if c.start < claim.start and c.text_end > clause_start]
        later = [c.start for c in neighbours if c.start > claim.start and c.start < clause_end]
        lo = max([clause_start, *earlier])
        hi = min([clause_end, *later])
        plain = _AT_FIGURE.sub(lambda m: " " * len(m.group()), self._blank_owned_after(context.plain, claim.text_end))
        inside = {m.name: m for at, m in self.metrics_in(plain[claim.start : claim.text_end])}
        if len(inside) == 1:
            return MetricReading(tuple(inside.values()), True)  # "DP8/TP8 TTFT ratio: 1.2"
        # "X's memory is 12 GB, 33% lower than Y's": Y's memory, the noun the possessive target leaves out
        elided = claim.object_at is not None and bool(_ELIDED_NOUN.match(context.unit.text, claim.object_at, clause_end))
        before = self._named_before(plain[lo : claim.start], elided)
        if before is not None:
            return before
        hi, limit = _own_ends(plain, claim, later, hi, clause_end)
        after = [m for at, m in self.metrics_in(plain[claim.text_end : hi])]
        if after:
            return MetricReading((after[0],), True)
        whole = list(dict.fromkeys(m.name for at, m in self.metrics_in(plain[clause_start:limit])))
        if len(whole) == 1:
            return MetricReading((self.facts.metrics[whole[0]],), True)
        if len(whole) > 1:
            return MetricReading(tuple(self.facts.metrics[name] for name in whole), False)
        opened = plain[:clause_start].rstrip()
        if opened.endswith(")") and "(" in opened:
            # "CB's goodput (7.50 req/s) is 25% above static's": an aside does not end the clause before it.
            outer_start, _ = context.clause(opened.rfind("("))
            outer = self.metrics_in(plain[outer_start : opened.rfind("(")])
            if outer:
                return MetricReading((outer[-1][1],), len({m.name for at, m in outer}) == 1)
        if opened.endswith(":") and clause_start > 1:
            # "TTFT p50: -25%": a label before a colon names the metric of the change after it.
            label_end = _label_end(opened)
            label_start, _ = context.clause(label_end)
            labelled = {m.name: m for at, m in self.metrics_in(plain[label_start:label_end])}
            if labelled:  # several when a word of the label is another's too ("prompt processing", "TTFT (4k prompt)")
                return MetricReading(tuple(labelled.values()), len(labelled) == 1)
        if opened.endswith(("(", "[")) and clause_start > 1:
            # "TTFT p95 270 ms (-10%)": a parenthesis annotates the figure before it.
            outer_start, _ = context.clause(len(opened) - 1)
            outer = self.metrics_in(plain[outer_start : len(opened) - 1])
            if outer:
                return MetricReading((outer[-1][1],), True)
            further = self.metrics_in(plain[: len(opened) - 1])
            if further:  # "ttft worse: 360ms (1.2x eager)": the last metric named before, not certain
                return MetricReading((further[-1][1],), False)
        carried = self._carried(context, claim, neighbours)
        if carried is not None:
            return carried
        return self._default_metric(context, plain[clause_start:limit], plain[:clause_start])

    def _blank_owned_after(self, plain: str, end: int) -> str:
        """The text with each metric named after a claim blanked, with the figure it owns: "20% slower than X, with
        ITL p99 at 61 ms", "6% faster than X with a 193 s cold start" name the figure's metric, not the claim's."""
        figures = [q for q in self.know.quantities.find(plain[end:]) if q.units - {"%"}]
        if not figures:
            return plain
        for at, metric in self.metrics_in(plain[end:]):
            unit = metric.unit.strip().lower()
            for figure in (q for q in figures if unit in q.units):
                after = 0 <= figure.start - at <= 32 and _OWNS_AFTER.fullmatch(plain[end + at : end + figure.start])
                before = 0 <= at - figure.unit_end <= 2
                if after or before:
                    # the name's words too ("cold start" is found by each of its words), up to the clause's end
                    stop = re.search(r"[,;]|\.(?!\d)", plain[end + at :])
                    name_end = at + min(len(metric.label), stop.start() if stop else len(metric.label))
                    lo, hi = end + min(at, figure.start), end + max(figure.unit_end, name_end)
                    plain = plain[:lo] + " " * (hi - lo) + plain[hi:]
                    break
        return plain

    def _carried(self, context: Context, claim: Claim, neighbours: list[Claim]) -> MetricReading | None:
        """A later claim of a list that names no metric ("TTFT p95 is 645 ms, 1.5x A's, and 1.4x B's") may be
        of the metric the claim before it is of: that one and the primary are candidates, with no fix."""
        earlier = [c for c in neighbours if c.text_end <= claim.start]
        if not earlier:
            return None
        reading = self.metric(context, earlier[-1], neighbours)
        primary = self.facts.metrics.get(self.facts.primary_metric or "")
        if reading is None or reading.default or primary is None:
            return None
        names = {m.name: m for m in (*reading.candidates, primary)}
        return MetricReading(tuple(names.values()), len(names) == 1)

    def _named_before(self, stretch: str, elided: bool = False) -> MetricReading | None:
        """The metric named in a claim's own stretch of words before it, if any."""
        before = self.metrics_in(stretch)
        if not before:
            return None
        last = before[-1][1]
        joined = [m for at, m in before if m.name != last.name and _JOINED.match(stretch[at:])]
        if joined:
            return MetricReading((joined[-1], last), False)  # "improves goodput and TTFT by 20%"
        named_at = min(at for at, m in before if m.name == last.name)  # its word, not its unit after a figure
        if self._item_of_its_own(stretch[named_at:]) and not elided:
            return self._with_primary(last)  # "TTFT p50 1,490 ms, 12% slower than X": a list of facts
        return MetricReading((last,), True)

    def _item_of_its_own(self, stretch: str) -> bool:
        """Whether a metric named before a claim owns a figure of its own, a comma before the claim: "TTFT p50
        ~1,490 ms, 12% slower than X" may be a list of facts, each item of its own metric."""
        figures = [q for q in self.know.quantities.find(stretch) if q.units - {"%"}]
        return bool(figures) and "," in stretch[figures[-1].unit_end :]

    def _with_primary(self, metric: MetricInfo) -> MetricReading:
        """A metric that may be the claim's, beside the primary one: reported only when false of both."""
        primary = self.facts.metrics.get(self.facts.primary_metric or "")
        if primary is None or primary.name == metric.name:
            return MetricReading((metric,), True)
        return MetricReading((metric, primary), False)

    def _default_metric(self, context: Context, clause: str, earlier: str = "") -> MetricReading | None:
        """A claim whose words name no metric: its table column's, else the primary one, unless the clause
        quotes a figure in another metric's unit ("torch.compile's 170 ms is 15% better"); when the clause
        draws a conclusion from an earlier one that names other metrics ("E2E p90 is 4.95 s against 6.85 s,
        so it is 1.38x faster"), they are candidates beside it, and the claim is reported only when false of
        all. A clause with a subject of its own ("..., and X is +50% vs Y") is not such a conclusion."""
        header = [m for at, m in self.metrics_in(context.unit.header or "")]
        if len({m.name for m in header}) == 1:
            return MetricReading((header[0],), True)
        primary = self.facts.metrics.get(self.facts.primary_metric or "")
        if primary is None:
            return None
        quoted = self._figure_metrics(clause)
        if quoted and primary.name not in {m.name for m in quoted}:
            return MetricReading(tuple(quoted), len(quoted) == 1)
        opening = earlier[earlier.rfind(",") + 1 :] if "," in earlier[-16:] else ""
        named = {m.name: m for at, m in self.metrics_in(earlier)} if _CONCLUSION.match(opening + clause) else {}
        if named and primary.name not in named:
            return MetricReading((primary, *named.values()), False)
        return MetricReading((primary,), True, default=True)

    def _figure_metrics(self, text: str) -> list[MetricInfo]:
        """The metrics whose unit the figures of a text carry ("170 ms": every metric in ms)."""
        units = {u for q in self.know.quantities.find(text) if not _AT_BEFORE.search(text, 0, q.start)
                 for u in q.units} - {"%"}
        return [m for m in self.facts.metrics.values() if m.unit.strip().lower() in units]

    def noun_metrics(self, noun: str) -> list[MetricInfo]:
        """The metrics the words right after a claim name ("more goodput", "+11% tok/s"); a unit several
        metrics share ("+9% tok/s" beside generation and prompt speeds) names each of them."""
        named = list({m.name: m for at, m in self.metrics_in(noun)}.values())
        if named:
            return named
        by_unit = [m for m in self.facts.metrics.values() if m.unit.strip().lower() not in GENERIC_UNITS
                   and (unit := self.know.unit_words.get(m.name)) is not None and unit.search(noun)]
        return by_unit or self._throughput(noun)

    def _throughput(self, noun: str) -> list[MetricInfo]:
        """"costs 5% of throughput" where no label says "throughput": the primary metric when it is a rate
        (tok/s, req/s), with every other metric in its unit as a candidate too."""
        primary = self.facts.metrics.get(self.facts.primary_metric or "")
        if primary is None or not _THROUGHPUT.search(noun) or not _RATE_UNIT.match(primary.unit.strip()):
            return []
        return [primary, *(m for m in self.facts.metrics.values()
                           if m.name != primary.name and m.unit.strip().lower() == primary.unit.strip().lower())]

    def slash_ratios(self, context: Context) -> list[Claim]:
        """"DP8/TP8 = 1.6", "DP8 / TP8 ≈ 0.85x": the ratio of the first named experiment to the second."""
        text = context.unit.text
        found = []
        for first, second in zip(context.mentions, context.mentions[1:]):
            if not _SLASH.fullmatch(text[first.end : second.start]):
                continue
            match = _RATIO_AFTER.match(text, second.end)
            if match is None:
                continue
            number = match.group("num")
            approx = match.group("approx") or (match.group("sep") or match.group("sign") or "") in ("≈", "~")
            found.append(Claim(
                start=first.start, end=match.end(), text_end=match.end(), value=float(number),
                decimals=len(number.split(".")[1]) if "." in number else 0, factor=True, polarity=UP, sign=1.0,
                bound="approx" if approx else "exact", object_at=second.start,
                object_search_start=None, noun="", word="/",
            ))
        return found

    def names_no_other_subject(self, context: Context, claim: Claim) -> bool:
        """Whether the words before a claim hold no subject of their own (only names, metrics, "vs X:",
        a load setting): then its subject may come from the sentence before or the heading. "CUDA graphs
        regress throughput by 2%" names a subject the ledger does not know: nothing is inferred."""
        before = _SPEAKER.sub("", context.plain[: claim.start])  # "**Dana:** vs TP8: +61%": a speaker is no subject
        for metric in self.facts.metrics.values():
            for pattern in (self.know.keywords.get(metric.name), self.know.unit_words.get(metric.name)):
                if pattern is not None:
                    before = pattern.sub(" ", before)
        words = [w for w in re.findall(r"[A-Za-z][\w-]*", before) if w.lower() not in _NO_SUBJECT_WORDS]
        return not words

    def reorders_name(self, context: Context, claim: Claim, previous: str) -> bool:
        """Whether the subject before a claim is the experiment the sentence before named, written as the words of
        one of its names in another order ("FP8 (INC) delivers 2.5x ..." after "INC FP8 is ..."): then at most a
        verb stands between them and the claim. One word, or any word of none of its names, is another subject."""
        experiment = self.facts.experiments.get(previous)
        if experiment is None:
            return False
        words = [w.lower() for w in _NAME_WORD.findall(_SPEAKER.sub("", context.plain[: claim.start]))]
        for name in (experiment.label, *experiment.aliases):
            own = sorted(w.lower() for w in _NAME_WORD.findall(name))
            rest = [w for w in words[len(own) :] if w not in _NO_SUBJECT_WORDS]
            if len(own) >= 2 and sorted(words[: len(own)]) == own and len(rest) <= 1:
                return True
        return False

    # -- the target of a bare change -------------------------------------------------

    def elided_target(self, context: Context, at: int, claim_start: int) -> str | None:
        """"FP8 KV's ITL p50 is 15% lower than BF16's": a target word alone whose name is that word and the last
        word of the name before the claim ("BF16" + "KV": "BF16 KV"), when it ends there; never another experiment."""
        text = context.unit.text
        word = _TARGET_WORD.match(text, at)
        named = [m for m in context.mentions if m.end <= claim_start]
        if word is None or not named:
            return None
        words = text[named[-1].start : named[-1].end].split()
        if len(words) < 2:
            return None
        found = self.know.mentions.find(f"{word.group('word')} {words[-1]}")
        if len(found) != 1 or found[0].start != 0 or found[0].experiment == named[-1].experiment:
            return None
        return found[0].experiment

    def reference_target(self, context: Context, at: int, subject: str | None) -> str | None:
        """"EP8's goodput is 2.5x the baseline's", "10% faster than our reference": the subject's compare_to, when
        that is the project's reference (its role), the one experiment "the baseline" can name; else None."""
        if subject is None or reference_end(context.unit.text, at) is None:
            return None
        compare_to = self.know.standing(subject, context).compare_to
        if compare_to is None or not self.know.standing(compare_to, context).is_reference:
            return None
        return compare_to

    def elided_target_end(self, context: Context, at: int, claim_start: int) -> int | None:
        """Where a target word with an elided last word of its name ends ("than BF16's|"), if it is one."""
        word = _TARGET_WORD.match(context.unit.text, at)
        return word.end() if word is not None and self.elided_target(context, at, claim_start) is not None else None


    def prefix_target(self, context: Context, claim: Claim) -> str | None:
        """For a claim with no target after it, the experiment a "vs X" or "Relative to X," before it names."""
        if claim.object_at is not None:  # "vs TP8: DP8 improves goodput by 9%": no target between verb and number
            return None
        text = context.unit.text
        earlier = [m for m in context.mentions if m.end <= claim.start]
        if earlier and _THAN_BEFORE.search(text[max(0, earlier[-1].start - 20) : earlier[-1].start]) and \
                _ANNOTATES.match(text[earlier[-1].end : claim.start]):
            return earlier[-1].experiment  # "slightly worse than DP8 alone (+1.8%)": the change of that comparison
        for mention in reversed(earlier):
            if VS_PREFIX.search(text[max(0, mention.start - 32) : mention.start]):
                return mention.experiment
        return None


# Between a metric's name and the figure it owns: "ITL p99 at 61.6 ms", "cold start of 193 s", "TTFT p50: 170 ms".
_OWNS_AFTER = re.compile(r"[A-Za-z][\w/ -]{0,24}?\s*(?:\b(?:at|of|is|was|were|around|about)\b|[:=])?\s*[~≈]?\s*",
                         re.IGNORECASE)
# A word standing alone for a name, possessive or not, with nothing of a name after it: "than BF16's.", "than BF16 on X".
_TARGET_WORD = re.compile(r"(?P<word>[A-Za-z0-9][\w.+-]*?)(?:'s|’s|')?(?=\s*(?:$|[.,;:)!?]|(?:on|in|at|for|with|and|but|"
                          r"while|when|under|by)\b))", re.IGNORECASE)
# "the baseline('s)", "our reference": the project's reference named by its role, with nothing of a name after it.
_REFERENCE_WORD = re.compile(r"\s*(?:(?:the|our|its|their)\s+)?(?:baseline|reference)(?:'s|’s|')?(?=\s*(?:$|[.,;:)!?]|"
                             r"(?:on|in|at|for|with|and|but|while|when|under|by)\b))", re.IGNORECASE)
# A possessive target that ends its clause: "than the defaults'", "than Y's." (the noun named before is elided).
_ELIDED_NOUN = re.compile(r"[^,;:()]{1,40}?(?:'s|’s|s'|s’)\s*(?:[.,;:)!?]|$)", re.IGNORECASE)
# A speaker's tag in bold at the head of a line of a transcript: "**Dana:**", "**Sam Lee**:" (the lint reads
# the text with its emphasis marks blanked, so the bold shows as two spaces after the colon or the name).
_SPEAKER = re.compile(r"^\s*(?:\*\*)?[A-Z][\w'.-]{0,20}(?: [A-Z][\w'.-]{0,20})?(?::(?:\*\*|  )\s|(?:\*\*|  ):\s)")
# A clause that concludes from the figures before it: "..., so it is 1.38x faster", "i.e. 40% lower".
_CONCLUSION = re.compile(r"^\W*(?:so|i\.e\.|hence|thus|therefore|which means|that is)\b\s*,?\s*"
                         r"(?:(?:it|that|this|they)(?:'s|\s+(?:is|are|was|were|comes out|works out))?\b|(?=\d|~|≈))",
                         re.IGNORECASE)
_THROUGHPUT = re.compile(r"\bthroughput\b", re.IGNORECASE)
_RATE_UNIT = re.compile(r"^[a-z]+/s(?:ec)?$", re.IGNORECASE)
_PERCENTILE_ALONE = re.compile(r"(?:^|[,;(]\s*|\band\s+)(p\d{2}(?:\.\d+)?)(?![\w-])", re.IGNORECASE)


def reference_end(text: str, at: int) -> int | None:
    """Where the words at a claim's target that name the reference by its role end ("the baseline's|"), if they do."""
    found = _REFERENCE_WORD.match(text, at)
    return found.end() if found is not None else None


def _stem(label: str) -> str:
    """A label without its percentile: "TTFT p99" -> "ttft"."""
    return " ".join(PERCENTILE.sub(" ", label).lower().split())


def _own_ends(plain: str, claim: Claim, later: list[int], hi: int, clause_end: int) -> tuple[int, int]:
    """Where the words after a claim stop being its own (for a metric named after it), and where its
    clause does: before a comma that leads to a later claim ("30% faster than eager, with TTFT p99 10%
    lower": TTFT p99 is the next claim's), and before a clause with a verb of its own ("580 is 2% faster
    than 570 and goodput is 11.70 req/s")."""
    limit = clause_end
    if later:
        comma = plain.rfind(",", claim.text_end, min(later))
        if comma >= 0:
            hi, limit = min(hi, comma), comma
    following = NEW_CLAUSE.search(plain, claim.text_end, hi)
    own = NEW_CLAUSE.search(plain, claim.text_end, limit)
    return (following.start() if following else hi), (own.start() if own else limit)


def _label_end(opened: str) -> int:
    """Where a label before its colon ends: at the colon, or before its unit in brackets ("TTFT p95 (ms):")."""
    end = len(opened) - 1
    bracket = max(opened.rfind("(", 0, end), opened.rfind("[", 0, end))
    return bracket if bracket > 0 and opened[:end].rstrip().endswith((")", "]")) else end


def _tail_end(text: str, end: int, limit: int) -> int:
    """Where the words after a claim stop being its own: past the next comma, if before ``limit``."""
    comma = text.find(",", end, limit)
    return comma + 1 if comma >= 0 else end


def _unit_owners(metrics: Iterable[MetricInfo]) -> dict[str, str]:
    """Units that name one metric alone ("tok/s" when only one metric is in tok/s); generic ones never do."""
    owners: dict[str, list[str]] = {}
    for metric in metrics:
        unit = metric.unit.strip().lower()
        if unit and unit not in GENERIC_UNITS:
            owners.setdefault(unit, []).append(metric.name)
    return {unit: names[0] for unit, names in owners.items() if len(names) == 1}
