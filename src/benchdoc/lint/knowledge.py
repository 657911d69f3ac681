"""What the lint knows of one project, and how a name in prose resolves to an experiment's figures.

A name stands for the experiment's *current* result: the end of its supersedes chain,
unless the text names a superseded experiment by a name of its own ("pinned"). The
figures a sentence may quote (current, and past along the chain) are looked up here
and kept, since one document asks for the same experiment many times.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from benchdoc.lint.facts import (
    ExperimentFacts,
    LintFacts,
    MetricFacts,
    MetricInfo,
    RunValue,
)
from benchdoc.lint.mentions import Mention, MentionFinder
from benchdoc.lint.quantities import QuantityFinder
from benchdoc.lint.words import ACRONYMS, HISTORICAL_CUES, METRIC_NOISE_WORDS, UNIT_SPELLINGS

if TYPE_CHECKING:
    from benchdoc.lint.context import Context

class Knowledge:
    """The facts of one project, with the finders and look-ups every rule shares."""

    def __init__(self, facts: LintFacts) -> None:
        self.facts = facts
        self.mentions = MentionFinder(facts.experiments.values(), (m.label for m in facts.metrics.values()))
        self.quantities = QuantityFinder(m.unit for m in facts.metrics.values() if m.unit)
        self.keywords = {name: keyword_pattern(m) for name, m in facts.metrics.items()}
        self.unit_words = {name: unit_pattern(m.unit) for name, m in facts.metrics.items() if m.unit}
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
            # A major.minor that is the start of a longer one ("0.16" of "0.16.0") is taken after a word that
            # says it is a version ("on 0.16", "v0.16"), never alone ("0.16%" is no version).
            short = {v for v in versions if v.count(".") == 1 and any(o.startswith(v + ".") for o in versions)}
            forms = [re.escape(v) if v not in short else _VERSION_CUE + re.escape(v) for v in versions]
            self._versions_cache[name] = (
                re.compile(r"(?<![\d.])(?:" + "|".join(forms) + r")(?![\d]|\.\d|\s*%)", re.IGNORECASE)
                if versions else None
            )
        return self._versions_cache[name]

    def pins(self, mention: Mention, text: str) -> bool:
        """Whether a mention names a superseded experiment by a name of its own (not one its successor shares).

        "NVLS all-reduce (driver 570)" names the old run itself, and so does an alias of its own ("old-1P1D");
        "EAGLE-3" (and "EAGLE-3 2-step", a prefix of its successor's label) names the line of experiments,
        whose current result is the successor's.
        """
        facts = self.facts.experiments[mention.experiment]
        if not facts.superseded_by:
            return False
        written = normalise(text[mention.start : mention.end])
        successors = [e for e in self.facts.lineage(mention.experiment) if e.name != facts.name]
        for successor in successors:
            for spelling in (successor.label, successor.name, *successor.aliases):
                if normalise(spelling).startswith(written):
                    return False
        return True

    def standing(self, name: str, context: Context | None) -> ExperimentFacts:
        """The experiment whose figures a name stands for in this context."""
        if context is not None and name in context.pinned:
            return self.facts.experiments[name]
        return self.facts.current(name)

    def is_historical(self, text: str, mentions: Iterable[Mention], section: Sequence[str] = (), lead: str = "") -> bool:
        mentions = list(mentions)
        plain = text  # a cue inside a name ("old CB", "Previous scheduler") says nothing of time
        for mention in mentions:
            plain = plain[: mention.start] + " " * (mention.end - mention.start) + plain[mention.end :]
        if HISTORICAL_CUES.search(plain):
            return True
        dated = entry_date(text, section, lead)
        if dated is not None and any(_before(dated, _latest_day(self.standing(m.experiment, None))) for m in mentions):
            return True  # a notebook entry dated before the latest run of what it names speaks of its day
        for name in {m.experiment for m in mentions}:
            pattern = self.old_versions(name)
            if pattern is not None and pattern.search(text):
                return True
        return False

    def scope(self, experiments: Sequence[str], context: Context | None) -> list[str]:
        """The named experiments and those they are compared with: a sentence may quote either."""
        scope = list(dict.fromkeys(experiments))
        for name in list(scope):
            target = self.standing(name, context).compare_to
            if target and target in self.facts.experiments and target not in scope:
                scope.append(target)
        return scope

    def values_now(self, name: str, metric: str) -> tuple[float, ...]:
        """The figures of an experiment's own result a sentence may quote: centre, mean, interval, extremes."""
        key = (name, metric)
        if key not in self._now_cache:
            facts = self.facts.experiments[name].metrics.get(metric)
            if facts is None or facts.current is None:
                self._now_cache[key] = ()
            else:
                self._now_cache[key] = (facts.current, *facts.accepted)
        return self._now_cache[key]

    def values_past(self, name: str, metric: str) -> tuple[float, ...]:
        """Every run's result along an experiment's supersedes chain."""
        key = (name, metric)
        if key not in self._past_cache:
            self._past_cache[key] = tuple(
                run.value for member in self.facts.lineage(name) for run in history(member, metric)
            )
        return self._past_cache[key]

    def is_current(self, member: ExperimentFacts, metric: MetricInfo, run: RunValue, context: Context | None) -> bool:
        current = self.standing(member.name, context)
        facts = current.metrics.get(metric.name)
        if facts is None or facts.current is None or current.name != member.name:
            return False
        return abs(run.value - facts.current) < 1e-12

    def names_metric(self, metric: str, text: str) -> bool:
        """Whether the text names a metric by a word of its label or name ("TTFT", "throughput")."""
        pattern = self.keywords.get(metric)
        if pattern is None:
            return False
        own = label_percentile(self.facts.metrics[metric].label)
        for match in pattern.finditer(text):
            # "TTFT p50" names TTFT p50, not TTFT p99.
            given = PERCENTILE_AFTER.match(text, match.end())
            if given is None or own is None or given.group(1).lower() == own:
                return True
        return False

    def names_unit(self, metric: str, text: str) -> bool:
        """Whether the text names a metric's unit, in any of its spellings."""
        pattern = self.unit_words.get(metric)
        return pattern is not None and pattern.search(text) is not None

    def named_metrics(self, text: str) -> list[MetricInfo]:
        """The metrics whose names the text holds."""
        return [m for m in self.facts.metrics.values() if self.names_metric(m.name, text)]


# -- numbers ---------------------------------------------------------------------------


def tolerance(decimals: int, digits: int) -> float:
    return 0.5 * 10 ** (-min(decimals, digits)) + 1e-9


def matches(written: float, value: float, tolerance: float, bound: str) -> bool:
    if bound == "approx":
        return abs(written - value) <= max(tolerance, 0.1 * abs(value))
    if bound == "lower":
        return value >= written - tolerance
    if bound == "upper":
        return value <= written + tolerance
    return abs(written - value) <= tolerance + 1e-9 * abs(value)


def fmt(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def cite_run(run_id: int, date: str) -> str:
    """How a finding names one run: "run #12 of 2026-11-02"."""
    return f"run #{run_id} of {date}"


def cite_current(experiment: ExperimentFacts) -> str:
    """The runs an experiment's current result pools: "run #4 of 2026-11-05", "runs #3, #4 (latest 2026-11-05)"."""
    ids = sorted(experiment.pooled_runs)
    date = experiment.measured_on or "an unknown date"
    if not ids:
        return f"measured {date}"
    if len(ids) == 1:
        return cite_run(ids[0], date)
    if len(ids) > 3:
        return f"{len(ids)} runs, #{ids[0]} to #{ids[-1]} (latest {date})"
    return "runs " + ", ".join(f"#{i}" for i in ids) + f" (latest {date})"


def cite_latest(experiment: ExperimentFacts) -> str:
    """The experiment's latest run, whatever its outcome ("run #7 of 2026-11-05"), or "" when it has none."""
    if not experiment.runs:
        return ""
    latest = experiment.runs[0]
    return cite_run(latest.run_id, latest.started_at[:10])


def history(member: ExperimentFacts, metric: str) -> tuple[RunValue, ...]:
    facts: MetricFacts | None = member.metrics.get(metric)
    return facts.history if facts is not None else ()


# -- words -----------------------------------------------------------------------------


def mention_at(mentions: Iterable[Mention], position: int) -> Mention | None:
    """The mention starting at a position, or spanning it ("than |the default config" when the name has an article)."""
    for mention in mentions:
        if position <= mention.start <= position + 1 or mention.start <= position < mention.end:
            return mention
    return None


def normalise(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())


def inside(start: int, end: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < hi and end > lo for lo, hi in spans)


PERCENTILE = re.compile(r"(?<![\w-])(p\d{2}(?:\.\d+)?)(?![\w-])", re.IGNORECASE)
PERCENTILE_AFTER = re.compile(r"[\s(]*(p\d{2}(?:\.\d+)?)(?![\w-])", re.IGNORECASE)


def label_percentile(label: str) -> str | None:
    """The percentile a metric's label names ("p99" of "TTFT p99"), if one."""
    found = PERCENTILE.search(label)
    return found.group(1).lower() if found else None


def keyword_pattern(metric: MetricInfo) -> re.Pattern[str] | None:
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
    forms = {re.escape(w) for w in words}
    # A noun of action names its verb too: "Generation speed" in "q4_0 generates at 65.8 tok/s".
    forms |= {re.escape(w[:-3]) + r"(?:e|es|ed|ing)" for w in words if len(w) >= 8 and w.endswith("ation")}
    forms |= {ACRONYMS[w] for w in words if w in ACRONYMS}  # "time-to-first-token" for TTFT
    # A word of the label is named in its other forms too: "Decode speed" by "decodes", "Prefill" by "prefilling".
    forms |= {re.escape(w[:-1]) + r"(?:e|es|ed|ing)" if w.endswith("e") else re.escape(w) + r"(?:s|ed|ing)"
              for w in words if len(w) >= 5 and w.isalpha() and w not in ACRONYMS}
    alternation = "|".join(sorted(forms, key=len, reverse=True))
    return re.compile(r"(?<![A-Za-z0-9-])(?:" + alternation + r")(?![A-Za-z0-9-])", re.IGNORECASE)


def unit_pattern(unit: str) -> re.Pattern[str] | None:
    key = unit.strip().lower()
    if not key:
        return None
    spellings = {key, *UNIT_SPELLINGS.get(key, ())}
    alternation = "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))
    return re.compile(r"(?<![\w/])(?:" + alternation + r")(?![\w/])", re.IGNORECASE)


# "2026-09-02: ...", or a month and day alone ("**11-02.**", "Nov 3:", "3 Nov —"), whose year is that of the
# runs it is compared with; a weekday may come first ("Mon 11/03:").
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(?P<month>(?:" + "|".join(_MONTHS) + r")[a-z]*\.?)"
_END = r"(?=[.:,*_)\]]|\s+[—–-]\s)"
# A clock time after a month and day stamps a log entry ("12-03 11:00  replay done", "**11-02 09:10** ·").
_CLOCK = r"(?:\s+(?P<clock>[0-2]?\d:[0-5]\d)(?=[\s*_.:,)\]]|$))"
_HEAD_DATE = re.compile(
    r"^[\s*_>#\[(-]{0,6}(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:"
    r"(?P<iso>20\d\d[-/][01]\d[-/][0-3]\d)(?!\d)|(?P<md>[01]?\d[-/][0-3]?\d)(?:" + _END + "|" + _CLOCK + ")|"
    + _MONTH + r"\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?" + _END + "|"
    r"(?P<day2>[0-3]?\d)\s+(?P<month2>(?:" + "|".join(_MONTHS) + r")[a-z]*\.?)" + _END + ")",
    re.IGNORECASE,
)


def _head_date(text: str) -> str | None:
    """The date at the head of a text, as "2026-11-02" or, without a year, "11-02"."""
    found = _HEAD_DATE.match(text)
    if found is None:
        return None
    if found.group("iso"):
        return found.group("iso").replace("/", "-")
    if found.group("md"):
        month, day = re.split(r"[-/]", found.group("md"))
    else:
        name = (found.group("month") or found.group("month2")).lower()[:3]
        month, day = str(_MONTHS.index(name) + 1), found.group("day") or found.group("day2")
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    clock = found.group("clock") if found.group("md") else None
    return f"{int(month):02d}-{int(day):02d}" + (f"T{int(clock[:-3]):02d}:{clock[-2:]}" if clock else "")


_VERSION_CUE = r"(?:(?<=\bon )|(?<=\bto )|(?<=\bof )|(?<=\bfrom )|(?<=\bv)|(?<=\bV))"


def _latest_day(experiment: ExperimentFacts) -> str:
    """The day of an experiment's latest run (failed or not), else of its current result."""
    days = [experiment.measured_on or "", *(run.started_at for run in experiment.runs[:1])]
    return max(days, key=lambda day: (day[:10], len(day)))


def _before(dated: str, latest: str) -> bool:
    """Whether an entry's day ("2026-11-02", or "11-02" in the year of ``latest``) is before ``latest``."""
    if len(dated) in (5, 11):
        dated = f"{latest[:4]}-{dated}"
    return dated < (latest[:16] if "T" in dated else latest[:10])  # a stamped time against the run's start


def entry_date(text: str, section: Sequence[str], lead: str = "") -> str | None:
    """The day a notebook entry speaks of: a date at the head of its line ("2026-09-02: ...", "11-02."), else
    that of the innermost heading that starts with one ("## 2026-09-02: vLLM 0.6"); a title that
    mentions a date ("Weekly notes, week of 2026-11-02") dates no entry. A later sentence of a paragraph
    that opens with a date (``lead``) belongs to that entry."""
    head = _head_date(text) or _head_date(lead)
    if head is not None:
        return head
    for heading in reversed(section):
        found = _head_date(heading)
        if found is not None:
            return found
    return None
