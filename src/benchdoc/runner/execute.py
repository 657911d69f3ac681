"""Running experiments end to end: launch, wait ready, warm up, repeat the workload,
tear down, record one run per experiment.

The library API of `benchdoc run`. It never prints; it reports through ``on_event``
(see :mod:`benchdoc.runner.events`). A configuration that fails (never ready, crashes,
breaks the workload) is recorded as ``failed`` with its reason: a failure is a result.
A problem of the harness itself (a workload whose results cannot be read, a bug) is
recorded as ``error``. Ctrl-C stops every server and records nothing for the
experiments it interrupted; what had finished stays recorded.

A workload that sweeps the load (``rate = [1, 2, 4]``) runs each level as its own
experiment, ``EXP@rate=1`` then ``EXP@rate=2`` ..., each with its repetitions, against one
start of the server: it is started for the first level and stopped after the last. A
level that fails is recorded failed with its reason and the sweep goes on; when the
server is gone by then, it is started again for the next level.

With ``interleave`` the experiments take turns repetition by repetition (A B A B ...),
and each repetition starts its server afresh: only one server is up at a time (two
LLM servers rarely fit on the same GPUs), ports can never clash, and slow drift of the
machine (thermals, other tenants) hits every experiment alike.

With ``until_decided``, when an experiment's ``compare_to`` is measured in the same run,
they run in rounds (interleaved, whatever ``interleave`` says): each round starts the
baseline, then each candidate still undecided; the baseline goes on as long as one of
them does, and is recorded before them, so each can name the run it was decided against.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.config import Config
from benchdoc.environment import recordable_env
from benchdoc.errors import UsageError
from benchdoc.ledger.models import Outcome
from benchdoc.planning.plan import (
    ExperimentSetup,
    baselines_first,
    check_setups,
    describe_workload,
    level_setups,
    plan_launch,
)
from benchdoc.redact import redact_argv
from benchdoc.runner.context import DEFAULT_MAX_STARTS, LOGS_DIR, EventSink, RunContext, RunOptions
from benchdoc.runner.events import ExperimentOutcome
from benchdoc.runner.experiment import ExperimentRun
from benchdoc.runner.failures import user_patterns
from benchdoc.runner.session import ServerSession

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

__all__ = ["DEFAULT_MAX_STARTS", "PlannedRun", "RunOptions", "RunReport", "plan_runs", "run_experiments"]


@dataclass(frozen=True)
class PlannedRun:
    """Exactly what would run for one experiment (secrets redacted); the port is shown
    as ``{port}`` when it will be picked free at start."""

    experiment: str
    server: str
    argv: tuple[str, ...]
    env: dict[str, str]  # set on top of the inherited environment
    cwd: Path
    port: int | None
    ready_url: str
    ready_timeout_s: float
    shutdown_grace_s: float
    workload: dict[str, Any]
    repetitions: int  # per server start
    max_starts: int | None  # with --until-decided
    interleave: bool
    log_dir: Path
    starts: int = 1


@dataclass(frozen=True)
class RunReport:
    """Every experiment's outcome, in the order they finished."""

    outcomes: tuple[ExperimentOutcome, ...]

    @property
    def errors(self) -> list[ExperimentOutcome]:
        return [o for o in self.outcomes if o.outcome == Outcome.ERROR]

    @property
    def failures(self) -> list[ExperimentOutcome]:
        return [o for o in self.outcomes if o.outcome == Outcome.FAILED]


# -- dry run --------------------------------------------------------------------------------


def plan_runs(
    config: Config,
    names: Sequence[str],
    options: RunOptions | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> list[PlannedRun]:
    """What `run_experiments` would run, without running anything."""
    options = options or RunOptions()
    options.check()
    order = baselines_first(config, names) if options.until_decided else list(names)
    planned: list[PlannedRun] = []
    for setup in _expanded(config, check_setups(config, order, options.repetitions)):
        launch = plan_launch(config, setup, setup.server.port)
        planned.append(
            PlannedRun(
                experiment=setup.name,
                server=setup.server.name,
                argv=tuple(redact_argv(launch.argv)),
                env=recordable_env(launch.env, setup.server.public_env),
                cwd=launch.cwd,
                port=setup.server.port,
                ready_url=launch.ready_url,
                ready_timeout_s=launch.ready_timeout_s,
                shutdown_grace_s=launch.shutdown_grace_s,
                workload=describe_workload(config, setup, launch, environ=environ),
                repetitions=setup.repetitions,
                max_starts=options.max_starts_for(options.starts or setup.repetitions) if options.until_decided else None,
                interleave=options.interleave or bool(options.until_decided and _in_rounds(config, names)),
                log_dir=config.root / LOGS_DIR,
                starts=options.starts or 1,
            )
        )
    return planned


# -- running ----------------------------------------------------------------------------------


def run_experiments(
    config: Config,
    ledger: Ledger,
    names: Sequence[str],
    options: RunOptions | None = None,
    *,
    on_event: EventSink | None = None,
    environ: Mapping[str, str] | None = None,
) -> RunReport:
    """Run ``names`` (already selected, see `select_experiments`) and record one run each.

    Every experiment is validated before the first server starts (ConfigError with
    file:line). ``environ`` is the environment servers inherit (default: this process's).
    KeyboardInterrupt propagates after every server has been stopped.
    """
    options = options or RunOptions()
    options.check()
    first = options.repetitions if options.starts is None else None  # without --starts each repetition is a start
    if options.max_starts is not None and first is not None and options.max_starts < first:
        raise UsageError(f"--max-starts ({options.max_starts}) is below the {first} server starts -n asks for "
                         "before the first look")
    order = baselines_first(config, names) if options.until_decided else list(names)
    setups = _expanded(config, check_setups(config, order, options.repetitions))
    swept = next((setup.swept for setup in setups if setup.swept is not None), None)
    if options.starts is not None and swept is not None:
        raise UsageError(f"--starts: the load sweep of '{swept}' runs its levels on one server start; "
                         "run it without --starts, or with --interleave")
    context = RunContext(
        config=config,
        ledger=ledger,
        options=options,
        emit=on_event or (lambda event: None),
        environ=dict(os.environ if environ is None else environ),
        patterns=user_patterns(config.failure_patterns),
        logs_dir=config.root / LOGS_DIR,
        selected=tuple(setup.name for setup in setups),
    )
    rounds = options.until_decided and _in_rounds(config, [setup.name for setup in setups])
    if options.interleave or rounds:  # every repetition starts its own server: the levels of a sweep take turns too
        runs = [ExperimentRun(context, setup, index, len(setups)) for index, setup in enumerate(setups)]
        _alongside(runs)
        return RunReport(tuple(_run_interleaved(runs)))
    return RunReport(tuple(_run_one_by_one(_sharing_a_server(context, setups))))


def _expanded(config: Config, setups: Sequence[ExperimentSetup]) -> list[ExperimentSetup]:
    """Each sweep as its levels (``EXP@rate=1``, ``EXP@rate=2``...), in place."""
    return [level for setup in setups for level in level_setups(config, setup)]


def _sharing_a_server(context: RunContext, setups: Sequence[ExperimentSetup]) -> list[list[ExperimentRun]]:
    """The runs in groups that share one start of a server: the levels of a sweep, or one
    experiment alone."""
    groups: list[list[ExperimentRun]] = []
    sessions: dict[str, ServerSession] = {}
    for index, setup in enumerate(setups):
        session = None
        if setup.swept is not None:
            session = sessions.setdefault(setup.swept, ServerSession(context, setup, name=setup.swept))
        run = ExperimentRun(context, setup, index, len(setups), server=session)
        if groups and session is not None and groups[-1][0].server is session:
            groups[-1].append(run)
        else:
            groups.append([run])
    return groups


def _run_one_by_one(groups: list[list[ExperimentRun]]) -> list[ExperimentOutcome]:
    outcomes = []
    for group in groups:
        session = group[0].server
        try:
            for position, run in enumerate(group):
                try:
                    try:
                        run.begin()
                        # A level after the first finds the server up (or restarts one that died).
                        if session.running() or run.start_server():
                            while run.wants_more():
                                if run.start_is_done() and not _restart(run):
                                    break
                                run.run_repetition()
                    finally:
                        if position == len(group) - 1:
                            run.stop_server()
                except Exception as exc:  # a bug or an unexpected harness problem: recorded as "error"
                    run.harness_error(exc)
                outcomes.append(run.finish())
        finally:
            session.stop()  # interrupted mid-sweep: the server still goes down
    return outcomes


def _restart(run: ExperimentRun) -> bool:
    """A fresh server start for ``run``'s next share of repetitions (``--starts``)."""
    run.stop_server()
    return run.start_server(tag=f"start{len(run.server.pids) + 1}")


def _in_rounds(config: Config, names: Sequence[str]) -> bool:
    """Some selected experiment's compare_to is selected too: --until-decided runs them in rounds."""
    chosen = set(names)
    return any((exp := config.experiments.get(name)) is not None and exp.compare_to in chosen for name in names)


def _alongside(runs: list[ExperimentRun]) -> None:
    """Link each run deciding against another of these runs to it: that baseline runs alongside."""
    by_name = {run.name: run for run in runs}
    for run in runs:
        baseline = by_name.get(run.setup.experiment.compare_to or "")
        if run.deciding is not None and baseline is not None and baseline is not run:
            run.deciding.live = baseline
            baseline.candidates.append(run)


def _run_interleaved(runs: list[ExperimentRun]) -> list[ExperimentOutcome]:
    outcomes: list[ExperimentOutcome] = []
    active = []
    held: list[ExperimentRun] = []  # done, waiting for the baseline they ran alongside to be recorded
    for run in runs:
        try:
            run.begin()
            active.append(run)
        except Exception as exc:
            run.harness_error(exc)
            active.append(run)  # recorded below, in its turn (after the baseline it was to run alongside)
    while active:
        for run in list(active):
            if not run.wants_more():  # nothing left for this round (its candidates decided meanwhile)
                active.remove(run)
                _finish(run, active, held, outcomes)
                continue
            try:
                try:
                    tag = f"rep{run.completed + 1}" if run.per_start == 1 else f"start{len(run.server.pids) + 1}"
                    if run.start_server(tag=tag):
                        run.run_repetition()  # this turn's start runs its share of repetitions
                        while run.wants_more() and not run.start_is_done():
                            run.run_repetition()
                finally:
                    run.stop_server()
            except Exception as exc:
                run.harness_error(exc)
            if not run.wants_more():
                active.remove(run)
                _finish(run, active, held, outcomes)
    return outcomes


def _finish(
    run: ExperimentRun, active: list[ExperimentRun], held: list[ExperimentRun], outcomes: list[ExperimentOutcome]
) -> None:
    """Record ``run``, unless the baseline it ran alongside is still running (then once it is
    recorded); then the runs held for it."""
    live = run.deciding.live if run.deciding is not None else None
    if live is not None and live in active:
        held.append(run)
        return
    outcomes.append(run.finish())
    for waiting in [other for other in held if other.deciding is not None and other.deciding.live is run]:
        held.remove(waiting)
        _finish(waiting, active, held, outcomes)
