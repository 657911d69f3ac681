"""Whose figure a number in a sentence is, by where it stands.

In "EAGLE-3 is 87% faster than baseline (1583.6 tok/s vs 845.7 tok/s)" the first number of
the pair is the subject's and the second the target's: the pair follows the order of the
comparison before it. A number standing where something the ledger does not name belongs
("Speculative decoding reaches 1583.6 tok/s, 87% faster than baseline", with no experiment
of that name) is nobody's the lint can judge. Otherwise a number belongs to the experiment
named last before it, as it always did, and is certain only when the sentence names one.

This module only places numbers; which experiment's current or past values a number
matches is weighed against the place in :mod:`benchdoc.lint.stale_values`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from benchdoc.lint.context import Context
from benchdoc.lint.quantities import Quantity

# Between the two numbers of a pair of different experiments' figures ("1583.6 tok/s vs 845.7 tok/s").
# "to", "->" and ranges join an experiment's before and after, or its bounds: not a pair.
_PAIR_LINK = re.compile(r"^\s*(?:vs\.?|versus|against|and|or|/|compared (?:to|with))\s*[~≈]?\s*$", re.IGNORECASE)
# The same with the first figure's owner between, and a hedge on the second: "180 GB/s for TP16, against
# roughly 360 GB/s": only a word of contrast links them then ("... for A and 6 req/s" is a list).
_PAIR_LINK_OWNED = re.compile(r"^\s*(?:for|on|with)\s+[^,;()]{1,40}?\s*,?\s*(?:vs\.?|versus|against|compared (?:to|with))"
                              r"\s*(?:roughly|about|around|approximately|~|≈)?\s*$", re.IGNORECASE)


# Between a name and its figure in a list or notebook line: "S-LoRA: 2.1k tok/s", "1P1D = ~10.9k tok/s".
# A metric's words may stand between the name and its colon: "torch.compile TTFT p99: 420 ms".
_HEAD = re.compile(r"^(?:\s+[A-Za-z][\w/-]*){0,3}\s*[*_]*\s*(?::|=|—)\s*(?:~|≈)?\s*$")


# A figure right after a name ("static 6.50 req/s", "static (6.20 req/s)"), and where an item of a list starts.
_ON_NAME = re.compile(r"^\s*(?:on|for|with)\s+(?:the\s+)?$", re.IGNORECASE)
_AFTER_FIGURE = re.compile(r"\d[^,;(]*[(,;]\s*[*_]*\s*$")
_ADJACENT = re.compile(r"^(?:'s?)?\s*[*_]*\s*(?:\(\s*)?(?:~|≈)?\s*$")
_LIST_START = re.compile(r"(?:^|[,;:|(]|\b(?:and|vs\.?|versus|against))\s*[*_]*\s*(?:the\s+)?$", re.IGNORECASE)


# Before the target of a comparison, after a figure: "4,050 ms, slightly worse than DP8".
_TARGET_WORD = re.compile(r"(?:\b(?:than|over|vs\.?|versus|against|relative to|compared (?:to|with))|"
                          r"(?:\d\s*[%x×]|\btimes)\s+(?:above|below|ahead of|behind|under)|"
                          # a change "on" a name ("up 18% on the full stack's"); "62.0% on prod" is prod's figure
                          r"(?:\b(?:up|down)\s+|[+−-])\d[\d.,]*\s*%\s+on)\s+(?:the\s+)?"
                          r"(?:(?:plain|stock|vanilla|bare|regular)\s+)?$", re.IGNORECASE)


# Before a name that owns the earlier figure of a change: "78.0%, up from 62.0% on prod".
_FROM_FIGURE_ON = re.compile(r"\bfrom\s+[~≈]?\d[\d.,]*\s*[^\s\d,;]*\s+(?:on|for|with|at)\s+(?:the\s+)?$", re.IGNORECASE)


# A name as what something is compared with, and a name right after a pair's second figure.
# "equivalent to X", "matches X", "within 3% of X" name X as what is compared with too.
_AS_TARGET = re.compile(_TARGET_WORD.pattern.removesuffix("$") + r"$|\b(?:same as|as \w+ as|on par with|in line with|"
                        r"like|(?:equivalent|equal|identical|comparable|similar)\s+to|match(?:es|ing)?|"
                        r"within\s+\S+\s+of)\s+(?:the\s+)?$", re.IGNORECASE)
_AFTER_PAIR = re.compile(r"^\s*(?:(?:on|for|with|at|in)\s+)?(?:the\s+)?$", re.IGNORECASE)


# A figure right after a name: "relative to the baseline at 89.5 tok/s", "than TP8 (7,850 tok/s)".
_AT_NAME = re.compile(r"^\s*(?:'s(?:\s+\w+\s+(?:of\s+)?)?|at|of|with|:|=|\()?\s*[~≈]?\s*$", re.IGNORECASE)


# A clause whose subject is a pronoun: "..., and it serves 10.4k tok/s" after "A is 1.75x B".
# So does a trailing "with ..." after a comparison: "TTFT p50 down 70% vs FP8, with a hit rate of 71.5%".
_PRONOUN_SUBJECT = re.compile(r"^[\s*_]*(?:(?:(?:and|but|so|while)\s+)?(?:it|its)|with)\b", re.IGNORECASE)


# A clause that opens with a name, then a verb and its figure: "1P1D sustains 14.3 req/s", "and B200 hits ~48".
_SUBJECT_LEAD = re.compile(r"^[\s*_>-]*(?:(?:and|but|while|whereas)\s+)?(?:the\s+)?$", re.IGNORECASE)
_IT_LEAD = re.compile(r"^[\s*_>-]*(?:it|they)\b", re.IGNORECASE)
_VERB_GAP = re.compile(r"^\s+(?:now\s+|still\s+|only\s+)?(?!vs\b|versus\b)[a-z]+(?:s|ed)\s+(?:at\s+)?(?:about\s+|around\s+|"
                       r"roughly\s+|~\s*|≈\s*)?$")


@dataclass(frozen=True)
class Comparison:
    """A relative claim's two sides in a sentence: "A is 87% faster than B"."""

    start: int  # where the claim starts
    subject: str | None  # None: named by words the ledger does not know (or not at all)
    target: str | None  # both None: which is which is unclear


@dataclass(frozen=True)
class Place:
    """Where a number stands in its sentence."""

    experiment: str | None  # the experiment whose figure stands there
    certain: bool  # the sentence's shape leaves no doubt (a pair after a comparison)
    foreign: bool = False  # it stands where something the ledger does not name belongs


def place(
    context: Context, quantity: Quantity, quantities: Sequence[Quantity], comparisons: Sequence[Comparison]
) -> Place:
    """Whose figure ``quantity`` is by its position among the sentence's numbers and comparisons."""
    paired = _pair(context.unit.text, quantity, quantities)
    if paired is not None:
        index, first = paired
        sides = _sides_before(context, first.start, comparisons) or _target_only_pair(context, first, quantities)
        if sides is not None:
            owner = sides[index]
            return Place(owner, owner is not None, foreign=owner is None)
        if index == 1 and len({m.experiment for m in context.mentions}) < 2 and context.row_experiment is None:
            # "keep TP8 (TTFT p99 3,420 ms vs 4,050 ms)": the pair's other side is not named.
            return Place(None, False, foreign=True)
    for comparison in comparisons:
        if comparison.subject is None and comparison.target is not None and quantity.start < comparison.start:
            before = [m for m in context.mentions if m.end <= quantity.start]
            if not before and context.row_experiment is None:
                return Place(None, False, foreign=True)  # the unnamed subject's figure
    before_it = [m for m in context.mentions if m.end <= quantity.start]
    after_it = [m for m in context.mentions if m.start >= quantity.end]
    if not before_it and context.row_experiment is None and after_it and (
        _TARGET_WORD.search(context.unit.text[quantity.end : after_it[0].start])
        or _FROM_FIGURE_ON.search(context.unit.text[quantity.unit_end : after_it[0].start])
    ):  # "hit rate 78.0%, up from 62.0% on prod": prod's is the earlier figure
        # "TTFT p99 4,050 ms, slightly worse than DP8": the figure of the comparison's unnamed subject.
        return Place(None, False, foreign=True)
    if context.row_experiment is None and context.mentions and all(
        _TARGET_WORD.search(context.unit.text[max(0, m.start - 30) : m.start]) for m in context.mentions
    ) and not (before_it and _AT_NAME.match(context.unit.text[before_it[-1].end : quantity.start])):
        # "TTFT p50 151 ms (-23% vs plain IFB-128), p99 420 ms": every name is a comparison's target.
        return Place(None, False, foreign=True)
    heads = {m.experiment for m in before_it}
    if before_it and _HEAD.match(context.unit.text[before_it[-1].end : quantity.start]) and (
        len(heads) == 1 or _AFTER_FIGURE.search(context.unit.text[: before_it[-1].start])
    ):  # "(eager: 520 ms)" after another name's figure: each head of a list owns its figure
        return Place(before_it[-1].experiment, True)  # "S-LoRA: 2.1k tok/s with 32 adapters": the head's figure
    if before_it and _ADJACENT.match(context.unit.text[before_it[-1].end : quantity.start]) and _LIST_START.search(
        context.unit.text[: before_it[-1].start]
    ):
        # "Goodput: CB 7.50 req/s, static 6.50 req/s", "CB (7.50 req/s) vs static (6.20 req/s)": each
        # name of a list followed at once by its figure.
        return Place(before_it[-1].experiment, True)
    after_it = [m for m in context.mentions if m.start >= quantity.unit_end]
    since = max([context.clause(quantity.start)[0], *(_owned_end(context, q) for q in quantities if q.unit_end <= quantity.start)])
    if after_it and _ON_NAME.match(context.unit.text[quantity.unit_end : after_it[0].start]) and not any(
        m.start >= since for m in before_it
    ):
        # "TTFT p99 is 450 ms on torch.compile and 500 ms on eager": the name right after the figure owns it.
        return Place(after_it[0].experiment, True)
    pronoun = _pronoun_subject(context, quantity, comparisons) or _clause_subject(context, quantity, quantities)
    if pronoun is not None:
        return Place(pronoun, True)
    named_before = list(dict.fromkeys(m.experiment for m in before_it))
    if len(named_before) == 1:
        after = [c for c in comparisons if c.start > quantity.start]
        if after and after[0].subject == named_before[0] and after[0].target not in (None, named_before[0]):
            # "EP8 reached 4,950 tok/s, 45% above BF16": the figure of the comparison's subject.
            return Place(named_before[0], True)
    return Place(context.nearest(quantity.start) if context.mentions or context.row_experiment else None, False)


def _pronoun_subject(context: Context, quantity: Quantity, comparisons: Sequence[Comparison]) -> str | None:
    """The subject of the comparison before a clause whose own subject is "it", which names no one else
    ("A is 1.75x B on throughput, and it serves 10.4k tok/s": A's figure), else None."""
    clause_start, _ = context.clause(quantity.start)
    comma = context.unit.text.rfind(",", clause_start, quantity.start)  # ", with a hit rate of 71.5%"
    clause_start = comma + 1 if comma >= 0 else clause_start
    if not _PRONOUN_SUBJECT.match(context.unit.text[clause_start : quantity.start]):
        return None
    if any(clause_start <= m.start < quantity.start for m in context.mentions):
        return None
    earlier = [c for c in comparisons if c.start < clause_start]
    return earlier[-1].subject if earlier else None


def _clause_subject(context: Context, quantity: Quantity, quantities: Sequence[Quantity]) -> str | None:
    """The experiment a clause opens with when a verb alone stands between it and the clause's first figure
    ("1P1D sustains 14.3 req/s of goodput, and 2P1D attains ...": 1P1D's), else None."""
    clause_start, _ = context.clause(quantity.start)
    named = [m for m in context.mentions if clause_start <= m.start and m.end <= quantity.start]
    if any(clause_start <= q.start < quantity.start for q in quantities):
        return None
    text = context.unit.text
    it = _IT_LEAD.match(text) if clause_start == 0 and not named else None
    if it is not None and context.row_experiment is not None and _VERB_GAP.match(text[it.end() : quantity.start]):
        return context.row_experiment  # "It now sustains 11.2 req/s": the previous sentence's subject
    if len(named) != 1:
        return None
    if _SUBJECT_LEAD.match(text[clause_start : named[0].start]) and _VERB_GAP.match(text[named[0].end : quantity.start]):
        return named[0].experiment
    return None


def _owned_end(context: Context, quantity: Quantity) -> int:
    """Where a figure's own words end: past "on X" when a name follows it so ("450 ms on torch.compile")."""
    after = [m for m in context.mentions if m.start >= quantity.unit_end]
    if after and _ON_NAME.match(context.unit.text[quantity.unit_end : after[0].start]):
        return after[0].end
    return quantity.unit_end


def _pair(text: str, quantity: Quantity, quantities: Sequence[Quantity]) -> tuple[int, Quantity] | None:
    """(0 or 1, the pair's first number) when the number is one of an "a vs b" pair, else None."""
    ordered = sorted(quantities, key=lambda q: q.start)
    at = next((i for i, q in enumerate(ordered) if q.start == quantity.start), None)
    if at is None:
        return None
    if at + 1 < len(ordered) and _linked(text, ordered[at], ordered[at + 1]):
        return 0, ordered[at]
    if at > 0 and _linked(text, ordered[at - 1], ordered[at]):
        return 1, ordered[at - 1]
    return None


def _linked(text: str, first: Quantity, second: Quantity) -> bool:
    if first.before or second.before:
        return False  # "from 54.1 to 96.1": one experiment's before and after
    if not first.units & second.units:
        return False  # "96.1 tok/s and 43.5 ms": two metrics, not two experiments
    gap = text[first.unit_end : second.start]
    if _PAIR_LINK.match(gap) or _PAIR_LINK_OWNED.match(gap):
        return True
    # "89.5 vs 92.6 tok/s": the first number shares the second's unit.
    return first.unit_end == first.end and _PAIR_LINK.match(text[first.end : second.start]) is not None


def _target_only_pair(context: Context, first: Quantity, quantities: Sequence[Quantity]) -> tuple[None, str] | None:
    """The sides of an "a vs b" pair when the sentence names one experiment only, as the comparison's target
    ("the same as prod: 9,810 vs 9,800 tok/s") or right after the pair ("~300 ms vs ~400 ms today"): the
    first figure is the unnamed subject's, the second the target's. None otherwise."""
    if context.row_experiment is not None or len({m.experiment for m in context.mentions}) != 1:
        return None
    text = context.unit.text
    second = min((q for q in quantities if q.start > first.start), key=lambda q: q.start, default=None)
    for mention in context.mentions:
        if mention.end <= first.start and _AS_TARGET.search(text[max(0, mention.start - 30) : mention.start]):
            return None, mention.experiment
        if second is not None and mention.start >= second.unit_end and _AFTER_PAIR.match(text[second.unit_end : mention.start]):
            return None, mention.experiment
    return None


def _sides_before(
    context: Context, position: int, comparisons: Sequence[Comparison]
) -> tuple[str | None, str | None] | None:
    """The two experiments a pair of numbers at ``position`` stands for, in order, or None when unclear."""
    before = [c for c in comparisons if c.start < position]
    if before:
        last = before[-1]
        return None if last.subject is None and last.target is None else (last.subject, last.target)
    named = list(dict.fromkeys(m.experiment for m in context.mentions if m.end <= position))
    if len(named) == 2:
        return named[0], named[1]  # "EAGLE-3 against the baseline: 96.1 vs 92.6 tok/s"
    return None

