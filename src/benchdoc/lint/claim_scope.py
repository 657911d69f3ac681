"""Which relative claims are left alone, and which words after a claim are no quantity of their own.

A plan or a hedge, one experiment's before/after, a "respectively" list, a claim made under a load or
setup other than the recorded one: :mod:`benchdoc.lint.stale_claims` checks none of them.
"""

from __future__ import annotations

import re

from benchdoc.lint.claim_reading import is_change_of_one
from benchdoc.lint.claims import Claim
from benchdoc.lint.context import Context
from benchdoc.lint.words import HYPOTHETICAL, OTHER_SETUP, UNNAMED_CONDITION

_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)

# "X needs |half the ...": a verb of use right before the claim; a purpose after it makes it a requirement again.
_USES = re.compile(r"(?:needs|needed|requires|required)\s+", re.IGNORECASE)
_PURPOSE = re.compile(r"\bto\s+(?:meet|reach|hit|match|keep|stay|pass|beat|clear|fit|serve|handle|sustain|cover|be)\b|"
                      r"\bin order to\b|\bso that\b|\bfor (?:the|our|its) (?:SLO|SLA|target|goal)\b", re.IGNORECASE)
_FILLER = frozenset(("on", "in", "at", "for", "this", "that", "the", "our", "workload", "setup", "overall", "now",
                     "still", "here", "today", "e2e", "end-to-end", "net", "total", "in total", "again", "too", "also",
                     "though", "however", "anyway", "then", "all", "both", "each", "of", "them"))


def left_alone(context: Context, claim: Claim, clause_start: int, clause_end: int) -> bool:
    """A plan or hedge, one experiment's before/after, a "respectively" list, or a claim about another setup."""
    text = context.unit.text
    if _hedged(context, claim, clause_start, clause_end) or is_change_of_one(claim, text):
        return True
    if _RESPECTIVELY.search(text) and len({m.experiment for m in context.mentions if m.end <= claim.start}) > 1:
        return True  # "A and B improve goodput by 25% and 20% respectively": whose figure is whose is a list's
    # "On long prompts X is 80% faster", "Without P2P X is 20% slower": not the recorded setup
    return _under_other_setup(context, claim, clause_end)


def _hedged(context: Context, claim: Claim, clause_start: int, clause_end: int) -> bool:
    """A hedge or a plan before the claim ("should be 20% faster", "needs to be 10% faster"). An experiment that
    "needs" or "requires" the claim's quantity of another's ("static INT8 needs half the index memory of FP16",
    "X requires 30% less memory than Y") states what it uses, not a requirement, unless a purpose follows."""
    stretch = context.plain[clause_start : claim.start]
    hedges = list(HYPOTHETICAL.finditer(stretch))
    if not hedges:
        return False
    last = hedges[-1]
    uses = (len(hedges) == 1 and claim.object_at is not None and _USES.fullmatch(stretch[last.start() :]) is not None
            and any(0 <= clause_start + last.start() - m.end <= 3 for m in context.mentions)
            and not _PURPOSE.search(context.plain[claim.text_end : clause_end]))
    return not uses


def _under_other_setup(context: Context, claim: Claim, clause_end: int) -> bool:
    """Whether a claim is made under a load or setup other than the recorded one: "on long prompts",
    "on the smaller model", "with 2x the batch size", or a change the ledger does not name ("without P2P")."""
    if OTHER_SETUP.search(context.unit.text[:clause_end]):
        return True
    for match in UNNAMED_CONDITION.finditer(context.unit.text[: claim.start]):
        if not any(match.start() <= m.start < match.end() for m in context.mentions):
            return True
    return False


def closed_aside(text: str, position: int, until: int) -> bool:
    """Whether ``position`` sits inside a parenthesis that closes before ``until``."""
    opened = text.rfind("(", 0, position)
    if opened < 0 or text.rfind(")", opened, position) >= 0:
        return False
    closed = text.find(")", position)
    return 0 <= closed < until


def only_filler(noun: str) -> bool:
    """Words after a claim that qualify it without naming another quantity ("20% regression e2e")."""
    return all(word.lower().strip(",()") in _FILLER for word in noun.split())
