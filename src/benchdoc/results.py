"""The one join of ledger + statistics + config: each experiment's current result.

For every experiment this computes which runs are pooled, the summary of each metric,
the comparison against its ``compare_to`` (corrected for multiple comparisons across the
whole project, so `show`, tables and the lint agree), the before -> after change against
the experiment it supersedes, its status, and the environment differences behind a
comparison. `show`, documents, the prose lint and reports all read this; none recomputes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from benchdoc.config import Config, ExperimentConfig
from benchdoc.ledger.models import RunRecord

if TYPE_CHECKING:
    from benchdoc.envdiff import EnvDifference
    from benchdoc.ledger.store import Ledger
    from benchdoc.stats import Change, Comparison, Summary

# The fixed vocabulary of statuses: computed from the ledger, never typed by hand.
REFERENCE = "Reference"
WORKS = "Works"
SLOWER = "Slower"
WORSE = "Worse"
NO_DIFFERENCE = "No difference"
FAILED = "Failed"
UNTESTED = "Untested"
MEASURED = "Measured"
SUPERSEDED = "Superseded"
STATUSES: tuple[str, ...] = (REFERENCE, WORKS, SLOWER, WORSE, NO_DIFFERENCE, FAILED, UNTESTED, MEASURED, SUPERSEDED)


@dataclass(frozen=True)
class Pooling:
    """Which runs of an experiment are pooled into its current result.

    ``latest`` (default): the latest run, all its repetitions. ``runs``: the latest N
    successful runs. ``since``: every successful run started at or after a moment.
    ``all``: every successful run.
    """

    mode: Literal["latest", "runs", "since", "all"] = "latest"
    count: int | None = None
    since: datetime | None = None

    def describe(self) -> str:
        if self.mode == "runs":
            return f"the latest {self.count} successful runs of each experiment"
        if self.mode == "since":
            return f"every successful run since {self.since:%Y-%m-%d %H:%M} UTC" if self.since else "every run"
        if self.mode == "all":
            return "every successful run of each experiment"
        return "the latest run of each experiment (all its repetitions)"

    def select(self, runs: Sequence[RunRecord]) -> list[RunRecord]:
        """The runs to pool, from ``runs`` ordered newest first."""
        ok = [r for r in runs if r.outcome == "ok"]
        if self.mode == "latest":
            return [runs[0]] if runs and runs[0].outcome == "ok" else []
        if self.mode == "runs":
            return ok[: self.count or 1]
        if self.mode == "since":
            return [r for r in ok if self.since is None or r.started_at >= self.since]
        return ok


@dataclass(frozen=True)
class ExperimentResult:
    """An experiment's current result, status and comparisons."""

    name: str
    config: ExperimentConfig
    status: str
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

    @property
    def label(self) -> str:
        return self.config.label

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


@dataclass(frozen=True)
class ResultSet:
    """Every experiment's result, in config order (experiments only in the ledger last)."""

    config: Config
    experiments: dict[str, ExperimentResult]
    pooling: Pooling
    correction: str
    family_sizes: dict[str, int]  # metric -> number of comparisons corrected together

    def __getitem__(self, name: str) -> ExperimentResult:
        return self.experiments[self.config.experiment(name).name if name not in self.experiments else name]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.experiments.values())

    def correction_note(self, metric: str) -> str | None:
        """'Holm–Bonferroni correction across 4 comparisons', when one applies to this metric."""
        from benchdoc.stats import CORRECTION_NAMES

        size = self.family_sizes.get(metric, 0)
        if self.correction == "none" or size < 2:
            return None
        return f"{CORRECTION_NAMES.get(self.correction, self.correction)} correction across {size} comparisons"


def build_results(
    config: Config,
    ledger: Ledger,
    *,
    pooling: Pooling | None = None,
    metrics: Iterable[str] | None = None,
    all_metrics: bool = False,
) -> ResultSet:
    """Read every run from the ledger and compute each experiment's result."""
    return compute_results(config, ledger.runs(), pooling=pooling, metrics=metrics, all_metrics=all_metrics)


def compute_results(
    config: Config,
    runs: Iterable[RunRecord],
    *,
    pooling: Pooling | None = None,
    metrics: Iterable[str] | None = None,
    all_metrics: bool = False,
) -> ResultSet:
    """Compute results from runs already read (newest first or in any order).

    ``metrics`` limits the summaries and comparisons to those metrics. By default they
    cover the metrics declared in benchdoc.toml (a load-generator run records dozens;
    the declared ones are what tables, statuses and the lint read), or every recorded
    metric when none is declared or ``all_metrics`` is set.

    Retracted runs and runs that ended in a setup or harness ``error`` are no result:
    they are left out here, and so out of every table, status, chart and the lint
    (``history`` still lists them).
    """
    from benchdoc.stats import adjust_comparisons, change, compare, summarize

    pooling = pooling or Pooling()
    by_experiment: dict[str, list[RunRecord]] = {}
    counted = (r for r in runs if r.retraction is None and r.outcome != "error")
    for run in sorted(counted, key=lambda r: (r.started_at, r.id), reverse=True):
        by_experiment.setdefault(run.experiment, []).append(run)

    experiments: dict[str, ExperimentConfig] = dict(config.experiments)
    for name in by_experiment:
        if name not in experiments:  # a level of a sweep, or recorded but no longer (or never) declared
            experiments[name] = config.level_experiment(name) or ExperimentConfig(name=name, label=name)
    if metrics is not None:
        wanted: list[str] | None = list(metrics)
    elif config.metrics and not all_metrics:
        wanted = list(config.metrics)
    else:
        wanted = None

    pooled: dict[str, list[RunRecord]] = {name: pooling.select(by_experiment.get(name, [])) for name in experiments}
    summaries: dict[str, dict[str, Summary]] = {}
    for name, chosen in pooled.items():
        names = sorted({s.metric for r in chosen for s in r.samples})
        if wanted is not None:
            names = [m for m in names if m in wanted]
        summaries[name] = {
            metric: summarize([v for r in chosen for v in r.values(metric)], config.stats.confidence)
            for metric in names
            if any(r.values(metric) for r in chosen)
        }

    # Raw comparisons, then one correction per metric across the whole project.
    raw: dict[str, dict[str, Comparison]] = {}
    for name, exp in experiments.items():
        target = exp.compare_to
        if not target or target not in summaries:
            continue
        for metric, summary in summaries[name].items():
            base = summaries[target].get(metric)
            # A relative comparison needs a positive baseline (an error rate of 0 has none).
            if base is None or base.median <= 0:
                continue
            spec = config.metric_or_default(metric)
            raw.setdefault(metric, {})[name] = compare(
                summary.values,
                base.values,
                direction=spec.direction,
                alpha=config.stats.alpha,
                confidence=config.stats.confidence,
                equivalence_margin=spec.equivalence_margin,
                candidate_summary=summary,
                baseline_summary=base,
            )
    comparisons: dict[str, dict[str, Comparison]] = {}
    family_sizes: dict[str, int] = {}
    for metric, family in raw.items():
        family_sizes[metric] = len(family)
        corrected = adjust_comparisons(family, config.stats.correction) if config.stats.correction != "none" else family
        for name, comparison in corrected.items():
            comparisons.setdefault(name, {})[metric] = comparison

    superseded_by = {e.supersedes: e.name for e in experiments.values() if e.supersedes}
    changed = _config_changed(config, by_experiment, pooled)
    results: dict[str, ExperimentResult] = {}
    for name, exp in experiments.items():
        all_runs = by_experiment.get(name, [])
        changes: dict[str, Change] = {}
        if exp.supersedes and exp.supersedes in summaries:
            old = summaries[exp.supersedes]
            for metric, summary in summaries[name].items():
                if metric in old and old[metric].median > 0:
                    changes[metric] = change(old[metric].values, summary.values, config.metric_or_default(metric).direction)
        env_diff: tuple[Any, ...] = ()
        warnings: list[str] = []
        warnings.extend(client_bound_warnings(name, pooled[name]))
        if exp.compare_to and pooled[name] and pooled.get(exp.compare_to):
            env_diff, warning = _environment_comparison(pooled[name], pooled[exp.compare_to], name, exp.compare_to)
            if warning:
                warnings.append(warning)
        status, reason = _status(config, exp, all_runs, comparisons.get(name, {}), superseded_by.get(name))
        latest = all_runs[0] if all_runs else None
        results[name] = ExperimentResult(
            name=name,
            config=exp,
            status=status,
            reason=reason,
            failure_log_line=latest.failure_log_line if latest and latest.outcome != "ok" else None,
            runs=tuple(all_runs),
            pooled=tuple(pooled[name]),
            summaries=summaries[name],
            comparisons=comparisons.get(name, {}),
            changes=changes,
            superseded_by=superseded_by.get(name),
            environment_diff=env_diff,
            warnings=tuple(warnings),
            config_changed=name in changed,
        )
    return ResultSet(config, results, pooling, config.stats.correction, family_sizes)


def _config_changed(
    config: Config, by_experiment: dict[str, list[RunRecord]], pooled: dict[str, list[RunRecord]]
) -> set[str]:
    """Experiments whose latest or pooled runs ran another configuration than the current one."""
    # The fingerprint is the runner's view of a configuration (the argv it would launch).
    from benchdoc.runner.fingerprint import config_fingerprints, ran_current_config

    recorded = [name for name, runs in by_experiment.items() if runs and name in config.experiments]
    current = config_fingerprints(config, [n for n in recorded if config.experiments[n].server])
    return {
        name
        for name, fingerprint in current.items()
        if any(not ran_current_config(run, fingerprint) for run in [by_experiment[name][0], *pooled.get(name, [])])
    }


def _status(
    config: Config,
    exp: ExperimentConfig,
    runs: list[RunRecord],
    comparisons: dict[str, Comparison],
    superseded_by: str | None,
) -> tuple[str, str | None]:
    """The experiment's status and the reason shown with it (failure reason or notes)."""
    if not runs:
        return UNTESTED, exp.notes or None
    if superseded_by:
        return SUPERSEDED, f"by {config.experiments[superseded_by].label}" if superseded_by in config.experiments else None
    latest = runs[0]
    if latest.outcome != "ok":
        return FAILED, latest.explanation or "failed"
    if exp.is_reference:
        return REFERENCE, None
    metric = config.primary_metric
    comparison = comparisons.get(metric) if metric else None
    if comparison is None:
        return MEASURED, None
    if comparison.verdict == "better":
        return WORKS, None
    if comparison.verdict == "worse":
        return (SLOWER if config.metric_or_default(metric).worse_word == "slower" else WORSE), None  # type: ignore[arg-type]
    if comparison.verdict in ("same", "equivalent"):
        return NO_DIFFERENCE, None
    return MEASURED, comparison.verdict_text()  # insufficient: say how many runs it needs


def client_bound_warnings(name: str, runs: Sequence[RunRecord]) -> list[str]:
    """A warning when the load generator said it was the bottleneck in pooled runs."""
    bound = [run for run in runs if (run.metadata.client or {}).get("bound")]
    if not bound:
        return []
    reasons = (bound[0].metadata.client or {}).get("reasons") or []
    why = f": {reasons[0]}" if reasons else ""
    return [
        f"{name}: the load generator was the bottleneck (client-bound) in {len(bound)} of {len(runs)} pooled "
        f"runs{why}; its latencies include the client's own delay"
    ]


def environment_differences(candidate: Sequence[RunRecord], baseline: Sequence[RunRecord]) -> list[EnvDifference]:
    """What differs from the baseline's latest pooled run to the candidate's, important keys first."""
    from benchdoc.envdiff import environment_diff

    # Host-specific noise (memory reading, kernel build, uptime) is not what explains a result;
    # the machine's load is compared by its state (busy or quiet), not by its raw figures.
    return environment_diff(
        baseline[0].environment,
        candidate[0].environment,
        ignore=("host.memory_gb", "host.kernel", "git.branch", "load.figures.*"),
    )


def _environment_comparison(
    candidate: list[RunRecord], baseline: list[RunRecord], name: str, target: str
) -> tuple[tuple[EnvDifference, ...], str | None]:
    from benchdoc.envdiff import hostnames

    diff = environment_differences(candidate, baseline)
    hosts = hostnames([r.environment for r in candidate]) | hostnames([r.environment for r in baseline])
    warning = None
    if len(hosts) > 1:
        warning = (
            f"{name} vs {target} mixes runs from different machines ({', '.join(sorted(hosts))}); "
            "the difference may be the machine, not the configuration"
        )
    return tuple(diff), warning
