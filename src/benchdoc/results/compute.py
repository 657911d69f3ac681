"""The one join of ledger + statistics + config: computing each experiment's current result.

For every experiment this computes which runs are pooled, the summary of each metric,
the comparison against its ``compare_to`` (corrected for multiple comparisons across the
whole project, so `show`, tables and the lint agree), the before -> after change against
the experiment it supersedes, its status, and the environment differences behind a
comparison. `show`, documents, the prose lint and reports all read this; none recomputes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from benchdoc.config import Config, ExperimentConfig
from benchdoc.envdiff import environment_diff, hostnames
from benchdoc.ledger.models import Outcome, RunRecord
from benchdoc.machineload import starved_repetitions, starved_sentence
from benchdoc.naming import level_label, split_level_experiment
from benchdoc.planning.fingerprint import config_fingerprints, ran_current_config
from benchdoc.results.model import ExperimentResult, Pooling, ResultSet
from benchdoc.results.pairs import can_compare, compare_summaries, start_labels
from benchdoc.results.reliability import Reliability, reliability
from benchdoc.results.sequential import seen_baseline, sequential_outcome
from benchdoc.results.status import Status
from benchdoc.results.words import (
    failure_reason,
    starved_warning,
    status_of_verdict,
    unreliable_reference_warning,
    unreliable_warning,
    verdict_text,
)
from benchdoc.results.workload import workload_mix
from benchdoc.stats import adjust_comparisons, change, read_sequentially, summarize

if TYPE_CHECKING:
    from benchdoc.envdiff import EnvDifference
    from benchdoc.ledger.store import Ledger
    from benchdoc.stats import Change, Comparison, Summary

def effective_pooling(config: Config, override: Pooling | None = None) -> Pooling:
    """The pooling a view uses: ``override`` (a command line's or a region's) when given, else
    the project's ``[stats] pool``. Every view asks this; none decides it on its own."""
    return override if override is not None else config.stats.pool


def counted_runs(runs: Iterable[RunRecord]) -> dict[str, list[RunRecord]]:
    """Each experiment's runs that can be a result (not retracted, not a setup or harness
    error), newest first."""
    by_experiment: dict[str, list[RunRecord]] = {}
    counted = (r for r in runs if r.retraction is None and r.outcome != Outcome.ERROR)
    for run in sorted(counted, key=lambda r: (r.started_at, r.id), reverse=True):
        by_experiment.setdefault(run.experiment, []).append(run)
    return by_experiment


def newest_setup_errors(runs: Iterable[RunRecord], counted: dict[str, list[RunRecord]]) -> dict[str, str]:
    """Each experiment's newest setup or harness error that is newer than its newest result,
    as its explanation: what its latest attempt ran into, though it is no result."""
    found: dict[str, RunRecord] = {}
    for run in runs:
        if run.retraction is not None or run.outcome != Outcome.ERROR:
            continue
        mine = counted.get(run.experiment)
        if mine and (mine[0].started_at, mine[0].id) > (run.started_at, run.id):
            continue
        best = found.get(run.experiment)
        if best is None or (run.started_at, run.id) > (best.started_at, best.id):
            found[run.experiment] = run
    return {name: failure_reason(run) for name, run in found.items()}


def pooled_run_ids(config: Config, runs: Iterable[RunRecord], pooling: Pooling | None = None) -> set[int]:
    """The ids of the runs each experiment's current result pools (what `history` marks)."""
    chosen = effective_pooling(config, pooling)
    return {run.id for own in counted_runs(runs).values() for run in chosen.select(own)}


def build_results(
    config: Config,
    ledger: Ledger,
    *,
    pooling: Pooling | None = None,
    metrics: Iterable[str] | None = None,
    all_metrics: bool = False,
) -> ResultSet:
    """Read every run from the ledger and compute each experiment's result.

    The result set reads the requests kept with its runs from ``ledger`` when asked
    (:meth:`ResultSet.request_latencies`), so ask while the ledger is open.
    """
    results = compute_results(config, ledger.runs(), pooling=pooling, metrics=metrics, all_metrics=all_metrics)
    return dataclasses.replace(results, read_requests=ledger.request_timings)


def compute_results(
    config: Config,
    runs: Iterable[RunRecord],
    *,
    pooling: Pooling | None = None,
    metrics: Iterable[str] | None = None,
    all_metrics: bool = False,
) -> ResultSet:
    """Compute results from runs already read (newest first or in any order).

    ``pooling`` overrides the project's ``[stats] pool`` (see :func:`effective_pooling`).

    ``metrics`` limits the summaries and comparisons to those metrics and the primary one,
    on which every status is decided. By default they
    cover the metrics declared in benchdoc.toml (a load-generator run records dozens;
    the declared ones are what tables, statuses and the lint read), or every recorded
    metric when none is declared or ``all_metrics`` is set.

    Retracted runs and runs that ended in a setup or harness ``error`` are no result:
    they are left out here, and so out of every table, status, chart and the lint
    (``history`` still lists them).
    """
    pooling = effective_pooling(config, pooling)
    runs = list(runs)
    by_experiment = counted_runs(runs)
    errors = newest_setup_errors(runs, by_experiment)
    experiments, levels = _with_recorded(config, by_experiment)
    if metrics is not None:
        # Every status is decided on the primary metric, whichever metrics are asked for.
        asked = list(metrics)
        primary = [config.primary_metric] if config.primary_metric and config.primary_metric not in asked else []
        wanted: list[str] | None = asked + primary
    elif config.metrics and not all_metrics:
        wanted = list(config.metrics)
    else:
        wanted = None
    pooled = {name: pooling.select(by_experiment.get(name, [])) for name in experiments}
    summaries = {name: _summaries(config, chosen, wanted) for name, chosen in pooled.items()}
    comparisons, family_sizes = _corrected_comparisons(config, experiments, summaries, pooled)
    superseded_by = {e.supersedes: e.name for e in experiments.values() if e.supersedes}
    changed = _config_changed(config, by_experiment, pooled)
    limit = config.stats.max_error_rate
    trust = {name: reliability(chosen, limit) for name, chosen in pooled.items()}
    results: dict[str, ExperimentResult] = {}
    for name, exp in experiments.items():
        all_runs = by_experiment.get(name, [])
        env_diff: tuple[EnvDifference, ...] = ()
        warnings = _below_zero(name, exp, summaries) + client_bound_warnings(name, pooled[name])
        mix = workload_mix(name, pooled[name])
        warnings.extend([mix.sentence()] if mix else [])
        warnings.extend(reliability_warnings(name, exp.compare_to, trust))
        warnings.extend(contention_warnings(name, exp.compare_to, pooled))
        if exp.compare_to and pooled[name] and pooled.get(exp.compare_to):
            env_diff, warning = _environment_comparison(pooled[name], pooled[exp.compare_to], name, exp.compare_to)
            warnings.extend([warning] if warning else [])
        status, reason = decide_status(config, exp, all_runs, comparisons.get(name, {}), superseded_by.get(name))
        if not all_runs and levels.get(name):
            status, reason = sweep_status(levels[name], by_experiment)
        latest = all_runs[0] if all_runs else None
        results[name] = ExperimentResult(
            name=name,
            config=exp,
            status=status,
            reason=reason,
            failure_log_line=latest.failure_log_line if latest and latest.outcome != Outcome.OK else None,
            runs=tuple(all_runs),
            pooled=tuple(pooled[name]),
            summaries=summaries[name],
            comparisons=comparisons.get(name, {}),
            changes=_changes(config, exp, summaries),
            superseded_by=superseded_by.get(name),
            environment_diff=env_diff,
            warnings=tuple(warnings),
            config_changed=name in changed,
            mixed_workloads=mix,
            reliability=trust[name],
            setup_error=errors.get(name),
            levels=tuple(levels.get(name, ())),
        )
    return ResultSet(config, results, pooling, config.stats.correction, family_sizes)


def _with_recorded(
    config: Config, by_experiment: dict[str, list[RunRecord]]
) -> tuple[dict[str, ExperimentConfig], dict[str, list[str]]]:
    """The declared experiments, each followed by the levels of its load sweeps that have
    runs (by kind, then level), then any other recorded name (no longer, or never, declared);
    and each swept experiment's levels, in that order."""
    levels: dict[str, list[tuple[str, float, str]]] = {}
    others: list[str] = []
    for name in by_experiment:
        if name in config.experiments:
            continue
        parts = split_level_experiment(name)
        level = config.level_experiment(name) if parts is not None else None
        if parts is not None and level is not None:
            base = config.experiment(parts[0]).name
            levels.setdefault(base, []).append((parts[1].kind, parts[1].value, name))
        else:
            others.append(name)
    experiments: dict[str, ExperimentConfig] = {}
    swept: dict[str, list[str]] = {}
    for name, exp in config.experiments.items():
        experiments[name] = exp
        for _, _, level_name in sorted(levels.get(name, [])):
            experiments[level_name] = config.level_experiment(level_name)  # type: ignore[assignment]
            swept.setdefault(name, []).append(level_name)
    for name in others:
        experiments[name] = ExperimentConfig(name=name, label=name)
    return experiments, swept


def sweep_status(levels: Sequence[str], by_experiment: dict[str, list[RunRecord]]) -> tuple[Status, str]:
    """The status of a swept experiment whose runs are all recorded as its levels
    (``EXP@rate=4``): Measured when a level's latest run succeeded, Failed when every
    level's latest run failed; the reason says how many levels and which loads."""
    latest = [(name, by_experiment[name][0]) for name in levels if by_experiment.get(name)]
    measured = [level_label(name) for name, run in latest if run.outcome == Outcome.OK]
    if measured:
        failed = len(latest) - len(measured)
        last = measured[-1].split("=", 1)[1] if measured[-1].split("=")[0] == measured[0].split("=")[0] else measured[-1]
        span = measured[0] if len(measured) == 1 else f"{measured[0]} to {last}"
        more = f"; {failed} failed" if failed else ""
        return Status.MEASURED, f"load sweep: {len(measured)} level{'s' if len(measured) != 1 else ''} measured ({span}){more}"
    name, run = latest[0]
    return Status.FAILED, f"every level of the load sweep failed ({name}: {failure_reason(run)})"


def _summaries(config: Config, chosen: list[RunRecord], wanted: list[str] | None) -> dict[str, Summary]:
    """The summary of each metric over the pooled runs (only ``wanted`` ones, when given)."""
    names = sorted({s.metric for r in chosen for s in r.samples})
    if wanted is not None:
        names = [m for m in names if m in wanted]
    return {
        metric: summarize([v for r in chosen for v in r.values(metric)], config.stats.confidence,
                          start_labels(chosen, metric))
        for metric in names
        if any(r.values(metric) for r in chosen)
    }


def _corrected_comparisons(
    config: Config,
    experiments: dict[str, ExperimentConfig],
    summaries: dict[str, dict[str, Summary]],
    pooled: dict[str, list[RunRecord]],
) -> tuple[dict[str, dict[str, Comparison]], dict[str, int]]:
    """Each experiment against its compare_to, per metric, then one correction per metric
    across the whole project; and how many comparisons each metric's family holds.

    A result that is exactly a run `run --until-decided` stopped is read as its
    sequential test decided it, before the correction (``results.sequential``)."""
    raw: dict[str, dict[str, Comparison]] = {}
    for name, exp in experiments.items():
        target = exp.compare_to
        if not target or target not in summaries:
            continue
        for metric, summary in summaries[name].items():
            base = summaries[target].get(metric)
            if base is None or not can_compare(base) or summary.median < 0:
                continue  # see _below_zero: one unusable value must not stop the rest
            outcome = sequential_outcome(pooled[name], pooled[target], metric, target)
            seen = seen_baseline(pooled[name], pooled[target]) if outcome else None
            if seen is not None:  # only the baseline starts the sequential test saw
                base = summarize([v for run in seen for v in run.values(metric)], config.stats.confidence,
                                 start_labels(seen, metric))
            comparison = compare_summaries(config, metric, summary, base, pooled[name], seen or pooled[target])
            raw.setdefault(metric, {})[name] = read_sequentially(comparison, outcome) if outcome else comparison
    comparisons: dict[str, dict[str, Comparison]] = {}
    family_sizes: dict[str, int] = {}
    for metric, family in raw.items():
        family_sizes[metric] = sum(1 for comparison in family.values() if comparison.estimate is not None)
        # A family of one is corrected by nothing: its p is left unmarked, as correction_note says.
        testable = config.stats.correction != "none" and family_sizes[metric] > 1
        corrected = adjust_comparisons(family, config.stats.correction) if testable else family
        for name, comparison in corrected.items():
            comparisons.setdefault(name, {})[metric] = comparison
    return comparisons, family_sizes


def _changes(config: Config, exp: ExperimentConfig, summaries: dict[str, dict[str, Summary]]) -> dict[str, Change]:
    """Before -> after of each metric against the experiment ``exp`` supersedes."""
    if not exp.supersedes or exp.supersedes not in summaries:
        return {}
    old = summaries[exp.supersedes]
    return {
        metric: change(old[metric].values, summary.values, config.metric_or_default(metric).direction)
        for metric, summary in summaries[exp.name].items()
        if metric in old and old[metric].median > 0 and summary.median >= 0
    }


def _below_zero(name: str, exp: ExperimentConfig, summaries: dict[str, dict[str, Summary]]) -> list[str]:
    """Why a comparison of ``name`` was left out: a median below zero (a ledger written before
    values were checked at the door, or a metric declared with a negative min)."""
    found = []
    for who in (name, exp.compare_to):
        for metric, summary in summaries.get(who or "", {}).items():
            if summary.median < 0 and (who == name or metric in summaries.get(name, {})):
                found.append(
                    f"{who}'s median {metric} is {summary.median:g}, below zero: no relative comparison can be made with it"
                )
    return found if exp.compare_to else []


def _config_changed(
    config: Config, by_experiment: dict[str, list[RunRecord]], pooled: dict[str, list[RunRecord]]
) -> set[str]:
    """Experiments whose latest or pooled runs ran another configuration than the current one."""
    # The fingerprint is the plan's view of a configuration (the argv it would launch).
    recorded = [name for name, runs in by_experiment.items() if runs and name in config.experiments]
    current = config_fingerprints(config, [n for n in recorded if config.experiments[n].server])
    return {
        name
        for name, fingerprint in current.items()
        if any(not ran_current_config(run, fingerprint) for run in [by_experiment[name][0], *pooled.get(name, [])])
    }


def reliability_warnings(name: str, target: str | None, trust: dict[str, Reliability | None]) -> list[str]:
    """Warnings when the result, or the one it is compared with, is unreliable."""
    found = []
    own = trust.get(name)
    if own is not None and own.unreliable:
        found.append(unreliable_warning(name, own))
    theirs = trust.get(target) if target else None
    if target and theirs is not None and theirs.unreliable:
        found.append(unreliable_reference_warning(name, target, theirs))
    return found


def contention_warnings(name: str, target: str | None, pooled: dict[str, list[RunRecord]]) -> list[str]:
    """The repetitions other processes starved, in the result's pooled runs and in those of
    the result it is compared with (machineload.starved_repetitions has the rule)."""
    found = []
    for owner in (name, target):
        for run in pooled.get(owner or "", []):
            sentence = starved_sentence(starved_repetitions(run.environment.get("load")))
            if sentence is not None:
                found.append(starved_warning(name, run.id, sentence, None if owner == name else owner))
    return found


def client_bound_warnings(name: str, runs: Sequence[RunRecord]) -> list[str]:
    """A warning when the load generator said it was the bottleneck in pooled runs."""
    bound = [run.metadata.client for run in runs if run.metadata.client is not None and run.metadata.client.bound]
    if not bound:
        return []
    reasons = bound[0].reasons if bound[0] is not None else ()
    why = f": {reasons[0]}" if reasons else ""
    return [
        f"{name}: the load generator was the bottleneck (client-bound) in {len(bound)} of {len(runs)} pooled "
        f"runs{why}; its latencies include the client's own delay"
    ]


def environment_differences(candidate: Sequence[RunRecord], baseline: Sequence[RunRecord]) -> list[EnvDifference]:
    """What differs from the baseline's latest pooled run to the candidate's, important keys first."""
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
    diff = environment_differences(candidate, baseline)
    hosts = hostnames([r.environment for r in candidate]) | hostnames([r.environment for r in baseline])
    warning = None
    if len(hosts) > 1:
        warning = (
            f"{name} vs {target} mixes runs from different machines ({', '.join(sorted(hosts))}); "
            "the difference may be the machine, not the configuration"
        )
    return tuple(diff), warning


def decide_status(
    config: Config,
    exp: ExperimentConfig,
    runs: list[RunRecord],
    comparisons: dict[str, Comparison],
    superseded_by: str | None,
) -> tuple[Status, str | None]:
    """The experiment's status and the reason shown with it (failure reason or notes)."""
    if not runs:
        return Status.UNTESTED, exp.notes or None
    if superseded_by:
        replacement = config.experiments.get(superseded_by)
        return Status.SUPERSEDED, f"by {replacement.label}" if replacement else None
    latest = runs[0]
    if latest.outcome != Outcome.OK:
        return Status.FAILED, failure_reason(latest)
    if exp.is_reference:
        return Status.REFERENCE, None
    metric = config.primary_metric
    comparison = comparisons.get(metric) if metric else None
    if metric is None or comparison is None:
        return Status.MEASURED, None
    # A speed (a throughput or a latency) loses by being slower; anything else by being worse.
    status = status_of_verdict(comparison.verdict, config.metric_or_default(metric).measures_speed)
    if status is Status.INCONCLUSIVE:
        return status, verdict_text(comparison)  # with what would decide it
    if status is not None:
        return status, None
    return Status.MEASURED, verdict_text(comparison)  # one start a side, undecided: say what it needs
