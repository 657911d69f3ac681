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
from benchdoc.runner.context import DEFAULT_MAX_REPETITIONS, LOGS_DIR, EventSink, RunContext, RunOptions
from benchdoc.runner.events import ExperimentOutcome
from benchdoc.runner.experiment import ExperimentRun
from benchdoc.runner.failures import user_patterns
from benchdoc.runner.session import ServerSession

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

__all__ = ["DEFAULT_MAX_REPETITIONS", "PlannedRun", "RunOptions", "RunReport", "plan_runs", "run_experiments"]


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
    max_repetitions: int | None
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
                max_repetitions=options.max_repetitions_for(setup.repetitions) if options.until_decided else None,
                interleave=options.interleave,
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
    if options.max_repetitions is not None and options.repetitions is not None and options.max_repetitions < options.repetitions:
        raise UsageError(f"--max-repetitions ({options.max_repetitions}) is below --repetitions ({options.repetitions})")
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
    )
    if options.interleave:  # every repetition starts its own server: the levels of a sweep take turns too
        runs = [ExperimentRun(context, setup, index, len(setups)) for index, setup in enumerate(setups)]
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


def _run_interleaved(runs: list[ExperimentRun]) -> list[ExperimentOutcome]:
    outcomes = []
    active = []
    for run in runs:
        try:
            run.begin()
            active.append(run)
        except Exception as exc:
            run.harness_error(exc)
            outcomes.append(run.finish())
    while active:
        for run in list(active):
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
                outcomes.append(run.finish())
                active.remove(run)
    return outcomes
