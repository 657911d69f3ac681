"""Verdicts and statuses in words: the one place that says '3.8% faster', '~' or 'now fails'.

Tables, value regions, charts, `show`, `compare`, the report and the prose lint all word a
comparison through these functions, so the same result reads the same everywhere, and
the lint's suggested fix is exactly what a region would render.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from benchdoc.config.model import is_speed_unit, is_time_unit
from benchdoc.results.status import Status
from benchdoc.stats import MAX_STARTS_SUGGESTED
from benchdoc.stats import format_p as format_p  # re-exported: a p-value for people ('0.0079', '<0.001')
from benchdoc.stats.summary import OUTLIER_IQR_FACTOR

if TYPE_CHECKING:
    from benchdoc.ledger.models import RunRecord
    from benchdoc.results.reliability import Reliability
    from benchdoc.stats import Comparison, Sequential, Summary

DASH = "—"
NOISE = "~"  # benchstat's mark: the difference is noise
UNDECIDED = "?"  # a sequential test stopped without a decision: no direction to show


class Wording(Protocol):
    """What a metric contributes to words: which way is better, how to say it, and what
    says how far a change went (its unit, and its label for a sentence)."""

    @property
    def better_word(self) -> str: ...

    @property
    def worse_word(self) -> str: ...

    @property
    def direction(self) -> str: ...

    @property
    def unit(self) -> str: ...

    @property
    def label(self) -> str: ...


_DEFAULT_WORDS = ("better", "worse")


def change_words(delta_pct: float, metric: Wording, digits: int = 1, *, named: bool = False) -> str:
    """How far a change went, in words that agree with its sign; never "-50.8% faster",
    and never a size that rounds to nothing ("0.0% slower", "1.00x faster"): a change
    too small for ``digits`` is given with as many more digits as it takes.

    - a throughput (a unit per second): '3.8% faster', '10.0% slower';
    - a latency or duration (a time unit, lower is better): the ratio of the times, as
      hyperfine says it: '2.03x faster' where the time halved, '1.25x slower';
    - any other metric, with its own better/worse words when it declares them
      ('2.0% more accurate'), else the way the number moved: '50.8% lower' (with the
      metric's label when ``named``: '50.8% lower Peak memory').
    """
    better = (delta_pct > 0) == (metric.direction == "higher")
    word = metric.better_word if better else metric.worse_word
    ratio = 1 + delta_pct / 100
    if is_time_unit(metric.unit) and metric.direction == "lower" and ratio > 0:
        factor = 1 / ratio if ratio < 1 else ratio
        return f"{_visible(factor, 2, above=1.0)}x {word}"
    size = f"{_visible(abs(delta_pct), digits)}%"
    if is_speed_unit(metric.unit) or (metric.better_word, metric.worse_word) != _DEFAULT_WORDS:
        return f"{size} {word}"
    moved = f"{size} {'higher' if delta_pct > 0 else 'lower'}"
    return f"{moved} {metric.label}" if named and metric.label else moved


def _visible(value: float, digits: int, above: float = 0.0) -> str:
    """``value`` with ``digits`` decimals, or more when fewer would show it as ``above``."""
    for places in range(digits, digits + 6):
        text = f"{value:.{places}f}"
        if float(text) != above:
            return text
    return f"{value:.{digits + 6}g}"


def verdict_text(comparison: Comparison, metric: Wording | None = None, digits: int = 1) -> str:
    """The verdict alone, in the metric's words: '3.8% faster', 'equivalent within ±1%',
    'inconclusive (p=0.41); about 9 server starts each would decide',
    '+1.8% within one server start each: start-to-start variation not measured; need >= 2
    starts each', 'undecided after 20 runs (sequential test)'. Every view words a verdict here."""
    better, worse = (metric.better_word, metric.worse_word) if metric is not None else _DEFAULT_WORDS
    verdict = comparison.verdict
    if verdict in ("better", "worse"):
        if metric is not None:
            text = change_words(comparison.delta_pct, metric, digits)
        else:
            text = f"{_visible(abs(comparison.delta_pct), digits)}% {better if verdict == 'better' else worse}"
        if comparison.medians_disagree:
            text += f" (the medians differ the other way: {comparison.median_delta_pct:+.{digits}f}%)"
        return text
    if verdict == "equivalent":
        return f"equivalent within ±{(comparison.equivalence_margin or 0) * 100:g}%"
    if verdict == "undecided":
        sequential = comparison.sequential
        if sequential is not None and sequential.decided_on:
            return f"not decided: the sequential test stopped on {sequential.decided_on}, not on this metric"
        return f"undecided after {stopped_after(sequential)} (sequential test)"
    if verdict == "insufficient":
        return insufficient_text(comparison, digits)
    return f"{INCONCLUSIVE} (p={format_p(comparison.p_used)}{comparison.p_label}){_deciding(comparison)}"


INCONCLUSIVE = "inconclusive"


def insufficient_text(comparison: Comparison, digits: int = 1) -> str:
    """Why no test was made: a side with fewer than two server starts."""
    needed = comparison.starts_needed or 2
    if comparison.single_start:
        return (f"{comparison.delta_pct:+.{digits}f}% within one server start each: start-to-start "
                f"variation not measured; need >= {needed} starts each")
    return (f"need >= {needed} server starts each "
            f"(has {comparison.starts_candidate} and {comparison.starts_baseline})")


def _deciding(comparison: Comparison) -> str:
    """What would decide an inconclusive comparison: '; about 9 server starts each would decide'."""
    if comparison.starts_needed is None and comparison.equivalence_margin is None:
        return f"; a shift this small needs over {MAX_STARTS_SUGGESTED} server starts each: an equivalence_margin would decide sooner"
    if comparison.starts_needed is None:
        return f"; a shift this close to the margin needs over {MAX_STARTS_SUGGESTED} server starts each"
    return f"; about {comparison.starts_needed} server starts each would decide"


def components_text(comparison: Comparison) -> str | None:
    """Kalibera & Jones's variance components: 'between-start CV 1.2%, within-start CV 0.4%'."""
    parts = comparison.components
    shown = []
    if parts.between_cv is not None:
        shown.append(f"between-start CV {parts.between_cv * 100:.2g}%")
    if parts.within_cv is not None:
        shown.append(f"within-start CV {parts.within_cv * 100:.2g}%")
    return ", ".join(shown) or None


def tested(comparison: Comparison) -> bool:
    """A test decides this comparison: not with fewer than two server starts a side, nor on
    a metric a sequential test did not decide on (its run's length was chosen on another)."""
    sequential = comparison.sequential
    return comparison.estimate is not None and not (sequential is not None and sequential.decided_on)


def p_text(comparison: Comparison) -> str:
    """The p-value a verdict was decided on, for a p column; '—' where no test could be made
    (fewer than two server starts a side) or none decides (a metric the sequential test
    did not stop on): a p there would read as evidence."""
    return format_p(comparison.p_used) if tested(comparison) else DASH


def design_note(comparison: Comparison, metric: str) -> str | None:
    """'tok/s: 5 v 5 server starts of 3 repetitions; between-start CV 1.2%, within-start CV 0.4%':
    the design a comparison was made on and Kalibera & Jones's variance components."""
    parts = components_text(comparison)
    if parts is None:
        return None
    reps = comparison.components.repetitions
    return (f"{metric}: {comparison.starts_candidate} v {comparison.starts_baseline} server starts of about "
            f"{reps} repetition{'s' if reps != 1 else ''}; {parts}")


def delta_text(comparison: Comparison) -> str:
    """The delta as a table shows it: '+3.8%', '~' when the test could not tell, and no
    direction at all ('?') when a sequential test stopped undecided."""
    if comparison.verdict == "undecided":
        return UNDECIDED
    return NOISE if comparison.verdict == "same" else f"{comparison.delta_pct:+.1f}%"


def delta_mark(comparison: Comparison | None) -> str | None:
    """A chart's short label: '+3.8%', '~' for inconclusive or equivalent, '+3.8%?' with
    too few starts, '?' when a sequential test stopped undecided."""
    if comparison is None:
        return None
    if comparison.verdict in ("same", "equivalent"):
        return NOISE
    if comparison.verdict == "undecided":
        return UNDECIDED
    text = f"{comparison.delta_pct:+.1f}%"
    return text if comparison.verdict in ("better", "worse") else f"{text}?"


def vs_line(comparison: Comparison, metric: Wording, target: str, digits: int = 1) -> str:
    """One line against the reference: '+3.8% vs baseline: 3.8% faster'; an undecided
    sequential test shows no signed delta: 'vs baseline: undecided after 20 server starts (sequential test)'."""
    verdict = verdict_text(comparison, metric, digits)
    if comparison.verdict in ("undecided", "insufficient"):
        return f"vs {target}: {verdict}"
    return f"{comparison.delta_pct:+.1f}% vs {target}: {verdict}"


def vs_cell(comparison: Comparison, metric: Wording) -> str:
    """A table's "vs" cell: '3.8% faster (p=0.008)', '2.03x faster (p=0.008)' for a latency,
    '~ +0.2% (inconclusive, p=0.41)': a direction in words, or a signed delta with no
    direction claimed."""
    delta = f"{comparison.delta_pct:+.1f}%"
    if comparison.verdict in ("better", "worse"):
        return f"{change_words(comparison.delta_pct, metric)} (p={format_p(comparison.p_used)})"
    if comparison.verdict == "equivalent":
        return f"≈ {delta} (equivalent within ±{(comparison.equivalence_margin or 0) * 100:g}%)"
    if comparison.verdict == "insufficient":
        if comparison.single_start:
            return f"{delta} (one server start each: too few to tell)"
        return f"{delta} (too few server starts to tell: need >= {comparison.starts_needed} each)"
    if comparison.verdict == "undecided":  # a sequential test stopped without a direction: show none
        return verdict_text(comparison, metric)
    return f"{NOISE} {delta} ({INCONCLUSIVE}, p={format_p(comparison.p_used)})"


def stopped_after(sequential: Sequential | None) -> str:
    """How far a sequential test went: '20 server starts' ('20 runs' in records older than starts)."""
    if sequential is None:
        return "0 runs"
    if sequential.starts is not None:
        return f"{sequential.starts} server start{'s' if sequential.starts != 1 else ''}"
    return f"{sequential.repetitions} runs"


def verdict_sentence(
    verdict: str | None,
    delta_pct: float,
    other: str,
    *,
    metric: Wording,
    margin: float | None,
    sequential: Sequential | None = None,
    decided_on: str | None = None,
    after: str | None = None,
) -> str:
    """What a ``show=verdict`` value region says: '3.8% faster than Baseline (no spec)',
    '2.03x faster than Baseline' for a latency, '12.0% lower Peak memory than Baseline'.

    Takes plain numbers, not a Comparison, so the prose lint can suggest exactly this text
    from its cached facts. ``sequential``: how a sequential test ended, where it stopped
    undecided (or on another metric), as every other view words it; the lint, which keeps
    no statistics objects, gives the same as ``decided_on`` (the metric the test decided
    on, for another metric of its run) and ``after`` (how far it went: '7 server starts').
    """
    if sequential is not None:
        decided_on, after = sequential.decided_on, stopped_after(sequential)
    if verdict in ("better", "worse"):
        return f"{change_words(delta_pct, metric, named=True)} than {other}"
    if verdict == "equivalent":
        return f"equivalent to {other} (within ±{(margin or 0) * 100:g}%)"
    if verdict == "insufficient":
        return f"{delta_pct:+.1f}% vs {other} (too few server starts to tell)"
    if verdict == "undecided":  # no direction: the sequential test found none
        if decided_on:
            return f"not decided against {other}: the sequential test stopped on {decided_on}, not on this metric"
        return f"undecided against {other}{f' after {after}' if after else ''} (sequential test)"
    return f"{INCONCLUSIVE} against {other} ({delta_pct:+.1f}%)"


def shift_interval_text(comparison: Comparison) -> str | None:
    """The shift's interval as shown beside a verdict: '[+1.2%, +6.3%] (97.5%)'. Its bounds
    keep as many digits as it takes for one that excludes 0 not to read as 0."""
    low, high, level = comparison.delta_ci_low, comparison.delta_ci_high, comparison.delta_ci_level
    if low is None or high is None or level is None:
        return None
    return f"[{_signed_bound(low)}, {_signed_bound(high)}] ({level * 100:.4g}%)"


def _signed_bound(value: float) -> str:
    if value == 0:
        return "0%"
    for places in range(1, 7):
        text = f"{value:+.{places}f}"
        if float(text) != 0:
            return f"{text}%"
    return f"{value:+.2e}%"


def interval_text(summary: Summary) -> str | None:
    """The interval of a median relative to it: '± 0.4%' when both sides round alike,
    else the interval itself, '[-2.5%, +50.0%]'; None when there is no interval."""
    if summary.ci_low is None or summary.ci_high is None or summary.median == 0:
        return None
    scale = 100.0 / abs(summary.median)
    below, above = (summary.ci_low - summary.median) * scale, (summary.ci_high - summary.median) * scale
    if f"{-below:.1f}" == f"{above:.1f}":
        return f"± {above:.1f}%"
    return f"[{_signed_pct(below)}, {_signed_pct(above)}]"


def _signed_pct(value: float) -> str:
    text = f"{value:+.1f}"
    return "0.0%" if text in ("+0.0", "-0.0") else f"{text}%"


def summary_text(summary: Summary, digits: int) -> str:
    """'96.1 ± 0.4%' or '40.0 [-2.5%, +50.0%]': a median and its interval (see interval_text)."""
    median = f"{summary.median:.{digits}f}"
    interval = interval_text(summary)
    return f"{median} {interval}" if interval else median


def interval_note(confidence: float) -> str:
    """What a summary's interval is, for a table's footnote."""
    level = f"{confidence * 100:g}%"
    return (f"± is the half-width of the {level} interval of the median, as % of it; "
            "[low, high] is that interval itself where its two sides differ; over the medians of the server "
            "starts where a result has several starts of several repetitions")


OUTLIER_MARK = "†"


def outlier_rule() -> str:
    """How an outlier is found, in words."""
    return (f"outside {OUTLIER_IQR_FACTOR:g}×IQR of the quartiles (wider below 7 values, none below 5); "
            "flagged, still counted in the median")


def failure_reason(run: RunRecord) -> str:
    """Why a run did not succeed, as shown everywhere: its cause read from the log, then its reason."""
    return run.explanation or "failed"


# How a sentence says an experiment's status changed: "EAGLE-3 now fails".
_STATUS_PHRASES: dict[Status, str] = {
    Status.WORKS: "now works",
    Status.SLOWER: "is now slower",
    Status.WORSE: "is now worse",
    Status.NO_DIFFERENCE: "now makes no difference (equivalent within its margin)",
    Status.FAILED: "now fails",
    Status.REFERENCE: "is the reference",
    Status.UNTESTED: "is untested",
    Status.INCONCLUSIVE: "is now inconclusive",
    Status.MEASURED: "has no verdict yet",
    Status.SUPERSEDED: "is superseded",
}


def status_phrase(status: Status | str) -> str:
    """'now works', 'now fails', 'is the reference': a status as the rest of a sentence."""
    known = Status.parse(str(status))
    return _STATUS_PHRASES[known] if known is not None else f"is now {status}"


def status_of_verdict(verdict: str, measures_speed: bool = True) -> Status | None:
    """The status a comparison's verdict gives a non-reference experiment that ran."""
    if verdict == "better":
        return Status.WORKS
    if verdict == "worse":
        return Status.SLOWER if measures_speed else Status.WORSE
    if verdict == "equivalent":  # "No difference" only where equivalence is shown
        return Status.NO_DIFFERENCE
    if verdict == "same":
        return Status.INCONCLUSIVE
    return None


UNRELIABLE = "unreliable"


def failed_share_text(reliability: Reliability) -> str:
    """'95.0% of requests failed (95 of 100; 95 cut short)', or '95.0% error rate' without counts."""
    share = f"{reliability.rate * 100:.1f}%"
    if reliability.requests is None:
        return f"{share} error rate"
    cut = f"; {reliability.cut_short} cut short" if reliability.cut_short else ""
    return f"{share} of requests failed ({reliability.failed} of {reliability.requests}{cut})"


def unreliable_note(reliability: Reliability) -> str:
    """'unreliable: 95.0% of requests failed (95 of 100; 95 cut short), above the 5% limit'."""
    return f"{UNRELIABLE}: {failed_share_text(reliability)}, above the {reliability.limit * 100:g}% limit"


def unreliable_flag(reliability: Reliability) -> str:
    """A status cell's short flag: 'unreliable: 95.0% failed'."""
    return f"{UNRELIABLE}: {reliability.rate * 100:.1f}% failed"


def against_unreliable_note(label: str, reliability: Reliability) -> str:
    """A table row's note when its comparison is made against an unreliable result."""
    return f"compared with {label}, {unreliable_flag(reliability)}"


def unreliable_warning(name: str, reliability: Reliability) -> str:
    """The warning every view prints beside an unreliable result."""
    return (f"{name} is {unreliable_note(reliability)}; its figures come from the requests that "
            "succeeded and say little about the configuration")


def unreliable_reference_warning(name: str, target: str, reliability: Reliability) -> str:
    """The warning on a comparison made against an unreliable result."""
    return (f"{name} is compared with {target}, which is {unreliable_note(reliability)}: "
            "the comparison is against figures from the few requests that succeeded")


def starved_warning(name: str, run_id: int, sentence: str, against: str | None = None) -> str:
    """'eagle3: run 12: repetitions 2 and 5 were starved of CPU ...', or, for the result a
    comparison is made against, 'eagle3 is compared with baseline, whose run 9: ...'."""
    if against is None:
        return f"{name}: run {run_id}: {sentence}"
    return f"{name} is compared with {against}, whose run {run_id}: {sentence}"
