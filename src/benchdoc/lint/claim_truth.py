"""Whether a relative claim holds: the deltas its words allow, the ledger's delta, and how both are told.

:mod:`benchdoc.lint.stale_claims` finds the claim's parties and its metric; this module holds the
arithmetic (a claim's readings as intervals of deltas, the bounds and hedges) and the words a
finding uses for the ledger's side ("the ledger cannot tell A from B: +0.4% [-10.9%, +13.1%]").
"""

from __future__ import annotations

from dataclasses import dataclass

from benchdoc.lint.claims import BAD, DOWN, GOOD, SIGNED, UP, Claim
from benchdoc.lint.facts import ExperimentFacts, MetricInfo
from benchdoc.lint.verdicts import find_verdicts
from benchdoc.lint.words import NOISE_HEDGE, SAME, UNDECIDED
from benchdoc.results.words import change_words, verdict_sentence


@dataclass(frozen=True)
class Delta:
    """An experiment's current delta against another, and where it comes from."""

    value: float  # candidate / target - 1, in %
    low: float | None
    high: float | None
    described: str  # "A against B"
    how: str  # "comparison" (A's own, against its compare_to), "reverse", "change" (before/after), "pair" (any
    # other pair, by the query layer's uncorrected pair comparison) or "medians" (no pair was computed)
    verdict: str | None = None  # the comparison's verdict, for "comparison" and "reverse"
    runs: str = ""  # the runs compared: "run #4 of 2026-11-05 against run #3 of 2026-11-05"
    decided_on: str | None = None  # a sequential test's metric, when it decided on another one
    stopped_after: str | None = None  # how far a sequential test went: "7 server starts"


# Verdicts under which the ledger cannot tell the two apart: no direction is supported.
_CANNOT_TELL = {
    "same": "inconclusive",
    "equivalent": "equivalent within the margin",
    "insufficient": "too few server starts to tell",
    "undecided": "undecided by the sequential test",
}


def calls_it_noise(text: str) -> bool:
    """Whether a text says its difference is noise: "i.e. noise", "not significant", "i.e. no difference"."""
    if NOISE_HEDGE.search(text):
        return True
    return any(v.meaning == SAME and not v.negated for v in find_verdicts(text))


def quotes_estimate(text: str, actual: Delta) -> bool:
    """Whether a text quotes an undecided comparison as undecided ("+1.0%, inconclusive", "cannot be told apart
    from X: +0.6%") while the ledger cannot tell the two apart either: its figure is the estimate, held to it."""
    return actual.verdict in _CANNOT_TELL and UNDECIDED.search(text) is not None


def unsupported(claimed: list[tuple[float, float]], actual: Delta) -> bool:
    """Whether a claim gives a direction ("10.6% slower") that the comparison's verdict does not support."""
    if actual.verdict not in _CANNOT_TELL:
        return False
    return all(lo > 0 for lo, _ in claimed) or all(hi < 0 for _, hi in claimed)


def _interval(actual: Delta) -> str:
    return f" [{actual.low:+.1f}%, {actual.high:+.1f}%]" if actual.low is not None and actual.high is not None else ""


def _cannot_tell(actual: Delta) -> str | None:
    """Why the ledger cannot tell the two apart, or None when it can."""
    if actual.verdict == "undecided" and actual.decided_on:
        return f"not decided: the sequential test stopped on {actual.decided_on}, not on this metric"
    return _CANNOT_TELL.get(actual.verdict or "")


def ledger_says(actual: Delta, metric: MetricInfo, subject: ExperimentFacts, target: ExperimentFacts) -> str:
    """What the ledger says of the comparison, with the runs it comes from."""
    figures = f"{actual.value:+.1f}%{_interval(actual)}"
    why = _cannot_tell(actual)
    if why is not None:
        return f"the ledger cannot tell {subject.label} from {target.label}: {figures}, {why} ({actual.runs})"
    return f"the ledger says {figures} ({delta_words(actual.value, metric)}; {actual.runs})"


def ledger_line(actual: Delta, metric: MetricInfo) -> str:
    """The comparison as the ledger has it, for a finding's ``ledger`` field."""
    words = _cannot_tell(actual) or delta_words(actual.value, metric)
    return f"{actual.described}: {actual.value:+.1f}%{_interval(actual)}, {words} ({actual.runs})"


def claimed_intervals(claim: Claim, metric: MetricInfo) -> list[tuple[float, float]] | None:
    """The deltas (candidate/target - 1, in %) the claim allows, one interval per reading of it."""
    half = 0.5 * 10 ** (-claim.decimals)
    if claim.factor and not claim.worded and claim.word != "/" and claim.value >= 2:
        # "2x" is about twice, not anything from 1.5x to 2.5x: a whole factor's rounding is at most a tenth of it.
        # A ratio written as a plain number ("A/B = 1") is rounded as written.
        half = min(half, 0.1 * claim.value)
    low_n, high_n = (claim.low if claim.low is not None else claim.value) - half, claim.value + half
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
        if claim.bound == "approx" and not claim.worded:
            # "≈ 1.6x": twice its rounding (1.5 to 1.7), or 3% of the ratio, whichever is more.
            width = max(half, 0.03 * claim.value)
            low_n, high_n = low_n - width, high_n + width
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


def held_bound(claim: Claim) -> str:
    """The bound :func:`claim_holds` applies: an approximate factor is already widened by
    :func:`claimed_intervals` on its own scale (a ratio, not a percentage)."""
    return "exact" if claim.factor and claim.bound == "approx" and not claim.worded else claim.bound


def widened(claim: Claim) -> bool:
    """Whether a claim's own range already allows for its approximation ("≈ 1.3x": 1.2x to 1.4x): it is
    held to the ledger's figure, not widened again by the comparison's interval."""
    return claim.factor and claim.bound == "approx" and not claim.worded


def claim_holds(
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


def delta_words(delta: float, metric: MetricInfo) -> str:
    if abs(delta) < 0.05:
        return "no change"
    return change_words(delta, metric, named=True)


def verdict_text(delta: Delta, metric: MetricInfo, target: str) -> str:
    """What a ``show=verdict`` value region renders for this comparison."""
    return verdict_sentence(
        delta.verdict, delta.value, target,
        metric=metric, margin=metric.equivalence_margin, decided_on=delta.decided_on, after=delta.stopped_after,
    )
