"""One repetition of an experiment's workload against its running server: the load
generator, or a command whose results are read from its output."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.config.tables import CommandWorkload, LoadgenWorkload
from benchdoc.errors import RunError
from benchdoc.ledger.metadata import RepetitionRecord
from benchdoc.ledger.models import RequestRow
from benchdoc.planning.plan import command_argv, command_cwd, command_env, loadgen_spec
from benchdoc.runner.context import RunContext
from benchdoc.runner.events import RequestsProgress
from benchdoc.runner.failures import FailureReason, explain_failure, read_log_tail
from benchdoc.runner.process import ManagedProcess
from benchdoc.runner.reading import ReportedFailure, ResultReadError, read_results
from benchdoc.runner.session import ServerSession

if TYPE_CHECKING:
    from benchdoc.naming import LoadLevel

COMMAND_GRACE_S = 5.0
# How long a server whose clients saw failures may take to finish exiting before we look.
SERVER_EXIT_SETTLE_S = 2.0


@dataclass
class RepetitionResult:
    """What one repetition gave: numbers, or the failure (of the configuration) or error (of
    the setup or harness) that stopped it."""

    metrics: dict[str, float] | None = None
    failure: FailureReason | None = None
    error: FailureReason | None = None
    record: RepetitionRecord | None = None
    settings: dict[str, Any] | None = None  # the load generator's settings as it ran them
    simulator: bool = False  # the load generator saw benchdoc's simulator answer
    server: dict[str, Any] | None = None  # the server that answered the load generator
    requests: list[RequestRow] = field(default_factory=list)  # every measured request
    capacity: dict[str, Any] | None = None  # what a capacity search found (its resolution and levels)
    server_metrics: dict[str, Any] | None = None  # the server's /metrics over the measured phase
    workload_logs: list[Path] = field(default_factory=list)


def relative(path: Path, root: Path) -> str:
    """``path`` relative to the project ``root`` when it is inside it."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def loadgen_repetition(
    context: RunContext, session: ServerSession, workload: LoadgenWorkload, index: int,
    level: LoadLevel | None = None,
) -> RepetitionResult:
    """Run the load generator once (at ``level`` of a sweep); warm-up once per server start,
    each repetition its own prompts (seed + repetition)."""
    from benchdoc.workloads import run_workload
    from benchdoc.workloads.repeat import repetition_record, repetition_spec

    assert session.launch is not None
    spec = loadgen_spec(context.config, workload, session.launch, environ=context.environ, level=level)
    spec = repetition_spec(spec, index, warm_up=not session.warmed)
    session.warmed = True

    def progress(done: int, total: int | None) -> None:
        context.emit(RequestsProgress(session.name, index, done, total))

    try:
        result = run_workload(spec, progress=progress)
    except RunError as err:
        return RepetitionResult(
            failure=session.exit_reason(index, settle_s=SERVER_EXIT_SETTLE_S)
            or FailureReason(f"the workload could not reach the server: {err.message}")
        )
    # A crashing server refuses connections before its process is gone; when requests
    # were cut off, give it a moment to finish exiting so the reason is its own, not the client's.
    died = session.exit_reason(index, settle_s=SERVER_EXIT_SETTLE_S if (result.aborted or result.failed) else 0.0)
    if died is not None:
        return RepetitionResult(failure=died)
    outcome = RepetitionResult(
        record=repetition_record(index, spec.seed, result), settings=result.settings, simulator=result.measured_simulator, server=result.server,
        requests=result.request_rows(index),
        server_metrics={"repetition": index, **result.server_metrics.to_dict()} if result.server_metrics else None,
    )
    if result.failed:
        reasons = result.failure_reasons()
        why = result.aborted or (f"every request failed: {next(iter(reasons))}" if reasons else "no request succeeded")
        outcome.failure = session.known_reason() or FailureReason(f"workload failed: {why}")
        return outcome
    outcome.metrics = result.metrics
    return outcome


def command_repetition(
    context: RunContext, session: ServerSession, workload: CommandWorkload, index: int
) -> RepetitionResult:
    """Run the workload command (after its warm-up runs, once per server start) and read its numbers."""
    outcome = RepetitionResult()
    if not session.warmed:
        for number in range(1, workload.warmup + 1):
            if _run_command(context, session, workload, index, f"warmup{number}", outcome) is None:
                return outcome
        session.warmed = True
    source = _run_command(context, session, workload, index, f"rep{index + 1}", outcome)
    if source is None:
        return outcome
    described = f"the output file {source.name}" if workload.uses_output_file else f"the command's stdout ({source.name})"
    try:
        outcome.metrics = read_results(workload.reader, source, described)
    except ResultReadError as err:
        outcome.error = FailureReason(f"cannot read the workload's results: {err}")
        return outcome
    except ReportedFailure as failure:
        outcome.failure = FailureReason(f"workload failed: {failure}")
        return outcome
    config = context.config
    problem = next(filter(None, (config.metric_or_default(m).value_problem(v) for m, v in outcome.metrics.items())), None)
    if problem:  # a value its metric cannot take is a harness error, never a result
        outcome.metrics = None
        outcome.error = FailureReason(f"cannot use the workload's results: {problem}")
        return outcome
    outcome.record = RepetitionRecord(repetition=index, results=relative(source, context.config.root))
    return outcome


def _run_command(
    context: RunContext, session: ServerSession, workload: CommandWorkload, index: int, tag: str,
    outcome: RepetitionResult,
) -> Path | None:
    """Run the workload command once; the file to read its results from, or None (with the
    failure or error kept in ``outcome``)."""
    assert session.launch is not None
    config = context.config
    base = session.log_base.with_name(f"{session.log_base.name}.{tag}")
    output = base.with_name(base.name + ".output" + workload.output_suffix)
    stdout = base.with_name(base.name + ".stdout.log")
    stderr = base.with_name(base.name + ".stderr.log")
    argv = command_argv(config, workload, session.launch, str(output))
    env = {**context.environ, **command_env(config, workload, session.launch, str(output))}
    command = ManagedProcess(
        argv, cwd=command_cwd(config, workload, session.launch), env=env,
        stdout_path=stdout, stderr_path=stderr, grace_s=COMMAND_GRACE_S,
    )
    outcome.workload_logs.extend([stdout, stderr])
    try:
        command.start()
    except OSError as err:
        outcome.error = FailureReason(f"cannot start the workload command: {err.strerror or err}: {err.filename or argv[0]}")
        return None
    try:
        code = command.wait(workload.timeout_s, should_stop=lambda: not session.running())
    finally:
        command.stop()
    died = session.exit_reason(index)
    if died is not None:
        outcome.failure = died
        return None
    output_text = read_log_tail(stderr) + "\n" + read_log_tail(stdout)
    if code is None:
        found = explain_failure(output_text, fallback="", patterns=context.patterns)
        outcome.failure = FailureReason(f"workload command timed out after {workload.timeout_s:g} s", found.log_line)
        return None
    if code != 0:
        outcome.failure = explain_failure(
            output_text, returncode=code, fallback=f"workload command exited with code {code}", patterns=context.patterns,
        )
        return None
    return output if workload.uses_output_file else stdout
