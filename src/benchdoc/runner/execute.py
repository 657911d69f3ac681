"""Running experiments end to end: launch, wait ready, warm up, repeat the workload,
tear down, record one run per experiment.

The library API of `benchdoc run`. It never prints; it reports through ``on_event``
(see :mod:`benchdoc.runner.events`). A configuration that fails (never ready, crashes,
breaks the workload) is recorded as ``failed`` with its reason: a failure is a result.
A problem of the harness itself (a workload whose results cannot be read, a bug) is
recorded as ``error``. Ctrl-C stops every server and records nothing for the
experiments it interrupted; what had finished stays recorded.

With ``interleave`` the experiments take turns repetition by repetition (A B A B ...),
and each repetition starts its server afresh: only one server is up at a time (two
LLM servers rarely fit on the same GPUs), ports can never clash, and slow drift of the
machine (thermals, other tenants) hits every experiment alike.
"""

from __future__ import annotations

import glob
import os
import re
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.config import Config
from benchdoc.errors import RunError, UsageError
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.redact import redact_argv, redact_env
from benchdoc.runner.events import (
    ExperimentFinished,
    ExperimentOutcome,
    ExperimentStarted,
    LookTaken,
    Notice,
    RepetitionFinished,
    RepetitionStarted,
    RequestsProgress,
    RunEvent,
    ServerReady,
    ServerStarting,
    WaitingForServer,
)
from benchdoc.runner.failures import (
    FailurePattern,
    FailureReason,
    explain_failure,
    known_reason,
    read_log_tail,
    user_patterns,
)
from benchdoc.runner.plan import (
    ExperimentSetup,
    Launch,
    baselines_first,
    check_setups,
    command_argv,
    command_cwd,
    command_env,
    loadgen_spec,
    plan_launch,
)
from benchdoc.runner.process import ManagedProcess, pick_free_port, wait_until_ready
from benchdoc.runner.reading import ReportedFailure, ResultReadError, read_results
from benchdoc.runner.sequential import Look, StoppingPlan, plan_stopping, take_look
from benchdoc.runner.spec import CommandWorkload, LoadgenWorkload
from benchdoc.runner.survivors import ServerRecords

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

DEFAULT_MAX_REPETITIONS = 20
LOGS_DIR = Path(".benchdoc") / "logs"
COMMAND_GRACE_S = 5.0
# How long a server whose clients saw failures may take to finish exiting before we look.
SERVER_EXIT_SETTLE_S = 2.0

EventSink = Callable[[RunEvent], None]


@dataclass(frozen=True)
class RunOptions:
    """How `run_experiments` runs: overrides and modes."""

    repetitions: int | None = None  # overrides each experiment's own count
    until_decided: bool = False
    max_repetitions: int | None = None  # with until_decided (default DEFAULT_MAX_REPETITIONS)
    interleave: bool = False

    def check(self) -> None:
        if self.repetitions is not None and self.repetitions < 1:
            raise UsageError(f"--repetitions must be at least 1, got {self.repetitions}")
        if self.max_repetitions is not None:
            if not self.until_decided:
                raise UsageError("--max-repetitions goes with --until-decided")
            if self.max_repetitions < 1:
                raise UsageError(f"--max-repetitions must be at least 1, got {self.max_repetitions}")


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
    repetitions: int
    max_repetitions: int | None
    interleave: bool
    log_dir: Path


@dataclass(frozen=True)
class RunReport:
    """Every experiment's outcome, in the order they finished."""

    outcomes: tuple[ExperimentOutcome, ...]

    @property
    def errors(self) -> list[ExperimentOutcome]:
        return [o for o in self.outcomes if o.outcome == "error"]

    @property
    def failures(self) -> list[ExperimentOutcome]:
        return [o for o in self.outcomes if o.outcome == "failed"]


# -- dry run --------------------------------------------------------------------------------


def plan_runs(
    config: Config,
    names: Sequence[str],
    options: RunOptions = RunOptions(),
    *,
    environ: Mapping[str, str] | None = None,
) -> list[PlannedRun]:
    """What `run_experiments` would run, without running anything."""
    options.check()
    order = baselines_first(config, names) if options.until_decided else list(names)
    planned: list[PlannedRun] = []
    for setup in check_setups(config, order, options.repetitions):
        launch = plan_launch(config, setup, setup.server.port)
        planned.append(
            PlannedRun(
                experiment=setup.name,
                server=setup.server.name,
                argv=tuple(redact_argv(launch.argv)),
                env=redact_env(launch.env),
                cwd=launch.cwd,
                port=setup.server.port,
                ready_url=launch.ready_url,
                ready_timeout_s=launch.ready_timeout_s,
                shutdown_grace_s=launch.shutdown_grace_s,
                workload=describe_workload(config, setup, launch, environ=environ),
                repetitions=setup.repetitions,
                max_repetitions=_max_repetitions(options, setup.repetitions) if options.until_decided else None,
                interleave=options.interleave,
                log_dir=config.root / LOGS_DIR,
            )
        )
    return planned


def describe_workload(
    config: Config, setup: ExperimentSetup, launch: Launch, *, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The workload's settings as recorded with a run (and shown by a dry run)."""
    workload = setup.workload
    if isinstance(workload, LoadgenWorkload):
        spec = loadgen_spec(config, workload, launch, environ=environ)
        return {"name": workload.name, "kind": "loadgen", "settings": spec.settings()}
    reader: dict[str, Any] = {"kind": workload.reader.kind}
    if workload.reader.format:
        reader["format"] = workload.reader.format
    if workload.reader.fields:
        reader["fields"] = dict(workload.reader.fields)
    reader["from"] = "{output}" if workload.uses_output_file else "stdout"
    return {
        "name": workload.name,
        "kind": "command",
        "argv": redact_argv(command_argv(config, workload, launch, "{output}")),
        "env": redact_env(command_env(config, workload, launch, "{output}")),
        "timeout_s": workload.timeout_s,
        "warmup": workload.warmup,
        "results": reader,
    }


def _max_repetitions(options: RunOptions, planned: int) -> int:
    return max(options.max_repetitions or DEFAULT_MAX_REPETITIONS, planned)


# -- running ----------------------------------------------------------------------------------


def run_experiments(
    config: Config,
    ledger: Ledger,
    names: Sequence[str],
    options: RunOptions = RunOptions(),
    *,
    on_event: EventSink | None = None,
    environ: Mapping[str, str] | None = None,
) -> RunReport:
    """Run ``names`` (already selected, see `select_experiments`) and record one run each.

    Every experiment is validated before the first server starts (ConfigError with
    file:line). ``environ`` is the environment servers inherit (default: this process's).
    KeyboardInterrupt propagates after every server has been stopped.
    """
    options.check()
    if options.max_repetitions is not None and options.repetitions is not None and options.max_repetitions < options.repetitions:
        raise UsageError(f"--max-repetitions ({options.max_repetitions}) is below --repetitions ({options.repetitions})")
    order = baselines_first(config, names) if options.until_decided else list(names)
    setups = check_setups(config, order, options.repetitions)
    context = _Context(
        config=config,
        ledger=ledger,
        options=options,
        emit=on_event or (lambda event: None),
        environ=dict(os.environ if environ is None else environ),
        patterns=user_patterns(config.failure_patterns),
        logs_dir=config.root / LOGS_DIR,
    )
    runs = [_ExperimentRun(context, setup, index, len(setups)) for index, setup in enumerate(setups)]
    if options.interleave:
        return RunReport(tuple(_run_interleaved(context, runs)))
    return RunReport(tuple(_run_one_by_one(context, runs)))


@dataclass
class _Context:
    config: Config
    ledger: Ledger
    options: RunOptions
    emit: EventSink
    environ: dict[str, str]
    patterns: tuple[FailurePattern, ...]
    logs_dir: Path


def _run_one_by_one(context: _Context, runs: list[_ExperimentRun]) -> list[ExperimentOutcome]:
    outcomes = []
    for run in runs:
        try:
            try:
                run.begin()
                if run.start_server():
                    while run.wants_more():
                        run.run_repetition()
            finally:
                run.stop_server()
        except Exception as exc:  # a bug or an unexpected harness problem: recorded as "error"
            run.harness_error(exc)
        outcomes.append(run.finish())
    return outcomes


def _run_interleaved(context: _Context, runs: list[_ExperimentRun]) -> list[ExperimentOutcome]:
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
                    if run.start_server(tag=f"rep{run.completed + 1}"):
                        run.run_repetition()
                finally:
                    run.stop_server()
            except Exception as exc:
                run.harness_error(exc)
            if not run.wants_more():
                outcomes.append(run.finish())
                active.remove(run)
    return outcomes


class _ExperimentRun:
    """One experiment in progress: its server, repetitions, samples and what went wrong."""

    def __init__(self, context: _Context, setup: ExperimentSetup, index: int, total: int) -> None:
        self.context = context
        self.config = context.config
        self.setup = setup
        self.index = index
        self.total = total
        self.name = setup.name
        self.planned = setup.repetitions
        self.samples: list[Sample] = []
        self.completed = 0
        self.failure: FailureReason | None = None
        self.error: FailureReason | None = None
        self.error_traceback: str | None = None
        self.per_repetition: list[dict[str, Any]] = []
        self.server_logs: list[Path] = []
        self.workload_logs: list[Path] = []
        self.ports: list[int] = []
        self.pids: list[int] = []  # each start's process group (its leader's pid), for forensics
        self.ready_s: list[float] = []
        self.stops: list[dict[str, Any]] = []
        self.launch: Launch | None = None
        self.first_argv: tuple[str, ...] | None = None
        self.process: ManagedProcess | None = None
        self.warmed = False
        self.workload_settings: dict[str, Any] | None = None
        self.simulator = False  # the load generator saw benchdoc's simulator answer
        self.stopping: StoppingPlan | None = None
        self.stopping_notes: list[str] = []
        self.baseline: list[float] = []
        self.looks: list[Look] = []
        self.decision: str | None = None
        self.started_at = datetime.now(timezone.utc)
        self.environment: dict[str, Any] = {}
        self.log_base = context.logs_dir / "unstarted"

    # -- events ------------------------------------------------------------------------

    def emit(self, event: RunEvent) -> None:
        self.context.emit(event)

    def notice(self, message: str) -> None:
        self.emit(Notice(self.name, message))

    # -- phases ------------------------------------------------------------------------

    def begin(self) -> None:
        """Capture the environment, name the logs, plan --until-decided."""
        from benchdoc.environment import capture_environment

        self.started_at = datetime.now(timezone.utc)
        self.log_base = _log_base(self.context.logs_dir, self.name, self.started_at)
        limit = self.max_repetitions if self.context.options.until_decided else self.planned
        self.emit(ExperimentStarted(self.name, self.index, self.total, limit))
        probe_launch = plan_launch(self.config, self.setup, self.setup.server.port)
        self.environment = capture_environment(env=probe_launch.full_env(self.context.environ), cwd=self.config.root)
        if self.context.options.until_decided:
            self._plan_stopping()

    @property
    def max_repetitions(self) -> int:
        return _max_repetitions(self.context.options, self.planned)

    def start_server(self, tag: str | None = None) -> bool:
        """Start the server and wait until it is ready; False (with the reason kept) if not."""
        server = self.setup.server
        port = server.port or pick_free_port()
        launch = plan_launch(self.config, self.setup, port)
        self.launch = launch
        if self.first_argv is None:
            self.first_argv = launch.argv
        suffix = f".{tag}" if tag else ""
        log = self.log_base.with_name(f"{self.log_base.name}{suffix}.server.log")
        self.server_logs.append(log)
        self.ports.append(port)
        self.emit(ServerStarting(self.name, tuple(redact_argv(launch.argv)), log, port))
        process = ManagedProcess(
            launch.argv,
            cwd=launch.cwd,
            env=launch.full_env(self.context.environ),
            stdout_path=log,
            grace_s=launch.shutdown_grace_s,
            records=ServerRecords.of_project(self.config.root),
            label=self.name,
        )
        try:
            process.start()
        except OSError as err:
            what = err.strerror or str(err)
            self.failure = FailureReason(f"cannot start the server: {what}: {err.filename or launch.argv[0]}")
            return False
        self.process = process
        self.pids.append(process.pid)
        self.warmed = False
        timeout = launch.ready_timeout_s
        readiness = wait_until_ready(
            process, launch.ready_url, timeout,
            on_poll=lambda waited: self.emit(WaitingForServer(self.name, waited, timeout)),
        )
        if readiness.ready:
            self.ready_s.append(round(readiness.waited_s, 3))
            self.emit(ServerReady(self.name, readiness.waited_s, process.pid))
            return True
        if readiness.exited:
            fallback = f"server exited with code {readiness.returncode} before becoming ready"
        else:
            answer = f"; {launch.ready_url} last answered: {readiness.last_answer}" if readiness.last_answer else ""
            fallback = f"readiness timeout: not ready within {timeout:g} s{answer}"
        self.failure = explain_failure(
            read_log_tail(log), returncode=readiness.returncode, fallback=fallback, patterns=self.context.patterns
        )
        return False

    def stop_server(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        result = process.stop()
        self.stops.append(
            {"returncode": result.returncode, "killed": result.killed, "exited_before_stop": result.exited_before_stop}
        )

    def wants_more(self) -> bool:
        if self.failure is not None or self.error is not None:
            return False
        if self.completed < self.planned:
            return True
        plan = self.stopping
        return bool(plan and plan.looks and self.decision is None and self.completed < plan.looks[-1])

    def run_repetition(self) -> None:
        index = self.completed
        workload = self.setup.workload
        requests = workload.settings.get("requests") if isinstance(workload, LoadgenWorkload) else None
        target = self.planned if self.completed < self.planned else self.max_repetitions
        self.emit(RepetitionStarted(self.name, index, target, requests))
        if isinstance(workload, LoadgenWorkload):
            metrics = self._loadgen_repetition(workload, index)
        else:
            metrics = self._command_repetition(workload, index)
        if metrics is None:
            return
        self.samples.extend(Sample(metric, float(value), index) for metric, value in metrics.items())
        self.completed += 1
        self.emit(RepetitionFinished(self.name, index, dict(metrics)))
        self._maybe_look()

    def harness_error(self, exc: BaseException) -> None:
        from benchdoc.errors import BenchdocError

        if isinstance(exc, BenchdocError):
            self.error = FailureReason(exc.message)
        else:
            self.error = FailureReason(f"harness error: {type(exc).__name__}: {exc}")
            self.error_traceback = "".join(traceback.format_exception(exc)[-6:])

    def finish(self) -> ExperimentOutcome:
        """Record the run in the ledger (one run with every repetition) and say how it ended."""
        outcome = "ok"
        reason: FailureReason | None = None
        if self.error is not None:
            outcome, reason = "error", self.error
        elif self.failure is not None:
            outcome, reason = "failed", self.failure
        elif not self.samples:
            outcome, reason = "error", FailureReason("the workload produced no numbers")
        host = (self.environment.get("host") or {}).get("hostname")
        git = self.environment.get("git") or {}
        run = NewRun(
            experiment=self.name,
            outcome=outcome,  # type: ignore[arg-type]
            samples=list(self.samples),
            started_at=self.started_at,
            finished_at=datetime.now(timezone.utc),
            failure_reason=reason.reason if reason else None,
            failure_log_line=reason.log_line if reason else None,
            command=list(self.first_argv) if self.first_argv else None,
            host=host,
            git_commit=git.get("commit"),
            git_dirty=git.get("dirty"),
            environment=self.environment,
            source="run",
            metadata=self._metadata(),
        )
        run_id = self.context.ledger.record_run(run)
        result = ExperimentOutcome(
            experiment=self.name,
            outcome=outcome,  # type: ignore[arg-type]
            run_id=run_id,
            repetitions=self.completed,
            failure_reason=run.failure_reason,
            failure_log_line=run.failure_log_line,
            log_path=self.server_logs[0] if self.server_logs else None,
            decision=self.decision,
        )
        self.emit(ExperimentFinished(self.name, result))
        return result

    # -- the load generator ---------------------------------------------------------------

    def _loadgen_repetition(self, workload: LoadgenWorkload, index: int) -> dict[str, float] | None:
        from benchdoc.workloads import run_workload

        assert self.launch is not None
        spec = loadgen_spec(self.config, workload, self.launch, environ=self.context.environ)
        # Warm-up once per server start; each repetition its own prompts (seed + repetition).
        spec = replace(spec, seed=spec.seed + index, warmup_requests=0 if self.warmed else spec.warmup_requests)
        self.warmed = True

        def progress(done: int, total: int | None) -> None:
            self.emit(RequestsProgress(self.name, index, done, total))

        try:
            result = run_workload(spec, progress=progress)
        except RunError as err:
            self.failure = self._server_exit(index, settle_s=SERVER_EXIT_SETTLE_S) or FailureReason(
                f"the workload could not reach the server: {err.message}"
            )
            return None
        # A crashing server refuses connections before its process is gone; when requests
        # were cut off, give it a moment to finish exiting so the reason is its own, not the client's.
        died = self._server_exit(index, settle_s=SERVER_EXIT_SETTLE_S if (result.aborted or result.failed) else 0.0)
        if died is not None:
            self.failure = died
            return None
        if self.workload_settings is None:
            self.workload_settings = result.settings
        self.simulator = self.simulator or result.measured_simulator
        self.per_repetition.append(
            {
                "repetition": index,
                "seed": spec.seed,
                "requests": len(result.records),
                "failed_requests": len(result.failures),
                "cut_short_requests": result.cut_short,
                "failure_reasons": result.failure_reasons(),
                "warmup_requests": len(result.warmup_records),
                "duration_s": round(result.duration_s, 6),
                "aborted": result.aborted,
            }
        )
        if result.failed:
            reasons = result.failure_reasons()
            why = result.aborted or (f"every request failed: {next(iter(reasons))}" if reasons else "no request succeeded")
            self.failure = self._known_server_reason() or FailureReason(f"workload failed: {why}")
            return None
        return result.metrics

    # -- a command workload -----------------------------------------------------------------

    def _command_repetition(self, workload: CommandWorkload, index: int) -> dict[str, float] | None:
        if not self.warmed:
            for number in range(1, workload.warmup + 1):
                if self._run_command(workload, index, f"warmup{number}") is None:
                    return None
            self.warmed = True
        source = self._run_command(workload, index, f"rep{index + 1}")
        if source is None:
            return None
        described = f"the output file {source.name}" if workload.uses_output_file else f"the command's stdout ({source.name})"
        try:
            metrics = read_results(workload.reader, source, described)
        except ResultReadError as err:
            self.error = FailureReason(f"cannot read the workload's results: {err}")
            return None
        except ReportedFailure as failure:
            self.failure = FailureReason(f"workload failed: {failure}")
            return None
        self.per_repetition.append({"repetition": index, "results": _relative(source, self.config.root)})
        return metrics

    def _run_command(self, workload: CommandWorkload, index: int, tag: str) -> Path | None:
        """Run the workload command once; the file to read its results from, or None
        (with the failure or error kept)."""
        assert self.launch is not None
        base = self.log_base.with_name(f"{self.log_base.name}.{tag}")
        output = base.with_name(base.name + ".output" + workload.output_suffix)
        stdout = base.with_name(base.name + ".stdout.log")
        stderr = base.with_name(base.name + ".stderr.log")
        argv = command_argv(self.config, workload, self.launch, str(output))
        env = {**self.context.environ, **command_env(self.config, workload, self.launch, str(output))}
        command = ManagedProcess(
            argv, cwd=command_cwd(self.config, workload, self.launch), env=env,
            stdout_path=stdout, stderr_path=stderr, grace_s=COMMAND_GRACE_S,
        )
        self.workload_logs.extend([stdout, stderr])
        try:
            command.start()
        except OSError as err:
            self.error = FailureReason(
                f"cannot start the workload command: {err.strerror or err}: {err.filename or argv[0]}"
            )
            return None
        server = self.process
        try:
            code = command.wait(workload.timeout_s, should_stop=lambda: server is None or not server.running())
        finally:
            command.stop()
        died = self._server_exit(index)
        if died is not None:
            self.failure = died
            return None
        output_text = read_log_tail(stderr) + "\n" + read_log_tail(stdout)
        if code is None:
            found = explain_failure(output_text, fallback="", patterns=self.context.patterns)
            self.failure = FailureReason(f"workload command timed out after {workload.timeout_s:g} s", found.log_line)
            return None
        if code != 0:
            self.failure = explain_failure(
                output_text, returncode=code, fallback=f"workload command exited with code {code}",
                patterns=self.context.patterns,
            )
            return None
        return output if workload.uses_output_file else stdout

    # -- failures ---------------------------------------------------------------------------

    def _server_exit(self, index: int, settle_s: float = 0.0) -> FailureReason | None:
        """The reason, when the server has exited during repetition ``index``
        (waiting up to ``settle_s`` for a process that may be on its way out)."""
        process = self.process
        if process is not None and settle_s > 0 and process.running():
            process.wait(settle_s)
        if process is None or process.running():
            return None
        code = process.returncode
        return explain_failure(
            read_log_tail(self.server_logs[-1]),
            returncode=code,
            fallback=f"server exited with code {code} during repetition {index + 1}",
            patterns=self.context.patterns,
        )

    def _known_server_reason(self) -> FailureReason | None:
        return known_reason(read_log_tail(self.server_logs[-1]), self.context.patterns) if self.server_logs else None

    # -- --until-decided ----------------------------------------------------------------------

    def _plan_stopping(self) -> None:
        from benchdoc.results import build_results

        config = self.config
        target = self.setup.experiment.compare_to
        metric = config.primary_metric or "output_tok_s"
        if target is None:
            self._stopping_note(f"no compare_to to decide against; running its {self.planned} repetitions")
            return
        results = build_results(config, self.context.ledger, metrics=[metric])
        self.baseline = results[target].values(metric) if target in results.experiments else []
        if not self.baseline:
            self._stopping_note(
                f"'{target}' has no successful {metric} result in the ledger to decide against; "
                f"running {self.planned} repetitions"
            )
            return
        plan = plan_stopping(config.stats.alpha, self.planned, self.max_repetitions, len(self.baseline))
        self.stopping = plan
        self._stopping_note(f"until decided against '{target}' on {metric} (n={len(self.baseline)}): {plan.describe()}")

    def _stopping_note(self, message: str) -> None:
        self.stopping_notes.append(message)
        self.notice(message)

    def _maybe_look(self) -> None:
        plan = self.stopping
        if plan is None or self.completed not in plan.looks:
            return
        metric = self.config.primary_metric or "output_tok_s"
        values = [s.value for s in sorted(self.samples, key=lambda s: s.repetition) if s.metric == metric]
        if len(values) != self.completed:
            self.stopping = None
            self._stopping_note(f"the workload does not measure {metric} in every repetition; no more looks")
            return
        spec = self.config.metric_or_default(metric)
        try:
            look = take_look(
                plan, values, self.baseline, direction=spec.direction,
                equivalence_margin=spec.equivalence_margin,
            )
        except UsageError as err:
            self.stopping = None
            self._stopping_note(f"cannot compare {metric}: {err.message}; no more looks")
            return
        self.looks.append(look)
        self.emit(LookTaken(self.name, look, plan))
        if look.decision is not None:
            self.decision = look.decision

    # -- the record ---------------------------------------------------------------------------

    def _metadata(self) -> dict[str, Any]:
        root = self.config.root
        launch = self.launch
        metadata: dict[str, Any] = {
            "log": _relative(self.server_logs[0], root) if self.server_logs else None,
            "logs": {
                "server": [_relative(p, root) for p in self.server_logs],
                "workload": [_relative(p, root) for p in self.workload_logs if p.exists()],
            },
            "repetitions": self.completed,
            "planned_repetitions": self.planned,
            "interleaved": self.context.options.interleave,
            "per_repetition": self.per_repetition,
        }
        if launch is not None:
            metadata["server"] = {
                "name": self.setup.server.name,
                "argv": list(launch.argv),
                "env": redact_env(launch.env),
                "cwd": _relative(launch.cwd, root),
                "ready_url": launch.ready_url,
                "ports": self.ports,
                "pids": self.pids,
                "ready_s": self.ready_s,
                "stops": self.stops,
                "restarted_per_repetition": self.context.options.interleave,
            }
            try:
                workload = describe_workload(self.config, self.setup, launch, environ=self.context.environ)
            except RunError:
                workload = {"name": self.setup.workload.name, "kind": self.setup.workload.kind}
            if self.workload_settings is not None:
                workload["settings"] = self.workload_settings
            metadata["workload"] = workload
        if self.context.options.until_decided:
            plan = self.stopping
            metadata["until_decided"] = {
                "method": "bonferroni alpha spending over the planned looks",
                "compare_to": self.setup.experiment.compare_to,
                "metric": self.config.primary_metric,
                "baseline_n": len(self.baseline),
                "alpha": self.config.stats.alpha,
                "alpha_per_look": plan.alpha_per_look if plan else None,
                "looks_planned": list(plan.looks) if plan else [],
                "max_repetitions": self.max_repetitions,
                "looks": [
                    {"repetitions": look.repetitions, "p": look.p_value, "equivalence_p": look.equivalence_p,
                     "delta_pct": look.delta_pct, "decision": look.decision}
                    for look in self.looks
                ],
                "decision": self.decision,
                "notes": self.stopping_notes,
            }
        if self.simulator:
            # Reports and charts label these numbers as simulated, never as hardware measurements.
            metadata["simulator"] = True
        if self.error_traceback:
            metadata["traceback"] = self.error_traceback
        return metadata


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _log_base(logs_dir: Path, experiment: str, started: datetime) -> Path:
    """``.benchdoc/logs/<experiment>-<UTC stamp>``; a suffix keeps two runs in one second apart."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", experiment).strip("._") or "experiment"
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    logs_dir.mkdir(parents=True, exist_ok=True)
    base = f"{safe}-{stamp}"
    candidate, number = base, 1
    while glob.glob(glob.escape(str(logs_dir / candidate)) + ".*"):
        number += 1
        candidate = f"{base}-{number}"
    return logs_dir / candidate
