"""One experiment in progress: its phases (begin, start the server, repetitions, stop,
finish), its samples, what went wrong, and the run it records."""

from __future__ import annotations

import glob
import re
import traceback
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.config.tables import LoadgenWorkload
from benchdoc.engine_version import endpoint_version, engine_entry
from benchdoc.errors import RunError
from benchdoc.ledger.metadata import (
    CapacitySearch,
    LevelRecord,
    RunLogs,
    RunMetadata,
    ServedBy,
    SlurmTask,
    WorkloadRecord,
)
from benchdoc.ledger.models import Sample
from benchdoc.machineload import LoadMeter
from benchdoc.naming import level_experiment
from benchdoc.planning.fingerprint import experiment_fingerprint
from benchdoc.planning.plan import ExperimentSetup, Launch, describe_workload, plan_launch
from benchdoc.recording import Failure, Measurement, Repetition, now, record
from benchdoc.runner.capacity import capacity_repetition, level_measurement
from benchdoc.runner.context import RunContext
from benchdoc.runner.deciding import UntilDecided
from benchdoc.runner.events import (
    ExperimentFinished,
    ExperimentOutcome,
    ExperimentStarted,
    RepetitionFinished,
    RepetitionStarted,
)
from benchdoc.runner.failures import FailureReason
from benchdoc.runner.repetitions import RepetitionResult, command_repetition, loadgen_repetition, relative
from benchdoc.runner.session import ServerSession

if TYPE_CHECKING:
    from benchdoc.naming import LoadLevel
    from benchdoc.provenance import Provenance
    from benchdoc.workloads import WorkloadResult


class ExperimentRun:
    """One experiment: its server, repetitions, samples and what went wrong."""

    def __init__(
        self, context: RunContext, setup: ExperimentSetup, index: int, total: int, server: ServerSession | None = None
    ) -> None:
        self.context = context
        self.config = context.config
        self.setup = setup
        self.index = index
        self.total = total
        self.name = setup.name
        # With --starts the repetitions asked for are per start.
        self.planned = setup.repetitions * (context.options.starts or 1)
        self.per_start = context.options.repetitions_per_start(self.planned)
        self.planned_starts = self.planned // self.per_start if self.per_start else 1
        self.repetitions: list[Repetition] = []  # what each repetition measured, as the recorder takes it
        self.completed = 0
        self.failure: FailureReason | None = None
        self.error: FailureReason | None = None
        self.error_traceback: str | None = None
        self.workload_logs: list[Path] = []
        self.workload_settings: dict[str, Any] | None = None
        self.answered: dict[str, Any] | None = None  # the server that answered the load generator
        self.server = server or ServerSession(context, setup)  # a sweep's levels share one
        self.deciding = UntilDecided(context, setup, self.planned_starts) if context.options.until_decided else None
        self.candidates: list[ExperimentRun] = []  # runs deciding against this one as it runs (in rounds)
        self.run_id: int | None = None  # once recorded
        self.started_at = datetime.now(timezone.utc)
        self.provenance: Provenance | None = None
        self.searches: list[CapacitySearch] = []  # each capacity search's answer, by repetition
        self.level_mark = self.started_at  # when the next level of a capacity search started

    # -- phases ------------------------------------------------------------------------

    def begin(self) -> None:
        """Capture the environment, name the logs, plan --until-decided."""
        from benchdoc.provenance import provenance

        self.started_at = datetime.now(timezone.utc)
        if not self.server.running():  # a level of a sweep after the first keeps the server's logs
            self.server.log_base = _log_base(self.context.logs_dir, self.server.name, self.started_at)
        self.context.emit(ExperimentStarted(self.name, self.index, self.total, self.limit()))
        probe_launch = plan_launch(self.config, self.setup, self.setup.server.port)
        env = probe_launch.full_env(self.context.environ)
        self.provenance = provenance(self.config.root, env=env)
        self._add_engine(engine_entry(probe_launch.argv, env, probe_launch.cwd))
        if self.deciding is not None:
            self.deciding.start()

    def start_server(self, tag: str | None = None) -> bool:
        """Start the server and wait until it is ready; False (with the reason kept) if not."""
        failure = self.server.start(tag)
        launch = self.server.launch
        if failure is None and launch is not None and self._engine_unknown():
            self._add_engine(endpoint_version(launch.base_url))
        if failure is not None and failure.setup:
            self.error = failure
        elif failure is not None:
            self.failure = failure
        return failure is None

    def stop_server(self) -> None:
        self.server.stop()

    def start_is_done(self) -> bool:
        """The current server start has run its share of repetitions: the next needs a fresh one."""
        return self.per_start is not None and self.completed > 0 and self.completed % self.per_start == 0

    def limit(self) -> int:
        """The most repetitions this run may take (more than planned with --until-decided)."""
        runs = [self, *self.candidates]
        starts = max((run.deciding.max_starts for run in runs if run.deciding is not None), default=0)
        return max(self.planned, starts * (self.per_start or 1))

    def wants_more(self) -> bool:
        if self.failure is not None or self.error is not None:
            return False
        if self.completed < self.planned or (self.per_start and self.completed % self.per_start):
            return True  # the planned repetitions, or the rest of the server start under way
        starts = self.completed // (self.per_start or max(self.completed, 1))
        if self.deciding is not None and self.deciding.wants_more(starts):
            return True
        # A baseline running alongside goes on while a candidate still needs its next start.
        return any(run.wants_more() for run in self.candidates)

    def run_repetition(self) -> None:
        index = self.completed
        workload = self.setup.workload
        requests = workload.settings.get("requests") if isinstance(workload, LoadgenWorkload) else None
        target = self.planned if self.completed < self.planned else self.limit()
        self.context.emit(RepetitionStarted(self.name, index, target, requests))
        process = self.server.process
        meter = LoadMeter([process.pgid] if process is not None else []).start()
        self.level_mark = now()  # a capacity search's first level starts with the repetition
        if isinstance(workload, LoadgenWorkload) and workload.capacity is not None:
            result = capacity_repetition(self.context, self.server, workload, index, self._record_level)
        elif isinstance(workload, LoadgenWorkload):
            result = loadgen_repetition(self.context, self.server, workload, index, level=self.setup.level)
        else:
            result = command_repetition(self.context, self.server, workload, index)
        metrics = self._keep(result)
        self.repetitions.append(Repetition(
            index, metrics or {}, result.record, tuple(result.requests), meter.stop(), start=max(len(self.server.pids) - 1, 0),
            simulator=result.simulator, server_metrics=result.server_metrics,
        ))
        if metrics is None:
            return
        self.completed += 1
        self.context.emit(RepetitionFinished(self.name, index, dict(metrics)))
        if self.deciding is not None and self.per_start and self.completed % self.per_start == 0:
            self.deciding.look(self.samples, self.completed // self.per_start)

    @property
    def samples(self) -> list[Sample]:
        """Every sample measured so far, by repetition."""
        return [s for r in self.repetitions for s in r.samples()]

    def harness_error(self, exc: BaseException) -> None:
        from benchdoc.errors import BenchdocError

        if isinstance(exc, BenchdocError):
            self.error = FailureReason(exc.message)
        else:
            self.error = FailureReason(f"harness error: {type(exc).__name__}: {exc}")
            self.error_traceback = "".join(traceback.format_exception(exc)[-6:])

    def finish(self) -> ExperimentOutcome:
        """Record the run in the ledger (one run with every repetition) and say how it ended."""
        reason = self.error or self.failure
        first_argv = self.server.first_argv
        measured = Measurement(
            experiment=self.name,
            source="run",
            started_at=self.started_at,
            finished_at=now(),
            repetitions=self.repetitions,
            failure=Failure(reason.reason, reason.log_line, reason.cause, harness=reason is self.error) if reason else None,
            command=first_argv,
            provenance=self.provenance,
            metadata=self.metadata(),
            keep_requests=self.config.keep_requests,
        )
        run_id = self.run_id = record(self.context.ledger, measured)
        failure = measured.effective_failure
        result = ExperimentOutcome(
            experiment=self.name,
            outcome=measured.outcome,
            run_id=run_id,
            repetitions=self.completed,
            failure_reason=failure.reason if failure else None,
            failure_log_line=failure.log_line if failure else None,
            failure_cause=failure.cause if failure else None,
            log_path=self.server.logs[0] if self.server.logs else None,
            decision=self.deciding.decision if self.deciding else None,
        )
        self.context.emit(ExperimentFinished(self.name, result))
        return result

    # -- bookkeeping ---------------------------------------------------------------------

    def _engine_unknown(self) -> bool:
        """No engine version yet: no interpreter found, or it sees no engine package."""
        if self.provenance is None:
            return False
        engine = self.provenance.environment.get("engine") or {}
        return not engine.get("packages") and not engine.get("version")

    def _add_engine(self, entry: dict[str, Any] | None) -> None:
        """Keep the engine's versions in the run's environment (see benchdoc.engine_version)."""
        if entry and self.provenance is not None:
            environment = self.provenance.environment
            engine = {**(environment.get("engine") or {}), **entry}
            self.provenance = replace(self.provenance, environment={**environment, "engine": engine})

    def _keep(self, result: RepetitionResult) -> dict[str, float] | None:
        """Keep what a repetition left (logs, bookkeeping, failure); its numbers when it succeeded."""
        self.workload_logs.extend(result.workload_logs)
        if result.settings is not None and self.workload_settings is None:
            self.workload_settings = result.settings
        if result.server is not None and self.answered is None:
            self.answered = result.server
        if result.capacity is not None:
            self.searches.append(CapacitySearch.from_json(result.capacity))
        self.failure = result.failure or self.failure
        self.error = result.error or self.error
        if result.failure is not None or result.error is not None:
            return None
        return result.metrics

    def metadata(self) -> RunMetadata:
        """What the run records beyond its samples, environment and what the recorder sums
        over its repetitions."""
        root = self.config.root
        logs = self.server.logs
        launch = self.server.launch
        metadata = RunMetadata(
            log_path=relative(logs[0], root) if logs else None,
            logs=RunLogs(tuple(relative(p, root) for p in logs),
                         tuple(relative(p, root) for p in self.workload_logs if p.exists())),
            repetitions=self.completed,
            planned_repetitions=self.planned,
            interleaved=self.context.options.interleave,
            launch=self.server.record(lambda path: relative(path, root)),
            workload=self._workload(launch) if launch is not None else None,
            server=ServedBy.from_json(self.answered) if self.answered is not None else None,
            settings=self.workload_settings,  # the load generator's, as bench records them
            until_decided=self.deciding.record() if self.deciding else None,
            traceback=self.error_traceback,
            config_fingerprint=experiment_fingerprint(self.config, self.name),
            load=self._level(),
            capacity=replace(self.searches[-1], searches=tuple(self.searches)) if self.searches else None,
        )
        tags = self.context.options.tags or {}
        if not tags:
            return metadata
        return replace(metadata, slurm=SlurmTask.from_json(tags.get("slurm") or {}), record_id=tags.get("record_id"))

    def _record_level(self, level: LoadLevel, result: WorkloadResult) -> None:
        """Record a level a capacity search tried as a run of ``EXP@rate=R``, and say so."""
        name = level_experiment(self.name, level)
        started, self.level_mark = self.level_mark, now()
        run_id = record(self.context.ledger, level_measurement(
            name, self.name, level, result, started, provenance=self.provenance, keep_requests=self.config.keep_requests,
        ))
        attainment = result.metrics.get("slo_attainment")
        figure = f"SLO attainment {attainment:.3f}" if attainment is not None else "no SLO attainment"
        if result.client is not None and result.client.bound:
            figure += ", CLIENT-BOUND"
        self.context.notice(self.name, f"{level.label}: {figure}; recorded as run {run_id} of {name}")

    def _level(self) -> LevelRecord | None:
        """The level of a sweep this run measured, as `bench` records it."""
        level = self.setup.level
        if level is None:
            return None
        assert self.setup.swept is not None
        return LevelRecord.from_json(level.entry(self.setup.swept))

    def _workload(self, launch: Launch) -> WorkloadRecord:
        try:
            workload = describe_workload(self.config, self.setup, launch, environ=self.context.environ)
        except RunError:
            workload = {"name": self.setup.workload.name, "kind": self.setup.workload.kind}
        if self.workload_settings is not None:
            workload["settings"] = self.workload_settings
        return WorkloadRecord.from_json(workload)


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
