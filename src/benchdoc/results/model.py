"""The results of a project, as data: each experiment's current result, and the questions
every view asks of them (which experiments a pattern names, which metric a name or label
means, how one experiment compares with another)."""

from __future__ import annotations

import fnmatch
import statistics
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from benchdoc.config import Config, ExperimentConfig, MetricConfig
from benchdoc.errors import UsageError
from benchdoc.ledger.models import Outcome, RunRecord
from benchdoc.naming import experiment_name, known_experiments, select, split_level_experiment
from benchdoc.pooling import Pooling
from benchdoc.results.pairs import can_compare, compare_summaries
from benchdoc.results.status import Status
from benchdoc.selection import find_metric
from benchdoc.stats import CORRECTION_NAMES, summarize

if TYPE_CHECKING:
    from benchdoc.envdiff import EnvDifference
    from benchdoc.results.reliability import Reliability
    from benchdoc.results.requests import RequestLatencies, RequestReader
    from benchdoc.results.workload import WorkloadMix
    from benchdoc.stats import Change, Comparison, Summary


class NoComparison(UsageError):
    """Two experiments cannot be compared on a metric (no results, no shared metric, ...)."""


@dataclass(frozen=True)
class ExperimentResult:
    """An experiment's current result, status and comparisons."""

    name: str
    config: ExperimentConfig
    status: Status
    reason: str | None  # why it failed, or the notes of an untested experiment
    failure_log_line: str | None
    runs: tuple[RunRecord, ...]  # every run, newest first
    pooled: tuple[RunRecord, ...]  # the runs the summaries are computed from
    summaries: dict[str, Summary] = field(default_factory=dict)
    comparisons: dict[str, Comparison] = field(default_factory=dict)  # against compare_to, per metric
    changes: dict[str, Change] = field(default_factory=dict)  # against the superseded experiment
    superseded_by: str | None = None
    environment_diff: tuple[EnvDifference, ...] = ()  # against compare_to's pooled runs
    warnings: tuple[str, ...] = ()
    # Its latest (or a pooled) run ran another configuration than benchdoc.toml now gives.
    config_changed: bool = False
    # Its pooled runs measured different workloads (its sentence is also one of ``warnings``).
    mixed_workloads: WorkloadMix | None = None
    # The failed share of its pooled runs' requests against [stats] max_error_rate.
    reliability: Reliability | None = None
    # Why its newest run, a setup or harness error newer than any result, measured nothing.
    setup_error: str | None = None
    # A swept experiment's load levels that have runs (``EXP@rate=4``...), by kind then level.
    levels: tuple[str, ...] = ()

    @property
    def level_of(self) -> str | None:
        """The swept experiment this is a load level of (``EXP`` for ``EXP@rate=4``), or None."""
        parts = split_level_experiment(self.name)
        return parts[0] if parts is not None else None

    @property
    def label(self) -> str:
        return self.config.label

    @property
    def unreliable(self) -> bool:
        """More of its requests failed (or were cut short) than ``[stats] max_error_rate``."""
        return self.reliability is not None and self.reliability.unreliable

    @property
    def compare_to(self) -> str | None:
        return self.config.compare_to

    @property
    def supersedes(self) -> str | None:
        return self.config.supersedes

    @property
    def latest_run(self) -> RunRecord | None:
        return self.runs[0] if self.runs else None

    @property
    def measured_at(self) -> datetime | None:
        return self.pooled[0].started_at if self.pooled else None

    @property
    def n_runs(self) -> int:
        return len(self.pooled)

    def value(self, metric: str) -> float | None:
        """The current centre (median) of a metric, or None when there is none."""
        summary = self.summaries.get(metric)
        return summary.median if summary else None

    def values(self, metric: str) -> list[float]:
        return [v for run in self.pooled for v in run.values(metric)]

    def median(self, metric: str) -> float | None:
        """The median of the pooled values of any recorded metric, summarised or not."""
        summary = self.summaries.get(metric)
        if summary is not None:
            return summary.median
        return median_of(self.values(metric))


def median_of(values: Sequence[float]) -> float | None:
    """The median of some values (a run's repetitions, a bench's passes), None of none: the
    one way every view takes a centre that is not a summary."""
    return float(statistics.median(values)) if values else None


def run_median(run: RunRecord, metric: str) -> float | None:
    """The median of one run's values of ``metric`` over its repetitions, or None."""
    return median_of(run.values(metric))


@dataclass(frozen=True)
class PairComparison:
    """One experiment against another on one metric, and whether it was corrected.

    ``corrected`` is True for a configured ``compare_to`` pair: ``comparison`` is then the
    very object `show`, tables and the lint read, its p adjusted across the project's
    family for the metric. An ad-hoc pair is computed with the same settings and bootstrap
    size but is not part of that family: its p is uncorrected, and ``note`` says so.
    """

    candidate: str
    baseline: str
    metric: str
    comparison: Comparison
    corrected: bool
    note: str


@dataclass(frozen=True)
class ResultSet:
    """Every experiment's result, in config order (experiments only in the ledger last)."""

    config: Config
    experiments: dict[str, ExperimentResult]
    pooling: Pooling
    correction: str
    family_sizes: dict[str, int]  # metric -> number of comparisons corrected together
    _ad_hoc: dict[tuple[str, str, str], Comparison] = field(default_factory=dict, repr=False, compare=False)
    # Reads the requests kept with runs (the ledger the results were built from, while it is open).
    read_requests: RequestReader | None = field(default=None, repr=False, compare=False)
    _latencies: dict[str, RequestLatencies | None] = field(default_factory=dict, repr=False, compare=False)

    def request_latencies(self, names: Iterable[str]) -> dict[str, RequestLatencies]:
        """The per-request TTFT and TPOT distributions of these experiments' pooled runs, read in
        one query; an experiment whose pooled runs kept no requests is left out."""
        wanted = [self[name].name for name in names]
        missing = [name for name in dict.fromkeys(wanted) if name not in self._latencies]
        if missing and self.read_requests is not None:
            from benchdoc.results.requests import request_latencies

            ids = {name: [run.id for run in self.experiments[name].pooled] for name in missing}
            kept = self.read_requests([run_id for run_ids in ids.values() for run_id in run_ids])
            for name, run_ids in ids.items():
                self._latencies[name] = request_latencies(name, {run_id: kept.get(run_id, ()) for run_id in run_ids})
        found = {name: self._latencies.get(name) for name in wanted}
        return {name: latencies for name, latencies in found.items() if latencies is not None}

    def __getitem__(self, name: str) -> ExperimentResult:
        """The result of the experiment with this name or alias."""
        return self.experiments[experiment_name(name, self._known())]

    def __iter__(self) -> Iterator[ExperimentResult]:
        return iter(self.experiments.values())

    def _known(self) -> dict[str, tuple[str, ...]]:
        return known_experiments(result.config for result in self)

    def select(self, patterns: Iterable[str]) -> list[ExperimentResult]:
        """Experiments named by names, aliases or glob patterns, in the order given, each once.

        Experiments recorded but not declared in benchdoc.toml are named like any other.
        """
        return [self.experiments[name] for name in select(patterns, self._known())]

    def where(self, chosen: Iterable[ExperimentResult], conditions: Iterable[str]) -> list[ExperimentResult]:
        """Those of ``chosen`` matching every ``KEY=VALUE`` (VALUE may be a glob): KEY is one of
        the experiment's variables (a sweep's matrix keys among them), server, workload, role,
        sweep or status, or rate/concurrency for a load level."""
        wanted = []
        for condition in conditions:
            key, sep, value = condition.partition("=")
            if not sep or not key.strip():
                raise UsageError(f"--where {condition!r}: expected NAME=VALUE, e.g. --where tp=2 or --where 'server=sglang*'")
            wanted.append((key.strip(), value.strip()))

        def facts(result: ExperimentResult) -> dict[str, str]:
            exp = result.config
            found = {k: str(v) for k, v in exp.variables.items()}
            found.update({k: str(v) for k, v in (("server", exp.server), ("workload", exp.workload), ("role", exp.role),
                                                  ("sweep", exp.sweep), ("status", result.status)) if v is not None})
            level = result.name.rsplit("@", 1)[1] if result.level_of else ""
            if "=" in level:
                found[level.split("=")[0]] = level.split("=")[1]
            return found

        return [r for r in chosen if all(fnmatch.fnmatchcase(facts(r).get(k, "\0"), v) for k, v in wanted)]

    def run_summary(self, run: RunRecord, metric: str) -> Summary | None:
        """One run's own summary of a metric (its repetitions), at the project's confidence."""
        values = run.values(metric)
        if not values or run.outcome != Outcome.OK:
            return None
        return summarize(values, self.config.stats.confidence, run.start_labels(metric))

    def measured_metrics(self) -> list[str]:
        """Every metric some experiment has a summary of, sorted."""
        return sorted({metric for result in self for metric in result.summaries})

    def metric(self, name: str | None = None) -> MetricConfig:
        """The metric called or labelled ``name`` (``tok/s``, ``TTFT p50``, ``output_tok_s``).

        No name: the primary metric, else the only metric measured. A metric recorded but
        not declared is found by its name, with neutral words.
        """
        return find_metric(name, self.config.metrics, self.measured_metrics(), self.config.primary_metric)

    def correction_note(self, metric: str) -> str | None:
        """'Holm–Bonferroni correction across 4 comparisons', when one applies to this metric."""
        size = self.family_sizes.get(metric, 0)
        if self.correction == "none" or size < 2:
            return None
        return f"{CORRECTION_NAMES.get(self.correction, self.correction)} correction across {size} comparisons"

    def compare(self, candidate: str, baseline: str | None = None, metric: str | None = None) -> PairComparison:
        """``candidate`` against ``baseline`` (default: its compare_to) on ``metric`` (default: primary).

        A configured pair gives the project's corrected comparison itself; any other pair is
        computed with the same settings, uncorrected, and says so. NoComparison says why not.
        """
        a = self[candidate]
        if baseline is None and a.compare_to is None:
            raise NoComparison(f"{a.name} has no compare_to; name the experiment to compare it with")
        b = self[baseline if baseline is not None else a.compare_to or ""]
        if a.name == b.name:
            raise NoComparison(f"cannot compare {a.name} with itself")
        spec = self.metric(metric)
        mine, theirs = self._summaries(a, b, spec.name)
        if b.name == a.compare_to and spec.name in a.comparisons:
            note = self.correction_note(spec.name) or "a single comparison: no correction applies"
            return PairComparison(a.name, b.name, spec.name, a.comparisons[spec.name], True, note)
        key = (a.name, b.name, spec.name)
        if key not in self._ad_hoc:
            self._ad_hoc[key] = compare_summaries(self.config, spec.name, mine, theirs, a.pooled, b.pooled)
        note = f"not part of the corrected family ({b.name} is not {a.name}'s compare_to): p is uncorrected"
        return PairComparison(a.name, b.name, spec.name, self._ad_hoc[key], False, note)

    def shared_metrics(self, candidate: str, baseline: str) -> list[str]:
        """The metrics both experiments have that a ratio can be taken of (an error rate of 0
        cannot), the declared ones only when there are any; NoComparison when a side has none."""
        a, b = self[candidate], self[baseline]
        self._check_results(a, b)
        shared = [m for m in a.summaries if m in b.summaries and can_compare(b.summaries[m])]
        declared = [m for m in shared if m in self.config.metrics]
        if not (declared or shared):
            raise NoComparison(f"{a.name} and {b.name} share no metric")
        return declared or shared

    @staticmethod
    def _check_results(*sides: ExperimentResult) -> None:
        for side in sides:
            if not side.summaries:
                why = f"its latest run failed: {side.reason}" if side.status is Status.FAILED else "it has no successful runs"
                raise NoComparison(f"cannot compare: {side.name} has no results to compare ({why})")

    def _summaries(self, a: ExperimentResult, b: ExperimentResult, metric: str) -> tuple[Summary, Summary]:
        """Both sides' summaries of ``metric``, or NoComparison saying what is missing."""
        self._check_results(a, b)
        if metric not in a.summaries or metric not in b.summaries:
            raise NoComparison(f"metric '{metric}' is not recorded for both {a.name} and {b.name}")
        if not can_compare(b.summaries[metric]):
            raise NoComparison(
                f"cannot compare {metric}: {b.name}'s median is {b.summaries[metric].median:g}, "
                "and a ratio needs a positive baseline"
            )
        if a.summaries[metric].median < 0:
            raise NoComparison(
                f"cannot compare {metric}: {a.name}'s median is {a.summaries[metric].median:g}, below zero"
            )
        return a.summaries[metric], b.summaries[metric]
