"""What the prose lint knows of each experiment: plain numbers, cacheable as JSON.

The lint never reads statistics objects directly. It reads :class:`LintFacts`, built once
from the results (``facts_from_results``) and kept in the derived cache under its own
namespace, so a warm `benchdoc lint` or `benchdoc check` needs no numpy or scipy.

For each experiment and metric the facts hold the current centre (and the other numbers
a correct sentence may quote: mean, interval bounds, min and max), the median of every
successful run with its date (to say *which* older result a stale number quotes), the
comparison against its ``compare_to`` and the before/after change against the experiment
it supersedes, and the ids of the runs its current result pools (findings cite them).
Environment version strings that differ from the current setup (``12.8`` for an old
CUDA) are kept per run: a sentence naming them speaks of the past.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from benchdoc.ledger.models import Outcome
from benchdoc.results.model import run_median
from benchdoc.results.status import Status
from benchdoc.results.words import stopped_after

if TYPE_CHECKING:
    from benchdoc.cache import DerivedCache
    from benchdoc.config import Config
    from benchdoc.results import ExperimentResult, LazyResults, ResultSet

CACHE_NAMESPACE = "lint"
CACHE_KEY = "facts-v6"


@dataclass(frozen=True)
class RunValue:
    """One successful run's median of one metric."""

    run_id: int
    date: str  # YYYY-MM-DD of its start (UTC)
    value: float
    old_versions: tuple[str, ...] = ()  # environment versions no longer in the current setup


@dataclass(frozen=True)
class ComparisonFacts:
    """The experiment against its compare_to, as `results` computed it."""

    against: str
    delta_pct: float
    ci_low: float | None
    ci_high: float | None
    verdict: str  # better | worse | same | equivalent | insufficient | undecided
    # Read through a sequential test (run --until-decided): the metric it decided on when
    # that is another one, and how far it went ("7 server starts"), as the views word them.
    decided_on: str | None = None
    stopped_after: str | None = None


@dataclass(frozen=True)
class ChangeFacts:
    """Before -> after against the superseded experiment."""

    old: float
    new: float
    delta_pct: float


@dataclass(frozen=True)
class MetricFacts:
    current: float | None  # the median of the pooled runs; None when there is none
    accepted: tuple[float, ...] = ()  # other current figures a sentence may quote (mean, interval, min, max)
    history: tuple[RunValue, ...] = ()  # every successful run, newest first
    comparison: ComparisonFacts | None = None
    change: ChangeFacts | None = None


@dataclass(frozen=True)
class RunStamp:
    """When a run happened and how it ended (for "what changed since ...")."""

    run_id: int
    started_at: str  # ISO 8601, UTC
    outcome: str


@dataclass(frozen=True)
class ExperimentFacts:
    name: str
    label: str
    aliases: tuple[str, ...]
    status: Status
    reason: str | None
    is_reference: bool
    compare_to: str | None
    supersedes: str | None
    superseded_by: str | None
    metrics: dict[str, MetricFacts] = field(default_factory=dict)
    runs: tuple[RunStamp, ...] = ()  # newest first
    measured_on: str | None = None  # date of its current result
    pooled_runs: tuple[int, ...] = ()  # ids of the runs its current result pools, newest first
    load: tuple[tuple[str, float], ...] = ()  # its workload's settings: ("rate", 6.0), ("slo.ttft_ms", 2000.0)
    unreliable: str | None = None  # why its result is unreliable ("12.0% of its requests failed, above 5.0%")


@dataclass(frozen=True)
class MetricInfo:
    """How a metric is shown: enough of MetricConfig for the lint."""

    name: str
    label: str
    unit: str
    direction: str
    digits: int
    better_word: str
    worse_word: str
    equivalence_margin: float | None = None  # a fraction: 0.01 is ±1%


@dataclass(frozen=True)
class LintFacts:
    experiments: dict[str, ExperimentFacts]
    metrics: dict[str, MetricInfo]
    primary_metric: str | None
    historical_sections: tuple[str, ...]
    # Every other pair of current results, from the query layer's pair comparison (uncorrected:
    # outside the compare_to family), keyed by pair_key; empty for projects too large to pair all.
    pairs: dict[str, ComparisonFacts] = field(default_factory=dict)

    def pair(self, candidate: str, baseline: str, metric: str) -> ComparisonFacts | None:
        return self.pairs.get(pair_key(candidate, baseline, metric))

    def current(self, name: str) -> ExperimentFacts:
        """The experiment whose result stands for ``name`` today: the end of its supersedes chain."""
        facts = self.experiments[name]
        seen = {name}
        while facts.superseded_by and facts.superseded_by in self.experiments and facts.superseded_by not in seen:
            seen.add(facts.superseded_by)
            facts = self.experiments[facts.superseded_by]
        return facts

    def lineage(self, name: str) -> list[ExperimentFacts]:
        """Every experiment in ``name``'s supersedes chain, newest first."""
        chain = [self.current(name)]
        seen = {chain[0].name}
        while chain[-1].supersedes and chain[-1].supersedes in self.experiments and chain[-1].supersedes not in seen:
            seen.add(chain[-1].supersedes)
            chain.append(self.experiments[chain[-1].supersedes])
        return chain

    def to_json(self) -> dict[str, Any]:
        return {
            "experiments": {name: asdict(e) for name, e in self.experiments.items()},
            # The cache writes its keys sorted: the project's order (a sweep's levels by load,
            # 128 before 1024) is kept as a list.
            "order": list(self.experiments),
            "metrics": {name: asdict(m) for name, m in self.metrics.items()},
            "primary_metric": self.primary_metric,
            "historical_sections": list(self.historical_sections),
            "pairs": {key: asdict(c) for key, c in self.pairs.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LintFacts:
        return cls(
            experiments={name: _experiment_from_json(data["experiments"][name])
                         for name in data.get("order") or sorted(data["experiments"])},
            metrics={name: MetricInfo(**m) for name, m in data["metrics"].items()},
            primary_metric=data.get("primary_metric"),
            historical_sections=tuple(data.get("historical_sections", ())),
            pairs={key: ComparisonFacts(**c) for key, c in data.get("pairs", {}).items()},
        )


def _experiment_from_json(data: Mapping[str, Any]) -> ExperimentFacts:
    metrics = {}
    for name, m in data.get("metrics", {}).items():
        comparison = ComparisonFacts(**m["comparison"]) if m.get("comparison") else None
        change = ChangeFacts(**m["change"]) if m.get("change") else None
        history = tuple(
            RunValue(h["run_id"], h["date"], h["value"], tuple(h.get("old_versions", ()))) for h in m.get("history", ())
        )
        metrics[name] = MetricFacts(
            current=m.get("current"), accepted=tuple(m.get("accepted", ())), history=history,
            comparison=comparison, change=change,
        )
    return ExperimentFacts(
        name=data["name"],
        label=data["label"],
        aliases=tuple(data.get("aliases", ())),
        status=Status(data["status"]),
        reason=data.get("reason"),
        is_reference=bool(data.get("is_reference")),
        compare_to=data.get("compare_to"),
        supersedes=data.get("supersedes"),
        superseded_by=data.get("superseded_by"),
        metrics=metrics,
        runs=tuple(RunStamp(**r) for r in data.get("runs", ())),
        measured_on=data.get("measured_on"),
        pooled_runs=tuple(data.get("pooled_runs", ())),
        load=tuple((str(key), float(value)) for key, value in data.get("load", ())),
        unreliable=data.get("unreliable"),
    )


def facts_from_results(results: ResultSet) -> LintFacts:
    """Everything the lint reads, taken from computed results."""
    config = results.config
    experiments = {r.name: _experiment_facts(r, results) for r in results}
    metrics = {
        name: MetricInfo(
            name=m.name, label=m.label, unit=m.unit, direction=m.direction, digits=m.digits,
            better_word=m.better_word, worse_word=m.worse_word, equivalence_margin=m.equivalence_margin,
        )
        for name, m in config.metrics.items()
    }
    return LintFacts(
        experiments=experiments,
        metrics=metrics,
        primary_metric=config.primary_metric,
        historical_sections=tuple(config.documents.historical_sections),
        pairs=_pairs(results),
    )


MAX_PAIRED = 20  # experiments with a result beyond which the lint is not given every pair


def pair_key(candidate: str, baseline: str, metric: str) -> str:
    return f"{candidate}\t{baseline}\t{metric}"


def _pairs(results: ResultSet) -> dict[str, ComparisonFacts]:
    """Each ordered pair of current results on each metric, as `compare A B` gives it (not the compare_to pairs)."""
    from benchdoc.results import NoComparison

    measured = [r for r in results if r.summaries]
    if len(measured) > MAX_PAIRED:
        return {}
    pairs: dict[str, ComparisonFacts] = {}
    for a in measured:
        for b in measured:
            if a.name == b.name or b.name == a.compare_to:
                continue
            for metric in results.config.metrics:
                if metric not in a.summaries or metric not in b.summaries:
                    continue
                try:
                    found = results.compare(a.name, b.name, metric).comparison
                except NoComparison:
                    continue
                pairs[pair_key(a.name, b.name, metric)] = ComparisonFacts(
                    against=b.name, delta_pct=float(found.delta_pct),
                    ci_low=None if found.delta_ci_low is None else float(found.delta_ci_low),
                    ci_high=None if found.delta_ci_high is None else float(found.delta_ci_high),
                    verdict=str(found.verdict),
                )
    return pairs


def load_facts(config: Config, results: LazyResults, cache: DerivedCache | None = None) -> LintFacts:
    """The facts from the cache when it is warm, else from the results (then cached).

    The results are not computed on a warm cache.
    """
    if cache is not None:
        cached = cache.get(CACHE_NAMESPACE, CACHE_KEY)
        if isinstance(cached, dict):
            try:
                return LintFacts.from_json(cached)
            except (KeyError, TypeError, ValueError):
                pass  # written by another version: recompute
    facts = facts_from_results(results.get())
    if cache is not None:
        cache.put(CACHE_NAMESPACE, CACHE_KEY, facts.to_json())
    return facts


def _experiment_facts(result: ExperimentResult, results: ResultSet) -> ExperimentFacts:
    current_versions = _current_versions(result, results)
    metric_names = sorted({s.metric for run in result.runs for s in run.samples} | set(result.summaries))
    metrics: dict[str, MetricFacts] = {}
    for metric in metric_names:
        summary = result.summaries.get(metric)
        accepted: list[float] = []
        if summary is not None:
            accepted = [v for v in (summary.mean, summary.ci_low, summary.ci_high, summary.min, summary.max) if v is not None]
            accepted += [m for run in result.pooled if (m := run_median(run, metric)) is not None]
        history = tuple(
            RunValue(
                run_id=run.id,
                date=run.started_at.strftime("%Y-%m-%d"),
                value=value,
                old_versions=tuple(sorted(_versions(run.environment) - current_versions)),
            )
            for run in result.runs
            if run.outcome == Outcome.OK and (value := run_median(run, metric)) is not None
        )
        comparison = result.comparisons.get(metric)
        change = result.changes.get(metric)
        metrics[metric] = MetricFacts(
            current=float(summary.median) if summary is not None else None,
            accepted=tuple(float(v) for v in accepted),
            history=history,
            comparison=ComparisonFacts(
                against=result.compare_to or "",
                delta_pct=float(comparison.delta_pct),
                ci_low=None if comparison.delta_ci_low is None else float(comparison.delta_ci_low),
                ci_high=None if comparison.delta_ci_high is None else float(comparison.delta_ci_high),
                verdict=str(comparison.verdict),
                decided_on=comparison.sequential.decided_on if comparison.sequential is not None else None,
                stopped_after=stopped_after(comparison.sequential) if comparison.sequential is not None else None,
            )
            if comparison is not None
            else None,
            change=ChangeFacts(old=float(change.old), new=float(change.new), delta_pct=float(change.delta_pct))
            if change is not None
            else None,
        )
    return ExperimentFacts(
        name=result.name,
        label=result.label,
        aliases=tuple(result.config.aliases),
        status=result.status,
        reason=result.reason,
        is_reference=result.config.is_reference,
        compare_to=result.compare_to,
        supersedes=result.supersedes,
        superseded_by=result.superseded_by,
        metrics=metrics,
        runs=tuple(RunStamp(run.id, run.started_at.isoformat(), run.outcome.value) for run in result.runs),
        measured_on=result.measured_at.strftime("%Y-%m-%d") if result.measured_at else None,
        pooled_runs=tuple(run.id for run in result.pooled),
        load=load_settings(results.config.workloads.get(result.config.workload or "", {})),
        unreliable=_unreliable(result),
    )


def _unreliable(result: ExperimentResult) -> str | None:
    """Why a result is unreliable, in words, or None when it is not."""
    found = result.reliability
    if found is None or not found.unreliable:
        return None
    return f"{found.rate:.1%} of its requests failed or were cut short, above the {found.limit:.1%} limit"


def load_settings(workload: Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """The numbers that describe a workload's load, not its results: rate, concurrency, lengths, SLO thresholds."""
    settings: list[tuple[str, float]] = []
    for key, value in workload.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                settings.append((key, float(item)))
        if key == "slo" and isinstance(value, str):
            for part in value.split(","):
                name, _, threshold = part.partition(":")
                try:
                    settings.append((f"slo.{name.strip()}", float(threshold)))
                except ValueError:
                    continue
    return tuple(settings)


def _current_versions(result: ExperimentResult, results: ResultSet) -> set[str]:
    """Version strings of the setup the current result (of this experiment's line) runs on."""
    head = result
    seen = {head.name}
    while head.superseded_by and head.superseded_by in results.experiments and head.superseded_by not in seen:
        seen.add(head.superseded_by)
        head = results.experiments[head.superseded_by]
    latest = next((run for run in head.runs if run.outcome == Outcome.OK), None)
    return _versions(latest.environment) if latest is not None else set()


def _versions(environment: Any) -> set[str]:
    """Every version-like string (``12.8``, ``580.65``, ``2.9.0``) in an environment record, and the
    major.minor of a longer one, as prose writes it ("on 0.16" for ``0.16.0``)."""
    found: set[str] = set()
    for leaf in _leaves(environment):
        text = str(leaf).strip()
        if _looks_like_version(text):
            found.add(text)
            parts = text.split(".")
            if len(parts) > 2:
                found.add(".".join(parts[:2]))
    return found


def _leaves(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, str):
        yield value


def _looks_like_version(text: str) -> bool:
    """'12.8', '580.65', '2.9.0', or a build number such as '5850' (three digits or more)."""
    parts = text.split(".")
    if len(parts) == 1:
        return text.isdigit() and 3 <= len(text) <= 8
    return 2 <= len(parts) <= 4 and all(p.isdigit() for p in parts) and len(text) <= 16
