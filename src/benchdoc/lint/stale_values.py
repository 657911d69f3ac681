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
from dataclasses import dataclass

from benchdoc.lint.attribution import Place
from benchdoc.lint.claim_reading import ClaimReader, is_load_setting, never_succeeded, no_result_state, without_result
from benchdoc.lint.context import Context
from benchdoc.lint.facts import ExperimentFacts, MetricInfo, RunValue
from benchdoc.lint.findings import STALE_VALUE, Finding
from benchdoc.lint.knowledge import Knowledge, cite_current, cite_latest, cite_run, fmt, matches, tolerance
from benchdoc.lint.quantities import Quantity, bare_numbers
from benchdoc.lint.text import Unit
from benchdoc.lint.value_settings import (
    after_a_move_away,
    in_the_label,
    is_threshold,
    named_only_in_a_later_aside,
    only_comparators,
    outside_the_ledger,
    under_a_condition,
)
from benchdoc.lint.verdicts import find_verdicts
from benchdoc.lint.words import (
    COMPARING,
    FAILS,
    GENERIC_UNITS,
    HYPOTHETICAL,
    NOT_OURS,
    OTHER_SETUP,
    QUALIFIER_AFTER,
    QUALIFIER_BEFORE,
    UNNAMED_CONDITION,
)
from benchdoc.results.status import Status
from benchdoc.results.words import status_phrase

_CELL_VALUE = re.compile(
    r"^\s*(?:~|≈)?\s*[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:(?:±|\+/-)\s*\d+(?:\.\d+)?\s*%?)?\s*(?P<unit>[^\d\s][^\s]*)?\s*$"
)


_WORD = re.compile(r"[A-Za-z]")
_PER = re.compile(r"\bper\s+", re.IGNORECASE)  # "$/h per req/s of capacity": the cells are in $/h
# Money before "per": the cells are prices, whatever the denominator names ("$ per 1M output tokens").
_MONEY = re.compile(r"[$€£¥]|\b(?:USD|EUR|cost|price|dollars?|cents?)\b", re.IGNORECASE)
_OF_AFTER = re.compile(r"\s*(?:of|in|for|on)\s", re.IGNORECASE)
# A header of marks given on a scale ("Throughput score [0.35]", "Latency rating", "Weighted total"): its cells
# are what the writer scored, never the metric it names, unless the metric is itself a score ("Quality score").
_SCORE = re.compile(r"\b(?:scores?|scored|scoring|ratings?|rated|grades?|points|rank(?:s|ed|ing)?|weighted)\b", re.IGNORECASE)


# A figure of a fleet of copies of a setup ("13 replicas cover 312 req/s"; one copy's, "48 req/s per replica",
# is the setup's own), a proposal ("Proposal: ship it at 8 req/s"), or one the sentence says is not comparable.
_FLEET = re.compile(r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|dozens? of)\s+(?:replicas|instances|pods|copies)\b",
                    re.IGNORECASE)
# Memory: a verb of use names it ("uses 14.0 GB", "it needs 17.5 GiB", "peaks at 36.2 GiB"; not "uses 4.9 GB
# of disk"), and a device's
# share is its own sense ("36.2 GiB per card").
_MEMORY_UNITS = frozenset({"gb", "gib", "mb", "mib"})
_MEMORY_VERB = re.compile(r"\b(?:uses?|using|needs?|needed|takes?|occupies|occupy|consumes?|peaks?\s+at|fits?\s+in(?:to)?|"
                          r"requires?|allocates?)\s+(?:about\s+|around\s+|only\s+|just\s+|~\s*)?(?=\S*$)", re.IGNORECASE)
_FLEET_SETUP = re.compile(r"\b(?:autoscal\w*|replicas|scale-?out|fleet)\b", re.IGNORECASE)
_PER_DEVICE = re.compile(r"\s*per[\s-](?:gpu|card|device|rank)\b", re.IGNORECASE)
_PROPOSAL = re.compile(r"\b(?:propos(?:e|es|ed|al|ing)|suggest(?:s|ed|ion)?)\b", re.IGNORECASE)
# "over RDMA", "over NVLink": the link a transfer's figure crosses, not "12 tok/s over the baseline".
_OVER_LINK = re.compile(r"\s*over\s+(?:the\s+|an?\s+)?(?:RDMA|RoCE(?:v2)?|InfiniBand|IB|NVLink|NVSwitch|PCIe|TCP|UDP|Ethernet|"
                        r"network|fabric|wire|link|loopback|UCX|NIXL|GPUDirect)\b", re.IGNORECASE)
# A metric's name and "=" just before a number ("goodput = 6.9 req/s"), and the words that name a load instead.
_EQUALS_AFTER = re.compile(r"(?P<label>[A-Za-z][\w .%/-]{0,40}?)\s*=\s*(?:~\s*)?$")
_LOAD_WORD = re.compile(r"\b(?:rate|qps|concurrency|load|offered|arrivals?|SLO|target|batch|max[_ ]?\w*)\b", re.IGNORECASE)
# The metric named right after a figure as what it is a figure of: "12.00 req/s of goodput".
_METRIC_OF = re.compile(r"\s*of\s+(?P<words>[A-Za-z][\w -]{0,30}?)\s*(?=[,.;:()]|$|\s(?:and|at|on|with|for|in|from)\b)",
                        re.IGNORECASE)
# A day the sentence dates its figure to ("on 11/20", "on 2026-11-20", "(Nov 20)").
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ON_DATE = re.compile(
    r"(?:\b(?:on|as\s+of)\s+|\(\s*)(?:(?P<iso>20\d\d-[01]\d-[0-3]\d)|(?P<md>[01]?\d/[0-3]?\d|[01]\d-[0-3]\d)(?![\d/-])|"
    r"(?P<month>(?:" + "|".join(_MONTHS) + r")[a-z]*\.?)\s+(?P<day>[0-3]?\d)\b)",
    re.IGNORECASE,
)
# How far one server start of a run, or a writer's rounding, lies from the run's recorded median.
_NEAR_PAST = 0.03
_NOT_COMPARABLE = re.compile(
    r"\bnot\s+(?:directly\s+)?comparable\b|\bincomparable\b|\bnot\s+(?:in|from)\s+(?:the|this|our)\s+ledger\b|"
    # "staging is not part of this report", "not part of our results"
    r"\bnot\s+(?:a\s+)?part\s+of\s+(?:the|this|our)\s+(?:report|ledger|results?|data|measurements?|comparison|evaluation)\b",
    re.IGNORECASE,
)
# A clause that disowns the figures of the clause before it: "...; that is another machine", "...; different
# hardware, so not our number", "...; that's theirs, on a different workload".
_DISOWNS = re.compile(
    r"^\W*(?:(?:that|this|it|those|these)(?:'s|\s+(?:is|was|are|were))\s+(?:on\s+|from\s+)?)?"
    r"(?:(?:an)?other|a\s+different|different|their|someone\s+else's|(?:an?\s+|the\s+)?(?:colleague|other\s+team|partner|customer|"
    r"vendor)'s)\s+(?:machines?|clusters?|hardware|GPUs?|boxes|box|"
    r"nodes?|setups?|workloads?|benchmarks?|traffic)(?![\w-])|"
    r"\bnot\s+(?:ours|our\s+(?:numbers?|figures?|results?|measurements?|data|hardware|machines?|setup|cluster))(?![\w-])|"
    r"\bnot\s+(?:on|from)\s+our\s+(?:box|boxes|machines?|hardware|clusters?|nodes?|pods?|setup|GPUs?|fleet)(?![\w-])|"
    r"^\W*(?:that|this|it)(?:'s|\s+is|\s+was)\s+theirs\b",
    re.IGNORECASE,
)


# A figure someone quotes for hardware or a product: "well above what Apple quotes for the M3 Max (400 GB/s)",
# "the vendor's datasheet lists 3.35 TB/s". Between the words and the figure no experiment is named.
_QUOTED_SPEC = re.compile(
    r"\b(?:quotes?|quoted|advertises?|advertised|rated|promises?|promised|spec\s+sheet|specifications?|datasheet|"
    r"nominal|theoretical|on paper)\b(?P<between>[^.;!?]{0,40}?)[(\s]*(?:~\s*|up to\s+|about\s+)?$",
    re.IGNORECASE,
)


def disowns(clause: str) -> bool:
    """Whether a clause after a semicolon says the figures before it are not of the setup the ledger records."""
    return NOT_OURS.search(clause) is not None or _NOT_COMPARABLE.search(clause) is not None \
        or _DISOWNS.search(clause) is not None


def _not_a_result(context: Context, quantity: Quantity, fleet_experiment: bool = False) -> bool:
    """Whether the words around a number say it is no result of one setup as the ledger records it; a count
    of replicas says nothing when the named experiment is itself a fleet ("KEDA autoscaling")."""
    text = context.unit.text
    clause_start, _ = context.clause(quantity.start)
    fleet = [m for m in _FLEET.finditer(text, clause_start, quantity.start)
             if not any(x.start <= m.start() < x.end for x in context.mentions)]  # "two TP8 replicas" may be a name
    spec = _QUOTED_SPEC.search(text, max(0, quantity.start - 80), quantity.start)
    if spec is not None and not any(spec.start() <= m.start < quantity.start for m in context.mentions):
        return True  # "well above what Apple quotes for the M3 Max (400 GB/s)": a quoted specification
    return (bool(fleet) and not fleet_experiment) or _PROPOSAL.search(text, 0, quantity.start) is not None or _NOT_COMPARABLE.search(text) is not None


@dataclass(frozen=True)
class _OldMatch:
    """An older result a number quotes."""

    named: str  # the experiment named in the sentence whose line it belongs to
    member: str  # the experiment of that line that measured it
    metric: MetricInfo
    run: RunValue


class ValueRule:
    """Numbers in sentences, and numbers alone in a table cell under a metric's header."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.know = knowledge
        self.facts = knowledge.facts
        self.reader = ClaimReader(knowledge)

    def value(
        self, context: Context, quantity: Quantity, where: Place | None = None, only_figure: bool = False
    ) -> Finding | None:
        """A number with a unit in a sentence; ``where`` is whose figure its position makes it.

        ``only_figure``: the sentence holds no other number in its unit and compares nothing. Then
        a sentence naming one experiment quotes that experiment's figure, never the result of the
        experiment it is compared with that the sentence does not name ("the 1.0 engine's ITL p50
        is 21.8 ms" is the 1.0 engine's figure even when 21.8 is its reference's).
        """
        candidates = [m for m in self.facts.metrics.values() if m.unit and m.unit.strip().lower() in quantity.units]
        experiments = context.experiments()
        if not candidates or not experiments:
            return None
        named_lines = {self.know.standing(e, context).name for e in experiments}
        lone = only_figure and len(named_lines) == 1 and not COMPARING.search(context.unit.text)
        scope = list(dict.fromkeys(experiments)) if lone else self.know.scope(experiments, context)
        where = where or Place(context.nearest(quantity.start), False)
        if self._under_unnamed_condition(context, quantity):
            return None  # "Without P2P, 1P1D drops to 8,720 tok/s": a variant the ledger does not name
        if _not_a_result(context, quantity, self._fleets(experiments)) or self._not_recorded(context, quantity, experiments):
            return None  # "13 replicas cover 312 req/s", "(4,900 tok/s) are not comparable", "the 1500 ms alert"
        if is_load_setting(self.facts, context, quantity, scope) and not self._metric_equals(context, quantity, candidates) \
                and not self._metric_of_after(context, quantity, candidates):
            return None  # "at 6 req/s offered": the workload, not a result
        missing = self._without_result(context, quantity, candidates, where, experiments)
        if missing is not None:
            return missing
        if where.certain and where.experiment is not None and quantity.bound == "approx":
            # "n-gram lands at ~2.5k tok/s, well short of EAGLE-3": an approximate figure whose place is certain
            # is weighed against its owner only; its wide tolerance would find some other named one's.
            scope = [where.experiment]
        # Most numbers are right: settle those before reading the words around them.
        if any(self.accepts(e, m, quantity, False, context) for e in scope for m in candidates):
            return None
        read = self._metrics_read(context, quantity, candidates)
        if read is None:
            return None
        metrics, metric_certain = read
        if where.foreign:
            return None  # the figure of something the ledger does not name
        owner = self.facts.experiments.get(where.experiment or context.nearest(quantity.start))
        historical = context.historical or quantity.before or (
            owner is not None and _dated_before(_dating_words(context.unit.text, quantity), owner))
        if historical and any(self.accepts(e, m, quantity, True, context) for e in scope for m in metrics):
            return None
        attributed = where.experiment or context.nearest(quantity.start)
        single = len({self.know.standing(e, context).name for e in experiments}) == 1
        old = self.old_matches(experiments, attributed, metrics, quantity, context)
        if old:
            return self._older_result(context, quantity, old, where, attributed)
        if historical and self._near_past(scope, metrics, quantity):
            return None  # "For history: TP8 managed 4.02 req/s" (4.04 recorded): one start of that run, not the current result
        if not metric_certain or not (single or where.certain):
            return None
        return self.finding(context, quantity, attributed, metrics[0], None)

    def _not_recorded(self, context: Context, quantity: Quantity, experiments: list[str]) -> bool:
        """Whether the figure is no recorded result: another team's or machine's, a threshold, a figure under a
        condition named after it, or a setting the named experiment's own label carries ("16 GB CPU offload")."""
        if outside_the_ledger(context, quantity) or is_threshold(context, quantity) or under_a_condition(context, quantity):
            return True
        if only_comparators(context, quantity):
            return True  # "Throughput vs eager: 2,502 tok/s": the figure of what is compared with eager
        if after_a_move_away(context, quantity):
            return True  # "Moving old-V1 to 0.10.1 took goodput from 10.40 to 11.30 req/s": 0.10.1's figure
        if named_only_in_a_later_aside(context, quantity, self.know.quantities.find(context.unit.text)):
            return True  # "Hit rate: 58.6% (radix-off shows 2.2%)": the name owns the aside's figure only
        labels = [self.facts.experiments[e].label for e in experiments if e in self.facts.experiments]
        return any(in_the_label(self.know.quantities.find(label), quantity) for label in labels)

    def _fleets(self, experiments: list[str]) -> bool:
        """Whether a named experiment is a fleet of replicas by its label ("KEDA autoscaling", "4 replicas")."""
        return any(_FLEET_SETUP.search(self.facts.experiments[e].label) for e in experiments if e in self.facts.experiments)

    def dated_before(self, text: str, experiment: str) -> bool:
        """Whether words date a figure ("on 11-23") to a day before the experiment's latest run."""
        owner = self.facts.experiments.get(experiment)
        return owner is not None and _dated_before(text, owner)

    def _metric_equals(self, context: Context, quantity: Quantity, candidates: list[MetricInfo]) -> bool:
        """Whether an "=" before a number follows a result metric's name ("DRAM goodput = 6.9 req/s"), which makes
        it that metric's value; "rate=4", "@ 6 req/s" set the load."""
        found = _EQUALS_AFTER.search(context.plain, 0, quantity.start)
        if found is None or _LOAD_WORD.search(found.group("label")):
            return False
        return any(self.know.names_metric(m.name, found.group("label")) for m in candidates)

    def _metric_of_after(self, context: Context, quantity: Quantity, candidates: list[MetricInfo]) -> bool:
        """Whether a result metric's name follows the figure as what it is a figure of ("delivers 12.00 req/s of
        goodput"): then a value equal to the workload's offered rate is that metric's, not the load."""
        found = _METRIC_OF.match(context.plain, quantity.unit_end)
        if found is None or _LOAD_WORD.search(found.group("words")):
            return False
        return any(self.know.names_metric(m.name, found.group("words")) for m in candidates)

    def _near_past(self, scope: Sequence[str], metrics: Sequence[MetricInfo], quantity: Quantity) -> bool:
        """Whether a figure lies within a few percent of an earlier result of a named experiment (what one
        server start of that run, or a rounding of its own, would give), and so quotes that past run."""
        return any(
            abs(quantity.value - value) <= _NEAR_PAST * abs(value)
            for e in scope for m in metrics for value in self.know.values_past(e, m.name)
        )

    def _under_unnamed_condition(self, context: Context, quantity: Quantity) -> bool:
        """Whether the words before a number change the setup without naming an experiment for it
        ("without P2P", "w/o CUDA graphs", "with prefix caching disabled"), or its clause puts it
        under a load other than the recorded one ("127.5 tok/s on long contexts")."""
        text = context.unit.text[: quantity.start]
        for match in UNNAMED_CONDITION.finditer(text):
            if not any(match.start() <= m.start < match.end() for m in context.mentions):
                return True
        _, end = context.clause(quantity.start)
        return OTHER_SETUP.search(context.unit.text[:end]) is not None

    def _without_result(
        self, context: Context, quantity: Quantity, candidates: list[MetricInfo], where: Place, experiments: list[str]
    ) -> Finding | None:
        """A figure tied to an experiment that has no successful result ("EP8: 4.9k tok/s" when EP8 only failed)."""
        if where.foreign:
            return None
        owner = self.know.standing(where.experiment or context.nearest(quantity.start), context)
        if not without_result(owner):
            return None
        if (context.historical or quantity.before or _dated_before(_dating_words(context.unit.text, quantity), owner)) \
                and not never_succeeded(self.facts, owner.name):
            return None  # history: an older result of it may be quoted ("on 11/20 → 3,430 tok/s", failed since)
        if owner.status is Status.FAILED and any(v.meaning == FAILS and not v.negated for v in find_verdicts(context.unit.text)):
            return None  # "crashed after 12 s at 1.5k tok/s": the sentence says what the ledger says
        single = len({self.know.standing(e, context).name for e in experiments}) == 1
        read = self._metrics_read(context, quantity, candidates)
        if not (single or where.certain) or read is None:
            return None
        if not read[1] and any(m.unit.strip().lower() in GENERIC_UNITS for m in read[0]):
            return None  # "crashed after 12 s": a number in a common unit, no metric named
        # Two metrics in tok/s: whichever is meant, the experiment has no result for it.
        quoted = context.unit.text[quantity.start : quantity.unit_end].strip()
        state = no_result_state(owner)
        message = f"says {quoted}, but the ledger has no successful result for it: {state}"
        return context.finding(quantity.start, quantity.unit_end, STALE_VALUE, message, state,
                               f"no fix proposed: reword it; {state}", owner.name, quoted)

    def _metrics_read(
        self, context: Context, quantity: Quantity, candidates: list[MetricInfo]
    ) -> tuple[list[MetricInfo], bool] | None:
        """The metrics a number may be a value of, and whether it is only one; None when it is no metric's value."""
        text = context.unit.text
        clause_start, clause_end = context.clause(quantity.start)
        before = text[clause_start : quantity.start]
        # A hedge word inside an experiment's name ("Budget 2048") hedges nothing.
        memory = bool(quantity.units & _MEMORY_UNITS)
        uses = _MEMORY_VERB.search(text, clause_start, quantity.start) if memory else None
        hedge_words = context.plain[clause_start : uses.start() if uses else quantity.start]  # "it needs 17.5 GiB": no hedge
        if HYPOTHETICAL.search(hedge_words) or QUALIFIER_BEFORE.search(text[max(0, quantity.start - 30) : quantity.start]):
            return None
        qualifier = QUALIFIER_AFTER.match(text[quantity.unit_end :])
        own_share = [m for m in candidates if qualifier is not None and _share_of(m, qualifier.group())]
        if (qualifier and not own_share and not (memory and _PER_DEVICE.match(text, quantity.unit_end))
                and not _OVER_LINK.match(text, quantity.unit_end)):
            return None  # "per GPU" qualifies a throughput; memory is always a device's
        if own_share:
            return own_share, len(own_share) == 1  # "63 tok/s per request" of a "Per-request decode speed"
        # A figure after it in the same unit owns the words that follow it ("34.6 tok/s and 2,450 tok/s
        # of prompt processing": "prompt processing" is the second figure's metric), and one before it the
        # words before it.
        same_unit = [q for q in self.know.quantities.find(text) if q.units & quantity.units and q.start != quantity.start]
        lo = max([clause_start, *(q.unit_end for q in same_unit if clause_start <= q.unit_end <= quantity.start)])
        hi = min([clause_end, *(q.start for q in same_unit if quantity.unit_end <= q.start < clause_end)])
        allowed = {m.name for m in candidates}
        # Named since the figure before it ("TTFT p50 640 ms, p99 1,980 ms": TTFT p99), else right after
        # it ("2,450 tok/s of prompt processing").
        found = [(at, m) for at, m in self.reader.metrics_in(context.plain[:hi]) if m.name in allowed]
        named = list({m.name: m for at, m in found if lo <= at < quantity.start}.values())
        if not named and _OF_AFTER.match(text, quantity.unit_end):
            named = list({m.name: m for at, m in found if quantity.unit_end <= at < hi}.values())
        if not named:
            named = _timed_by_verb(candidates, text[lo : quantity.start])
        if not named:
            clause = context.plain[clause_start:clause_end]
            named = [m for m in candidates if self.know.names_metric(m.name, clause)
                     and not self.know.names_metric(m.name, context.plain[hi:clause_end])]
        unnamed = "".join(c for i, c in enumerate(before, clause_start)
                          if not any(m.start <= i < m.end for m in context.mentions))  # "SLO attainment: 2P1D 97.1%"
        if not named and not _WORD.search(unnamed) and text[clause_start - 1 : clause_start] in (":", "="):
            # "32 adapters E2E latency p50: 5.94 s", "generation: 1300 → 1250 tok/s", "SLO attainment: 2P1D
            # 97.1%": the label before the colon names the metric of the figures after it (and of a name's).
            label_start, _ = context.clause(clause_start - 1)
            label = context.plain[label_start : clause_start - 1]
            named = [m for m in candidates if self.know.names_metric(m.name, label)]
        if not named and uses is not None and not _OF_AFTER.match(text, quantity.unit_end):
            named = candidates  # "Q4_K_M uses 14.0 GB", "peaks at 36.2 GiB": a verb of memory names its metric
        if len(named) > 1:
            # "aggregate generation speed" names "Aggregate generation speed" whole, "Prompt processing speed" by a word.
            whole = [m for m in named if _names_whole(m, context.plain[clause_start:clause_end])]
            named = whole if len(whole) == 1 else named
        if named:
            return named, len(named) == 1
        if any(m.unit.strip().lower() in GENERIC_UNITS for m in candidates):
            if "%" in quantity.units:
                return None  # a bare percentage is a claim or a share, not a metric's value
            return candidates, False
        return candidates, len(candidates) == 1

    def _older_result(
        self, context: Context, quantity: Quantity, old: list[_OldMatch], where: Place, attributed: str
    ) -> Finding | None:
        """A number that quotes an older result: of whom, weighing its value against its place."""
        lines = list(dict.fromkeys(self.know.standing(match.named, context).name for match in old))
        placed = self.know.standing(where.experiment, context).name if where.experiment else None
        if len(lines) == 1 and (not where.certain or placed in (None, lines[0])):
            chosen: _OldMatch | None = old[0]
        else:
            wanted = placed if where.certain else self.know.standing(attributed, context).name
            chosen = next((match for match in old if self.know.standing(match.named, context).name == wanted), None)
        if chosen is None:
            return self.unsure(context, quantity, old, placed)
        return self.finding(context, quantity, chosen.member, chosen.metric, chosen.run)

    def accepts(
        self, experiment: str, metric: MetricInfo, quantity: Quantity, historical: bool, context: Context | None
    ) -> bool:
        allowed = tolerance(quantity.decimals, metric.digits)
        values = self.know.values_now(self.know.standing(experiment, context).name, metric.name)
        if quantity.bound == "approx" and values:
            # "about 3,600 tok/s": the hedge widens the result's own figure, not its interval or its extreme starts,
            # which a writer quotes as they are, rounded at most.
            centre, *others = values
            if matches(quantity.value, centre, allowed, "approx") or any(
                    abs(quantity.value - v) <= max(allowed, _NEAR_PAST * abs(v)) for v in others):
                return True
            values = ()
        if historical:
            values = values + self.know.values_past(experiment, metric.name)
        return any(matches(quantity.value, v, allowed, quantity.bound) for v in values)

    def old_matches(
        self, experiments: Sequence[str], attributed: str, metrics: Sequence[MetricInfo], quantity: Quantity,
        context: Context | None,
    ) -> list[_OldMatch]:
        """Every older result of a named experiment (or of its lineage) that the number quotes, the attributed one's first."""
        order = [attributed, *(e for e in experiments if e != attributed)]
        found: list[_OldMatch] = []
        for experiment in order:
            for member in self.facts.lineage(experiment):
                for metric in metrics:
                    facts = member.metrics.get(metric.name)
                    if facts is None:
                        continue
                    allowed = tolerance(quantity.decimals, metric.digits)
                    found.extend(
                        _OldMatch(experiment, member.name, metric, run) for run in facts.history
                        if matches(quantity.value, run.value, allowed, "exact")
                        and not self.know.is_current(member, metric, run, context)
                    )
        return found

    def unsure(self, context: Context, quantity: Quantity, old: list[_OldMatch], placed: str | None) -> Finding:
        """A number that quotes an older result, but whose: its value and its place disagree. No binding is proposed."""
        quoted = context.unit.text[quantity.start : quantity.unit_end].strip()
        quotes = "; ".join(
            f"{self.facts.experiments[match.member].label}'s result of {cite_run(match.run.run_id, match.run.date)}"
            for match in {self.know.standing(m.named, context).name: m for m in reversed(old)}.values()
        )
        where = f", but it stands where {self.facts.experiments[placed].label}'s figure goes" if placed else ""
        message = f"says {quoted}, which quotes {quotes}{where}: which experiment it is about is unclear"
        now = []
        for name in dict.fromkeys(self.know.standing(m.named, context).name for m in old):
            current = self.facts.experiments[name]
            facts = current.metrics.get(old[0].metric.name)
            if facts is not None and facts.current is not None:
                now.append(f"{current.label}: {fmt(facts.current, old[0].metric.digits)}")
        fix = "no fix proposed: say which experiment the number is about, then bind it to that experiment's value"
        return context.finding(quantity.start, quantity.unit_end, STALE_VALUE, message, "; ".join(now), fix,
                               self.know.standing(old[0].named, context).name)

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
            latest = cite_latest(current)
            state = f"{current.label} {status_phrase(current.status)}" + (
                f": {current.reason}" if current.reason else ""
            ) + (f" ({latest})" if latest else "")
            message = f"quotes the result of {cite_run(run.run_id, run.date)} ({fmt(run.value, metric.digits)}{unit}); {state}"
            ledger = state
            fix = f"reword: {current.label} has no current {metric.label} ({current.status})"
        else:
            now = f"{fmt(facts.current, metric.digits)}{unit}"
            whose = "the " if current.name == owner else f"{self.facts.experiments[owner].label}'s "
            named_metric = "" if metric.label.strip().lower() == metric.unit.strip().lower() else f"{metric.label} "
            source = cite_current(current)
            if run is not None:
                message = (f"quotes {whose}result of {cite_run(run.run_id, run.date)} ({fmt(run.value, metric.digits)}{unit}); "
                           f"now {now} from {source}")
            else:
                message = f"says {quoted}; {named_metric or 'the result '}of {current.label} is now {now} from {source}"
            if current.name != owner:
                message += f" ({current.label}, which supersedes {self.facts.experiments[owner].label})"
            elif run is not None:
                message += f" ({current.label})"
            ledger = f"{current.label}: {named_metric}{now}, {source}"
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
        old = self.old_matches([experiment], experiment, [metric], quantity, context)
        if old:
            return self.finding(context, quantity, old[0].member, metric, old[0].run)
        return self.finding(context, quantity, experiment, metric, None)

    def header_metric(self, header: str) -> MetricInfo | None:
        """The one metric a column header names, by its name or by the unit of the column's cells."""
        know = self.know
        header = self.own_words(header)
        found = [
            m for m in self.facts.metrics.values() if know.names_unit(m.name, header) or know.names_metric(m.name, header)
        ]
        if _SCORE.search(header):
            found = [m for m in found if _SCORE.search(m.label)]  # "Memory score": marks, not the memory in GB
        if len(found) > 1:
            # "Output throughput (tok/s)" names one metric by both; prefer those named by their unit.
            by_unit = [m for m in found if know.names_unit(m.name, header)]
            named = [m for m in by_unit if know.names_metric(m.name, header)]
            found = named or by_unit or found
        if len(found) > 1:  # one label named whole ("aggregate generation speed"), the others by a word ("speed")
            whole = [m for m in found if _names_whole(m, header)]
            found = whole if len(whole) == 1 else found
        return found[0] if len(found) == 1 else None

    def own_words(self, header: str) -> str:
        """A header without the figures and rates that describe something else than its cells: a load
        the column is sized for ("Replicas for 240 req/s", "Replicas (312 req/s)") is a number with its
        own unit, and a unit after "per" is the denominator of the cells' unit ("$/h per req/s")."""
        for quantity in reversed(self.know.quantities.find(header)):
            header = header[: quantity.start] + header[quantity.unit_end :]
        spans = [m.span() for p in self.know.unit_words.values() if p is not None for m in p.finditer(header)]
        for per in reversed(list(_PER.finditer(header))):
            inside = any(a <= per.start() < b for a, b in spans)  # "tokens per second" is one unit
            if not inside and (any(a == per.end() for a, _ in spans) or _MONEY.search(header, 0, per.start())):
                # The denominator runs to a parenthesis or the end ("per req/s of capacity").
                paren = header.find("(", per.end())
                header = header[: per.start()] + (header[paren:] if paren >= 0 else "")
        return header


# A time named by the verb of what it times: "warms up in 40 s" (a "Warm-up time"), "loads in 12 s" (a "Model
# load time"), "starts in 9 s" (a "Startup time"), "compiles in 80 s" (a "Compile time").
_TIMED_VERB = re.compile(r"\b(?P<stem>warm|load|start|boot|compil|captur)(?:s|es|ed|ing|e)?(?:\s+up)?\s+in\s+"
                         r"(?:about\s+|around\s+|roughly\s+|under\s+|~\s*)?$", re.IGNORECASE)


def _timed_by_verb(candidates: list[MetricInfo], before: str) -> list[MetricInfo]:
    """The one metric whose label names the time the verb right before the figure times, else none."""
    found = _TIMED_VERB.search(before)
    if found is None:
        return []
    stem = found.group("stem").lower()
    named = [m for m in candidates if re.search(r"\b" + stem, m.label.lower()) and re.search(r"\btime\b", m.label.lower())]
    return named if len(named) == 1 else []


def _names_whole(metric: MetricInfo, text: str) -> bool:
    """Whether a text holds a metric's whole label, not only a word of it."""
    return re.search(r"(?<![\w-])" + re.escape(metric.label.lower()) + r"(?![\w-])", text.lower()) is not None


def _share_of(metric: MetricInfo, qualifier: str) -> bool:
    """Whether a metric's own label names the share a qualifier after a figure names ("per request" of a
    "Per-request decode speed"): then the words name the metric, not a share of it."""
    words = re.sub(r"[\s-]+", " ", qualifier.strip().lower())
    return words.startswith("per ") and words in re.sub(r"[\s-]+", " ", metric.label.lower())


def _dating_words(text: str, quantity: Quantity) -> str:
    """The words that may date a figure: those before it, and a date right after it ("86.0 tok/s on Nov 3, 88.0
    tok/s now")."""
    rest = text[quantity.unit_end :]
    after = _ON_DATE.match(text, quantity.unit_end + len(rest) - len(rest.lstrip()))
    return text[: quantity.start] + (" " + after.group() if after is not None else "")


def _dated_before(text: str, owner: ExperimentFacts) -> bool:
    """Whether the words before a figure date it ("on 11/20", "on 2026-11-20") to a day before the
    experiment's latest run: a failure recorded since says nothing of that day's figure."""
    days = [r.started_at[:10] for r in owner.runs]
    if not days:
        return False
    latest = max(days)
    for found in _ON_DATE.finditer(text):
        if found.group("iso"):
            day = found.group("iso")
        else:
            if found.group("md"):
                month, date = (int(x) for x in re.split(r"[/-]", found.group("md")))
            else:
                month, date = _MONTHS.index(found.group("month").lower()[:3]) + 1, int(found.group("day"))
            if not (1 <= month <= 12 and 1 <= date <= 31):
                continue
            day = f"{latest[:4]}-{month:02d}-{date:02d}"
        if day < latest:
            return True
    return False
