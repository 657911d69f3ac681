"""`bench` as a library function, beside :func:`~benchdoc.runner.run_experiments`.

`run` starts the server under test; `bench` drives a server that is already running: one
workload once (:func:`bench`), ``repetitions`` times (seed + i each, warm-up before the
first only, as `run` repeats it), at each level of a sweep (:func:`bench_sweep`) or in a
capacity search (:func:`bench_capacity`). With a :class:`BenchTarget`, what was measured is
recorded through the one recorder (:mod:`benchdoc.recording`), with the real start and end
of each run: one run of the pass or passes, one run per level (``EXP@rate=R``), one run of
a search's answer. Nothing here prints; callers hear progress through callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from benchdoc.engine_version import endpoint_version
from benchdoc.ledger.metadata import CapacitySearch, LevelRecord, RunMetadata, ServedBy
from benchdoc.naming import LoadLevel, level_experiment
from benchdoc.provenance import Provenance, provenance
from benchdoc.recording import Failure, Measurement, Repetition, now, record
from benchdoc.workloads.repeat import Repetitions, failure_of, measured_repetition, run_repetitions
from benchdoc.workloads.sweep import Capacity, CapacityStep, SweepPoint, find_capacity, run_sweep

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger
    from benchdoc.workloads import WorkloadResult, WorkloadSpec
    from benchdoc.workloads.repeat import Progress


@dataclass(frozen=True)
class BenchTarget:
    """Where `bench` records: the ledger (open for writing), the experiment, and what each
    run keeps besides its numbers."""

    ledger: Ledger
    experiment: str
    root: Path  # the project folder: its git state is the runs' provenance
    keep_requests: bool = True
    note: str | None = None
    command: Sequence[str] = ()  # the command line that ran, redacted when recorded
    provenance: Provenance | None = field(default=None, compare=False)

    def with_provenance(self, url: str) -> BenchTarget:
        """This target with the environment captured (once, before measuring), the engine's
        version as the server at ``url`` reports it included (benchdoc.engine_version)."""
        if self.provenance is not None:
            return self
        found = provenance(self.root)
        parts = urlsplit(url)
        engine = endpoint_version(f"{parts.scheme}://{parts.netloc}") if parts.scheme and parts.netloc else None
        if engine is not None:
            found = replace(found, environment={**found.environment, "engine": engine})
        return replace(self, provenance=found)

    def measurement(
        self, experiment: str, started: datetime, repetitions: Sequence[Repetition], failure: str | None,
        first: WorkloadResult, **metadata: Any,
    ) -> Measurement:
        """A bench run of ``experiment`` as the recorder takes it."""
        return Measurement(
            experiment=experiment,
            source="bench",
            started_at=started,
            finished_at=now(),
            repetitions=repetitions,
            failure=Failure(failure) if failure else None,
            command=tuple(self.command) or None,
            provenance=self.provenance,
            note=self.note,
            metadata=RunMetadata(settings=first.settings, server=ServedBy.from_json(first.server), **metadata),
            keep_requests=self.keep_requests,
        )


@dataclass(frozen=True)
class BenchReport:
    """What `bench` measured, and the run it recorded (None when not asked to record)."""

    done: Repetitions
    run_id: int | None

    @property
    def failure(self) -> str | None:
        """Why it measured nothing usable: a single pass's reason, or which pass stopped the rest."""
        if self.done.planned == 1 and self.done.results:
            return failure_of(self.done.results[0])
        return self.done.failure


def bench(
    spec: WorkloadSpec,
    repetitions: int = 1,
    *,
    target: BenchTarget | None = None,
    progress: Callable[[int], Progress | None] | None = None,
    on_repetition: Callable[[int, WorkloadResult], None] | None = None,
) -> BenchReport:
    """Measure ``spec`` ``repetitions`` times; with ``target``, record them as one run.

    A single pass is recorded with its numbers even when it failed (aborted, every request
    failed), as the failed run's evidence; of several, the passes before a failed one. At
    Ctrl-C the passes that finished are recorded, marked ``interrupted``."""
    target = target.with_provenance(spec.url) if target is not None else None
    started = now()
    done = run_repetitions(spec, repetitions, progress=progress, on_repetition=on_repetition)
    report = BenchReport(done, None)
    if target is None or not done.results:  # Ctrl-C before any pass finished: nothing to record
        return report
    if repetitions == 1:
        measured = [measured_repetition(0, spec.seed, done.results[0])]
        extra: dict[str, Any] = {}
    else:
        measured = done.measured()
        extra = {"planned_repetitions": repetitions, "interrupted": done.interrupted}
    run = target.measurement(target.experiment, started, measured, report.failure, done.results[0], **extra)
    return BenchReport(done, record(target.ledger, run))


def bench_sweep(
    spec: WorkloadSpec,
    levels: tuple[LoadLevel, ...],
    *,
    target: BenchTarget | None = None,
    on_level: Callable[[SweepPoint, int | None], None] | None = None,
) -> list[SweepPoint]:
    """Run ``spec`` at each level in turn; with ``target``, each level is a run of
    ``EXP@rate=R`` (``on_level`` hears each level and its run id as it ends)."""

    target = target.with_provenance(spec.url) if target is not None else None
    mark = [now()]

    def level_done(point: SweepPoint) -> None:
        run_id = None
        if target is not None:
            run_id = _record_level(target, point.level, point.result, mark[0])
        mark[0] = now()
        if on_level is not None:
            on_level(point, run_id)

    return run_sweep(spec, levels, on_level=level_done)


def bench_capacity(
    spec: WorkloadSpec,
    *,
    target_attainment: float,
    start_rate: float,
    precision: float,
    budget_s: float,
    target: BenchTarget | None = None,
    on_step: Callable[[CapacityStep, int | None], None] | None = None,
) -> tuple[Capacity, int | None]:
    """Search the highest rate whose SLO attainment stays at or above ``target_attainment``;
    with ``target``, each level tried is a run of ``EXP@rate=R`` and the answer a run of EXP
    (``capacity_req_s``, ``capacity_high_req_s``). The search and the answer's run id."""
    target = target.with_provenance(spec.url) if target is not None else None
    started = now()
    mark = [started]

    def step_done(step: CapacityStep) -> None:
        run_id = None
        if target is not None:
            run_id = _record_level(target, LoadLevel("rate", step.rate), step.result, mark[0])
        mark[0] = now()
        if on_step is not None:
            on_step(step, run_id)

    found = find_capacity(spec, target=target_attainment, start_rate=start_rate, precision=precision,
                          budget_s=budget_s, on_step=step_done)
    if target is None or not found.steps:
        return found, None
    passing = [s for s in found.steps if s.passed]
    shown = max(passing, key=lambda s: s.rate) if passing else found.steps[0]
    answer = measured_repetition(0, spec.seed, shown.result)
    answer = Repetition(0, found.metrics(), answer.record, answer.requests, answer.load, simulator=answer.simulator)
    run = target.measurement(target.experiment, started, [answer], None if found.found else found.sentence(),
                             shown.result, capacity=CapacitySearch.from_json(found.to_dict()))
    return found, record(target.ledger, run)


def _record_level(target: BenchTarget, level: LoadLevel, result: WorkloadResult, started: datetime) -> int | None:
    name = level_experiment(target.experiment, level)
    run = target.measurement(name, started, [measured_repetition(0, result_seed(result), result)], failure_of(result),
                             result, load=LevelRecord.from_json(level.entry(target.experiment)))
    return record(target.ledger, run)


def result_seed(result: WorkloadResult) -> int | None:
    """The seed a result's prompts were drawn from, as its settings say."""
    seed = result.settings.get("seed")
    return seed if isinstance(seed, int) else None
