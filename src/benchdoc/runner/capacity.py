"""A capacity search as one repetition of an experiment (`find_capacity` in its workload).

Each repetition is one whole search (the search of ``benchdoc.workloads.sweep``, as
`bench --find-capacity` runs it) against the running server: its answer,
``capacity_req_s`` and ``capacity_high_req_s``, is the repetition's numbers, so repeated
searches give the capacity an interval like any metric. Every level a search tries is
recorded as a run of ``EXP@rate=R``, as `bench --record` records it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from benchdoc.config.tables import LoadgenWorkload
from benchdoc.errors import RunError
from benchdoc.ledger.metadata import LevelRecord, RepetitionRecord, RunMetadata, ServedBy
from benchdoc.planning.plan import loadgen_spec
from benchdoc.recording import Failure, Measurement, now
from benchdoc.runner.context import RunContext
from benchdoc.runner.events import RequestsProgress
from benchdoc.runner.failures import FailureReason
from benchdoc.runner.repetitions import SERVER_EXIT_SETTLE_S, RepetitionResult
from benchdoc.runner.session import ServerSession
from benchdoc.workloads.repeat import failure_of, measured_repetition

if TYPE_CHECKING:
    from datetime import datetime

    from benchdoc.naming import LoadLevel
    from benchdoc.provenance import Provenance
    from benchdoc.workloads import WorkloadResult, WorkloadSpec

# Hears each level a search tried, to record it.
LevelSink = Callable[["LoadLevel", "WorkloadResult"], None]


class _ServerGone(Exception):
    def __init__(self, failure: FailureReason) -> None:
        super().__init__(failure.reason)
        self.failure = failure


def capacity_repetition(
    context: RunContext, session: ServerSession, workload: LoadgenWorkload, index: int, on_level: LevelSink
) -> RepetitionResult:
    """One capacity search (seed + repetition; the warm-up once per server start, before
    its first level)."""
    from benchdoc.naming import LoadLevel
    from benchdoc.workloads import run_workload
    from benchdoc.workloads.repeat import repetition_spec
    from benchdoc.workloads.sweep import CapacityStep, find_capacity

    assert session.launch is not None and workload.capacity is not None
    search = workload.capacity
    spec = loadgen_spec(context.config, workload, session.launch, environ=context.environ)
    spec = repetition_spec(spec, index, warm_up=not session.warmed)

    def progress(done: int, total: int | None) -> None:
        context.emit(RequestsProgress(session.name, index, done, total))

    def run_level(level_spec: WorkloadSpec) -> WorkloadResult:
        result = run_workload(replace(level_spec, warmup_requests=0) if session.warmed else level_spec, progress)
        session.warmed = True
        died = session.exit_reason(index, settle_s=SERVER_EXIT_SETTLE_S if (result.aborted or result.failed) else 0.0)
        if died is not None:
            raise _ServerGone(died)
        return result

    def on_step(step: CapacityStep) -> None:
        on_level(LoadLevel("rate", step.rate), step.result)

    try:
        found = find_capacity(spec, target=search.target, start_rate=search.start_rate, precision=search.precision,
                              budget_s=search.time_budget_s, run=run_level, on_step=on_step)
    except _ServerGone as gone:
        return RepetitionResult(failure=gone.failure)
    except RunError as err:
        return RepetitionResult(
            failure=session.exit_reason(index, settle_s=SERVER_EXIT_SETTLE_S)
            or FailureReason(f"the workload could not reach the server: {err.message}")
        )
    outcome = RepetitionResult(
        record=RepetitionRecord(repetition=index, seed=spec.seed, requests=sum(len(s.result.records) for s in found.steps)),
        capacity=found.to_dict(),
        settings=spec.settings(),
    )
    if found.steps:
        outcome.simulator = found.steps[0].result.measured_simulator
        outcome.server = found.steps[0].result.server
    if not found.found:
        outcome.failure = FailureReason(f"no capacity: {found.sentence()}")
        return outcome
    outcome.metrics = found.metrics()
    return outcome


def level_measurement(
    experiment: str, swept: str, level: LoadLevel, result: WorkloadResult, started: datetime, *,
    provenance: Provenance | None, keep_requests: bool,
) -> Measurement:
    """One level a capacity search tried, as a run of ``experiment`` (``EXP@rate=R``) for the recorder."""
    return Measurement(
        experiment=experiment,
        source="run",
        started_at=started,
        finished_at=now(),
        repetitions=[measured_repetition(0, result.settings.get("seed"), result)],
        failure=Failure(reason) if (reason := failure_of(result)) else None,
        provenance=provenance,
        metadata=RunMetadata(settings=result.settings, server=ServedBy.from_json(result.server),
                             load=LevelRecord.from_json(level.entry(swept))),
        keep_requests=keep_requests,
    )
