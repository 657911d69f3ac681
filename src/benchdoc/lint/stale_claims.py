"""Stale relative claims: "40% slower than baseline", "+5.1% over Ring", "1.5x faster".

A claim is read against the subject's current delta to its target (its own comparison,
the target's comparison reversed, the before/after change along a supersedes chain, or,
lacking those, the ratio of medians). It holds when any reading of its words overlaps the
delta or its interval; a claim that matches an older comparison is told so, and is fair
in a sentence that speaks of the past.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from benchdoc.lint.attribution import Comparison
from benchdoc.lint.claim_reading import (
    ClaimReader,
    MetricReading,
    before_after,
    never_succeeded,
    no_result_state,
    reference_end,
    without_result,
)
from benchdoc.lint.claim_scope import closed_aside, left_alone, only_filler
from benchdoc.lint.claim_truth import (
    Delta,
    calls_it_noise,
    claim_holds,
    claimed_intervals,
    delta_words,
    held_bound,
    ledger_line,
    ledger_says,
    quotes_estimate,
    unsupported,
    verdict_text,
    widened,
)
from benchdoc.lint.claims import BAD, DOWN, GOOD, SIGNED, UP, Claim, find_claims, is_move_verb, vs_cell_claim
from benchdoc.lint.context import Context
from benchdoc.lint.facts import ExperimentFacts, MetricInfo
from benchdoc.lint.findings import STALE_CLAIM, Finding
from benchdoc.lint.knowledge import Knowledge, cite_current, cite_run, fmt, history, matches, mention_at, tolerance
from benchdoc.lint.text import Unit
from benchdoc.lint.words import COST, COST_WORD, HYPOTHETICAL

_VS_HEADER = re.compile(r"^(?:vs\.?|versus|against|Δ|delta|change|diff(?:erence)?)\b", re.IGNORECASE)
SPEED_WORD = re.compile(r"faster|slower|quicker|speed-?ups?|slow-?downs?", re.IGNORECASE)
_SPEED_UNIT = re.compile(r"^(?:[a-zµμ]*/s(?:ec)?|ms|s|us|µs|μs|ns|sec|seconds?|minutes?|min|h)$", re.IGNORECASE)
# A day named in the sentence: "went to canary on 2026-11-04 and cut throughput by a quarter".
_DATED = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_PREPOSITION = re.compile(r"^(?:on|in|at|for|with|under|across|when|during|per|of|to)\b", re.IGNORECASE)


def is_speed(metric: MetricInfo) -> bool:
    """Whether a metric measures a speed: a rate ("tok/s", "req/s") or a time ("ms", "s")."""
    return bool(_SPEED_UNIT.match(metric.unit.strip()))


def is_vs_header(header: str) -> bool:
    """A column of deltas against another experiment: "vs Baseline", "Δ", "Change"."""
    return bool(_VS_HEADER.match(header))


class ClaimRule:
    """Relative claims in sentences, and signed percentages in a "vs X" table column."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.know = knowledge
        self.facts = knowledge.facts
        self.reader = ClaimReader(knowledge)

    def claim(self, context: Context, claim: Claim, neighbours: Sequence[Claim] = ()) -> Finding | None:
        resolved = self._resolve(context, claim, list(neighbours))
        if resolved is None:
            return None
        metrics, subject, target, metric_certain, subject_certain = resolved
        missing = self._without_result(context, claim, subject, target)
        if missing is not None:
            return missing
        if self._holds_other_way(context, claim, subject, target, metrics, subject_certain):
            return None
        rivals = self._rivals(context, claim, subject, target)
        if rivals:
            # Which experiment the claim is about is open: reported only when false of each, with no fix.
            subject_certain = False
            for rival in rivals:
                versus = target if target != self._default_target(context, subject) else self._default_target(context, rival)
                if versus is None or versus == rival or self._holds(context, claim, rival, versus, metrics):
                    return None
        verdicts = []
        for metric in metrics:
            actual = self.actual_delta(subject, target, metric, context)
            claimed = claimed_intervals(claim, metric)
            if actual is None or claimed is None:
                return None  # a reading the ledger cannot check: the claim may be of it
            if self._holds_now(context, claim, claimed, actual, metric):
                return None
            old = self.historical_comparison(subject, target, metric, claimed, held_bound(claim), context)
            if old is not None and (context.historical or self._dated_before(context, subject)):
                return None  # true of an older comparison, in a sentence of the past or of a named day
            verdicts.append((metric, actual, old))
        metric, actual, old = verdicts[0]
        current_subject = self.know.standing(subject, context)
        current_target = self.know.standing(target, context)
        quoted = context.unit.text[claim.start : self._claim_text_end(context, claim)].strip()
        says = "; ".join(
            (f"on {m.label}: " if len(verdicts) > 1 else "") + ledger_says(a, m, current_subject, current_target)
            for m, a, _ in verdicts
        )
        message = f"says {quoted}; {says}"
        if old is not None:
            message += f"; it quotes the comparison of {old}"
        if current_subject.name != subject or current_target.name != target:
            message += f" — {actual.described}"
        certain = metric_certain and subject_certain and len(verdicts) == 1
        if certain and claim.word == "/":
            # "DP8/TP8 = 1.9": no value region renders a ratio; the number to write instead.
            fix = (f'write the ratio as {1 + actual.value / 100:.2f} ({delta_words(actual.value, metric)} than '
                   f"{current_target.label}), or say it in words and bind it")
        elif certain:
            fix = self.claim_fix(current_subject, current_target, metric, actual)
        else:
            unsure = "which experiment" if metric_certain and len(verdicts) == 1 else "which metric"
            fix = f"no fix proposed: {unsure} the claim is about is unclear; say it, then bind the claim"
        return context.finding(claim.start, claim.text_end, STALE_CLAIM, message, ledger_line(actual, metric), fix,
                               current_subject.name, quoted)

    def _holds_other_way(
        self, context: Context, claim: Claim, subject: str, target: str, metrics: Sequence[MetricInfo],
        subject_certain: bool,
    ) -> bool:
        """Whether another reading of the parties makes the claim true: the change to a superseded subject's
        successor, or, under "## A vs B", an inferred subject on either side."""
        if self._successor_change_holds(claim, subject, metrics):
            return True
        pair = {context.section_subject, context.section_target}
        return not subject_certain and None not in pair and {subject, target} == pair and \
            self._holds(context, claim, target, subject, metrics)

    def _successor_change_holds(self, claim: Claim, subject: str, metrics: Sequence[MetricInfo]) -> bool:
        """"old-X's footprint was 27.8 GB, so the new scales shaved a little (-3.2%)": a bare signed change
        whose subject is a superseded experiment may be the change to its successor; it holds if true of it."""
        if claim.polarity != SIGNED or claim.word or claim.object_at is not None:
            return False
        for successor in (e.name for e in self.facts.experiments.values() if e.supersedes == subject):
            for metric in metrics:
                actual = self.actual_delta(successor, subject, metric, None)
                claimed = claimed_intervals(claim, metric)
                if actual is not None and claimed is not None and claim_holds(
                        claimed, actual.value, actual.low, actual.high, held_bound(claim)):
                    return True
        return False

    def _dated_before(self, context: Context, subject: str) -> bool:
        """Whether the sentence names a day before the subject's current result was measured: it speaks of then."""
        measured = self.know.standing(subject, context).measured_on
        return measured is not None and any(day < str(measured)[:10] for day in _DATED.findall(context.unit.text))

    def _holds_now(
        self, context: Context, claim: Claim, claimed: list[tuple[float, float]], actual: Delta, metric: MetricInfo
    ) -> bool:
        """Whether the claim holds of the ledger's current delta. A sentence quoting an undecided comparison
        as undecided ("+1.0%, interval -4.7% to +7.1%, inconclusive") quotes its estimate, which must be the
        ledger's; a direction the ledger cannot support is otherwise false unless the sentence calls it noise."""
        if quotes_estimate(context.unit.text, actual):
            return claim_holds(claimed, actual.value, None, None, held_bound(claim))
        cannot_tell = unsupported(claimed, actual) and not calls_it_noise(context.unit.text)
        return not cannot_tell and self._claim_holds(claim, claimed, actual, metric)

    @staticmethod
    def _claim_holds(claim: Claim, claimed: list[tuple[float, float]], actual: Delta, metric: MetricInfo) -> bool:
        """Whether the ledger's delta allows the claim. An approximate ratio ("≈ 1.3x": 1.2x to 1.4x) is
        already widened for its approximation: it holds when that range holds the ledger's figure, or when
        the ratio written as exact would hold with the comparison's interval; never stricter than exact."""
        if not widened(claim):
            return claim_holds(claimed, actual.value, actual.low, actual.high, held_bound(claim))
        exact = claimed_intervals(dataclasses.replace(claim, bound="exact"), metric) or []
        return claim_holds(claimed, actual.value, None, None, "exact") or claim_holds(
            exact, actual.value, actual.low, actual.high, "exact")

    def _holds(self, context: Context, claim: Claim, subject: str, target: str, metrics: Sequence[MetricInfo]) -> bool:
        """Whether the claim holds (or cannot be checked) for this subject and target on any of the metrics."""
        for metric in metrics:
            actual = self.actual_delta(subject, target, metric, context)
            claimed = claimed_intervals(claim, metric)
            if actual is None or claimed is None or claim_holds(claimed, actual.value, actual.low, actual.high,
                                                                held_bound(claim)):
                return True
        return False

    def read(self, context: Context) -> list[Claim]:
        """The sentence's claims; a bare ratio ("1.6x TP8") only when an experiment follows it, and
        "A/B = 1.6" ratios of two named experiments."""
        claims = [
            c for c in find_claims(context.unit.text)
            if c.word != "x" or (c.object_at is not None and (mention_at(context.mentions, c.object_at) is not None
                                                              or reference_end(context.unit.text, c.object_at) is not None))
        ]
        claims += [c for c in self.reader.slash_ratios(context) if not any(c.start < o.text_end and c.text_end > o.start
                                                                             for o in claims)]
        return sorted(claims, key=lambda c: c.start)

    def _without_result(self, context: Context, claim: Claim, subject: str, target: str) -> Finding | None:
        """A claim about (or against) an experiment with no successful result: what the ledger says instead."""
        parties = [self.know.standing(name, context) for name in dict.fromkeys((subject, target))]
        missing = [party for party in parties if without_result(party)
                   and (not context.historical or never_succeeded(self.facts, party.name))]
        if not missing:
            return None
        quoted = context.unit.text[claim.start : self._claim_text_end(context, claim)].strip()
        states = "; ".join(no_result_state(party) for party in missing)
        message = f"says {quoted}, but the ledger has no successful result to compare: {states}"
        fix = f"no fix proposed: reword it; {states}"
        return context.finding(claim.start, claim.text_end, STALE_CLAIM, message, states, fix, missing[0].name, quoted)

    def _resolve(
        self, context: Context, claim: Claim, neighbours: list[Claim]
    ) -> tuple[tuple[MetricInfo, ...], str, str, bool, bool] | None:
        """The metrics a claim may be about, its subject, its target, and whether both metric and
        subject were read from its own words; None when any is unclear."""
        clause_start, clause_end = context.clause(claim.start)
        change = self._change_of_one(context, claim, neighbours)
        if change is not None:
            return change
        if left_alone(context, claim, clause_start, clause_end):
            return None
        reading = self._claim_metric(context, claim, neighbours)
        if reading is None:
            return None
        target = self._named_target(context, claim)
        if claim.object_at is not None and target is None:
            return None  # compared with something the ledger does not name
        target = target or self.reader.prefix_target(context, claim)
        subject = self._claim_subject(context, claim, target, neighbours)
        if target is None and claim.object_at is None:
            # "25% faster than graphs on throughput, 33% slower on TTFT": the target carries over.
            for earlier in reversed([c for c in neighbours if c.start < claim.start and c.object_at is not None]):
                carried = self._named_target(context, earlier)
                if carried is not None and carried != subject:
                    target = carried
                break
        if target is None and claim.object_at is None and context.section_target not in (None, subject):
            target = context.section_target  # under "## 2P1D vs TP8": "+18% tok/s"
        subject_certain = True
        inferable = subject is None and context.previous is not None and (
            self.reader.names_no_other_subject(context, claim) or self.reader.reorders_name(context, claim, context.previous))
        if inferable and target is not None and context.previous != target:
            subject, subject_certain = context.previous, False  # "vs TP8: ITL p50 -31%" after a sentence naming 1P1D
        if inferable and subject is None and target is None and not context.mentions and not reading.default:
            subject, subject_certain = context.previous, False  # under "## Chunked prefill": "rate=4: +5% tok/s"
        if subject is None:
            return None
        if target is None:
            target = self._default_target(context, subject)
            if target is None:
                subject, target = self._subject_for_reference(context, subject)
                if subject is None or target is None:
                    return None
        return reading.candidates, subject, target, reading.certain, subject_certain

    def _change_of_one(
        self, context: Context, claim: Claim, neighbours: list[Claim]
    ) -> tuple[tuple[MetricInfo, ...], str, str, bool, bool] | None:
        """"went from 1100 to 1300 tok/s (+18%)" about an experiment that supersedes another, when the two
        figures are the ledger's before and after: the claim is that change, read against the ledger's."""
        figures = before_after(claim, context.unit.text)
        lines = {self.know.standing(m.experiment, context).name for m in context.mentions}
        if figures is None or len(lines) != 1:
            return None
        current = self.facts.experiments[lines.pop()]
        reading = self._claim_metric(context, claim, neighbours)
        if current.supersedes is None or reading is None or not reading.certain or len(reading.candidates) != 1:
            return None
        metric = reading.candidates[0]
        facts = current.metrics.get(metric.name)
        if facts is None or facts.change is None:
            return None
        written = [float(f.replace(",", "")) for f in figures]
        allowed = [tolerance(len(f.split(".")[1]) if "." in f else 0, metric.digits) for f in figures]
        if not (matches(written[0], facts.change.old, allowed[0], "exact")
                and matches(written[1], facts.change.new, allowed[1], "exact")):
            return None  # figures the ledger does not hold: the numbers' own findings tell
        return (metric,), current.name, current.supersedes, True, True

    def parties(self, context: Context, claim: Claim) -> Comparison:
        """Who a claim compares, as far as the ledger names them: None stands for words it does not know."""
        target = self._named_target(context, claim)
        subject = self._claim_subject(context, claim, target)
        if target is None and claim.object_at is None and subject is not None:
            target = self._default_target(context, subject)
            if target is None:  # "from A to B gives 2% more": B against A, the reference
                subject, target = self._subject_for_reference(context, subject)
                if subject is None or target is None:
                    return Comparison(claim.start, None, None)  # unclear
        return Comparison(claim.start, subject, target)

    def _named_target(self, context: Context, claim: Claim) -> str | None:
        """The experiment a claim names as its target ("than |baseline", "beats |Ring by 5%")."""
        if claim.object_at is not None:
            at = mention_at(context.mentions, claim.object_at)
            if at is not None:
                return at.experiment
            elided = self.reader.elided_target(context, claim.object_at, claim.start)
            named = None if elided is not None else self._claim_subject(context, claim, None)  # "2.5x the baseline's"
            return elided or self.reader.reference_target(context, claim.object_at, named)
        if claim.object_search_start is not None:
            inside = [m for m in context.mentions if claim.object_search_start <= m.start < claim.start + 80 and m.start > claim.start]
            return inside[0].experiment if inside else None
        return None

    def _claim_text_end(self, context: Context, claim: Claim) -> int:
        if claim.object_at is not None and claim.object_at > claim.start + 1 and claim.word != "/":
            after = mention_at(context.mentions, claim.object_at)
            if after is not None:
                return after.end
            elided = self.reader.elided_target_end(context, claim.object_at, claim.start)
            if elided is not None:
                return elided
            role = reference_end(context.unit.text, claim.object_at)
            if role is not None:
                return role
        return claim.text_end

    def _claim_metric(self, context: Context, claim: Claim, neighbours: list[Claim]) -> MetricReading | None:
        """The metric the words after the claim name ("20% lower TTFT", "+19% goodput over"), else
        the one its clause names (:class:`ClaimReader`)."""
        if is_move_verb(claim.word):
            # "TTFT p95 drops 10% with X": the verb's subject names the quantity; "memory drops" is none of ours.
            clause_start, _ = context.clause(claim.start)
            subject_words = " ".join(context.plain[clause_start : claim.start].split()[-4:])
            named = self.reader.noun_metrics(subject_words)
            return MetricReading((named[-1],), True) if len(named) == 1 else None
        noun = claim.noun
        if noun:
            # "beats |the baseline| by 5%", "22% higher |with FP8 KV| than ...": a name is no noun of a metric.
            from_ = claim.start if claim.object_search_start is None else claim.object_search_start
            at = context.unit.text.find(noun, from_)
            noun = " ".join(context.plain[at : at + len(noun)].split()) if at >= 0 else noun
        if noun:
            named = self.reader.noun_metrics(noun)
            if len(named) == 1:
                return MetricReading((named[0],), True)  # "2% faster at prompt processing", "+11% tok/s"
            if len(named) > 1:
                return MetricReading(tuple(named), False)  # "improves goodput and TTFT p95 by 20%"
        if noun and not _PREPOSITION.match(noun):
            if not named and claim.polarity == SIGNED and not only_filler(noun):
                return None  # "+5% acceptance rate"
            if not named and claim.polarity in (UP, DOWN) or (not named and claim.factor):
                return None  # "30% higher acceptance": not a metric the ledger holds
            if not named and claim.polarity in (GOOD, BAD) and not only_filler(noun):
                return None
        if claim.word.startswith("sav"):
            return None  # "saves 9%" of what its words do not name: no metric of ours
        return self._cost_only(claim, self._speed_only(claim, self.reader.metric(context, claim, neighbours)))

    def _cost_only(self, claim: Claim, reading: MetricReading | None) -> MetricReading | None:
        """"12% cheaper", "9% more expensive": a word of price is about the project's one cost metric, never another."""
        if not COST_WORD.fullmatch(claim.word):
            return reading
        costs = [m for m in reading.candidates if COST.search(f"{m.label} {m.unit}")] if reading else []
        costs = costs or [m for m in self.facts.metrics.values() if COST.search(f"{m.label} {m.unit}")]
        return MetricReading((costs[0],), True) if len(costs) == 1 else None

    def _speed_only(self, claim: Claim, reading: MetricReading | None) -> MetricReading | None:
        """"31% faster than BF16 with no accuracy loss": a speed word is about a speed (a rate or a
        time), never about another metric the clause names; with none left, the primary one, as when
        no metric is named."""
        if reading is None or not SPEED_WORD.fullmatch(claim.word):
            return reading
        kept = tuple(m for m in reading.candidates if is_speed(m))
        if len(kept) == len(reading.candidates):
            return reading
        if kept:
            return MetricReading(kept, reading.certain and len(kept) == 1)
        primary = self.facts.metrics.get(self.facts.primary_metric or "")
        if primary is None or not is_speed(primary):
            return None
        return MetricReading((primary,), True, default=True)

    def _claim_subject(
        self, context: Context, claim: Claim, target: str | None, neighbours: Sequence[Claim] = ()
    ) -> str | None:
        named_target = mention_at(context.mentions, claim.object_at) if claim.object_at is not None else None
        # The targets of the sentence's other claims are not this one's subject ("1.5x eager tok/s, 1.4x eager TTFT").
        objects = {c.object_at for c in neighbours if c is not claim and c.object_at is not None}
        before = [
            m for m in context.mentions
            if m.end <= claim.start and m is not named_target and (named_target is not None or m.experiment != target)
            and not any(o <= m.start <= o + 1 for o in objects)
        ]
        # A name inside a parenthesis closed before the claim is an aside, not its subject:
        # "compile is faster (1.25x CUDA graphs) but its TTFT is 20% above eager's".
        outside = [m for m in before if not closed_aside(context.unit.text, m.start, claim.start)]
        before = outside or before
        if not before:
            # "47% lower with 2P1D than with TP8": the subject between the claim word and its link.
            end = claim.object_at if claim.object_at is not None else claim.text_end
            within = [m for m in context.mentions if claim.start <= m.start and m.end <= end and m is not named_target
                      and m.experiment != target]
            if within:
                return within[0].experiment
        if target is not None or claim.object_search_start is not None:
            if before:
                return before[-1].experiment
            return context.row_experiment
        if before:
            # The subject of the claim's own clause ("..., and budget 512 loses 38%"), else the sentence's.
            clause_start, _ = context.clause(claim.start)
            own = [m for m in before if m.start >= clause_start]
            return (own or before)[0].experiment
        return context.row_experiment

    def _rivals(self, context: Context, claim: Claim, subject: str, target: str) -> list[str]:
        """Other experiments the claim's clause names before it with no target of their own:
        "Budget 2048 sits at 1420 ms, budget 512 loses 38%" may be about either."""
        if claim.object_at is not None or claim.object_search_start is not None:
            return []
        clause_start, _ = context.clause(claim.start)
        taken = {self.know.standing(name, context).name for name in (subject, target)}
        rivals = []
        for mention in context.mentions:
            line = self.know.standing(mention.experiment, context).name
            if clause_start <= mention.start and mention.end <= claim.start and line not in taken:
                taken.add(line)
                rivals.append(mention.experiment)
        return rivals

    def _default_target(self, context: Context, subject: str) -> str | None:
        current = self.know.standing(subject, context)
        return current.compare_to

    def _subject_for_reference(self, context: Context, reference: str) -> tuple[str | None, str | None]:
        """'A reaches X against B, the reference: a 3% gain' — the other experiment compared with it."""
        others = [
            m.experiment for m in context.mentions
            if m.experiment != reference
            and self.know.standing(m.experiment, context).compare_to == self.know.standing(reference, context).name
        ]
        if len(set(others)) == 1:
            return others[0], reference
        return None, None

    def actual_delta(self, subject: str, target: str, metric: MetricInfo, context: Context | None) -> Delta | None:
        """The subject's current delta against the target, its interval, and how it was obtained."""
        s = self.know.standing(subject, context)
        t = self.know.standing(target, context)
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
            return Delta((s_facts.current / old - 1) * 100, None, None, f"{s.label} against {named.label}", how,
                         runs=f"{cite_current(s)} against {cite_current(named)}")
        runs = f"{cite_current(s)} against {cite_current(t)}"
        comparison = s_facts.comparison if s_facts is not None else None
        if comparison is not None and comparison.against == t.name:
            return Delta(comparison.delta_pct, comparison.ci_low, comparison.ci_high, f"{s.label} against {t.label}",
                         "comparison", comparison.verdict, runs, comparison.decided_on, comparison.stopped_after)
        reverse = t_facts.comparison if t_facts is not None else None
        if reverse is not None and reverse.against == s.name:
            def invert(d: float | None) -> float | None:
                return None if d is None or d <= -100 else (1 / (1 + d / 100) - 1) * 100
            inverted = invert(reverse.delta_pct)
            if inverted is None:
                return None
            return Delta(inverted, invert(reverse.ci_high), invert(reverse.ci_low), f"{s.label} against {t.label}", "reverse",
                         reverse.verdict, runs)
        pair = self.facts.pair(s.name, t.name, metric.name)
        if pair is not None:
            return Delta(pair.delta_pct, pair.ci_low, pair.ci_high,
                         f"{s.label} against {t.label} (a pair outside the corrected family: p uncorrected)", "pair",
                         pair.verdict, runs)
        if s_facts is None or t_facts is None or s_facts.current is None or not t_facts.current:
            return None
        return Delta((s_facts.current / t_facts.current - 1) * 100, None, None,
                     f"{s.label} against {t.label} (from their medians)", "medians", runs=runs)

    def historical_comparison(
        self, subject: str, target: str, metric: MetricInfo, claimed: list[tuple[float, float]], bound: str,
        context: Context | None,
    ) -> str | None:
        """The date of an older comparison of the two lines of experiments that the claim matches."""
        subject_line = self.facts.lineage(subject)
        target_line = self.facts.lineage(target)
        target_runs = sorted(
            (run for member in target_line for run in history(member, metric.name)), key=lambda r: r.run_id
        )
        for member in subject_line:
            facts = member.metrics.get(metric.name)
            if facts is None:
                continue
            if member.name != self.know.standing(subject, context).name and facts.comparison is not None:
                c = facts.comparison
                if claim_holds(claimed, c.delta_pct, c.ci_low, c.ci_high, bound):
                    return f"{member.label} ({cite_current(member)})"
            for run in facts.history:
                if not target_runs:
                    break
                earlier = [r for r in target_runs if r.run_id < run.run_id]
                partner = earlier[-1] if earlier else target_runs[0]
                if partner.value and claim_holds(claimed, (run.value / partner.value - 1) * 100, None, None, bound):
                    if self.know.is_current(member, metric, run, context) and self.know.is_current(
                        self.know.standing(target, context), metric, partner, context
                    ):
                        continue
                    return (f"{cite_run(run.run_id, run.date)} against {cite_run(partner.run_id, partner.date)} "
                            f"({fmt(run.value, metric.digits)} against {fmt(partner.value, metric.digits)})")
        return None

    def claim_fix(self, subject: ExperimentFacts, target: ExperimentFacts, metric: MetricInfo, delta: Delta) -> str:
        """The words to write instead, and the value region that keeps them true (its text as sync renders it)."""
        metric_part = "" if metric.name == self.facts.primary_metric else f".{metric.name}"
        if delta.how == "change":
            text = f"{delta.value:+.1f}%"
            return (f'write "{text}", or bind it: <!-- benchdoc:value {subject.name}{metric_part} show=change -->'
                    f"{text}<!-- benchdoc:end -->")
        if delta.how == "comparison":
            text = verdict_text(delta, metric, target.label)
            return (f'write "{text}", or bind it: <!-- benchdoc:value {subject.name}{metric_part} show=verdict -->'
                    f"{text}<!-- benchdoc:end -->")
        words = delta_words(delta.value, metric)
        phrase = f"{words} than {target.label}" if words != "no change" else f"no different from {target.label}"
        if delta.verdict is not None:  # a pair's own verdict: "inconclusive against X (+4.8%)", never a direction it lacks
            phrase = verdict_text(delta, metric, target.label)
        return (f'write "{phrase}", or bind it: <!-- benchdoc:value {subject.name}{metric_part} show=verdict '
                f"vs={target.name} --><!-- benchdoc:end --> and run `benchdoc sync --write`")

    def cell(
        self, cell: Unit, path: str, experiment: str, historical: bool, pinned: frozenset[str] = frozenset(),
        hedged: bool = False, columns: Sequence[MetricInfo] = (), against: str | None = None,
    ) -> Finding | None:
        """A "vs X" column against the header's experiment (or compare_to): a signed percentage
        ("+3.8%"), or a change in words as a rendered table writes it ("3.8% faster", "2.03x faster",
        "12.0% lower").

        ``hedged``: the row itself says the difference is noise (a "No difference" status, "within noise").
        ``columns``: the metrics the row's other columns hold; a header naming none is about theirs.
        ``against``: the target when the table says it elsewhere (a before/after table's first column).
        """
        claim = vs_cell_claim(cell.text)
        if claim is None or HYPOTHETICAL.search(cell.text[: claim.start]):
            return None  # no claim, or a plan's: "target: +30%", "expected 1.2x faster"
        context = Context(cell, path, (), experiment, historical, table_row=True, pinned=pinned)
        named = self.know.mentions.find(cell.header or "")
        target = named[0].experiment if named else against or self.know.standing(experiment, context).compare_to
        if target is None:
            return None
        missing = self._without_result(context, claim, experiment, target)  # "| EPLB | — | 28.0% faster |", EPLB failed
        metric = self._cell_metric(cell.header or "", columns)
        if missing is not None or metric is None:
            return missing
        actual = self.actual_delta(experiment, target, metric, context)
        claimed = claimed_intervals(claim, metric)
        if actual is None or claimed is None:
            return None
        cannot_tell = unsupported(claimed, actual) and not hedged and not calls_it_noise(cell.text)
        if not cannot_tell and claim_holds(claimed, actual.value, actual.low, actual.high, held_bound(claim)):
            return None
        if historical and self.historical_comparison(experiment, target, metric, claimed, held_bound(claim), context):
            return None
        subject, versus = self.know.standing(experiment, context), self.know.standing(target, context)
        quoted = cell.text[claim.start : claim.end].strip()
        message = f"says {quoted}; {ledger_says(actual, metric, subject, versus)}"
        fix = self.claim_fix(subject, versus, metric, actual)
        return context.finding(claim.start, claim.end, STALE_CLAIM, message, ledger_line(actual, metric), fix, subject.name)

    def _cell_metric(self, header: str, columns: Sequence[MetricInfo] = ()) -> MetricInfo | None:
        """The metric a "vs X" column is about: the one its header names ("vs baseline (TTFT)", or of several
        the one whose whole label it holds), else the primary, unless the table's other columns hold metrics without it: then theirs when they hold one
        ("| TTFT p99 | vs eager |"), and none (unclear) when they hold several."""
        named = self.know.named_metrics(header) if header else []
        if len(named) == 1:
            return named[0]
        if len(named) > 1:
            # "vs np4 (Aggregate generation speed)" beside a "Prompt processing speed": the one whose whole label
            # the header holds, never a metric of another column; unclear when no one label is whole in it.
            whole = [m for m in named if m.label.lower() in header.lower()]
            return whole[0] if len(whole) == 1 else None
        primary = self.facts.metrics.get(self.facts.primary_metric or "")
        held = {m.name: m for m in columns}
        if not held or primary is None or primary.name in held:
            return primary
        return next(iter(held.values())) if len(held) == 1 else None

