"""THE recorder: what was measured becomes one typed run record, written in one transaction.

Every road to the ledger goes through here: `run` (each experiment, and each level a
capacity search tries), `bench --record` (one pass, ``--repetitions``, a sweep's levels, a
capacity search's answer), `record`, `import`, and a Slurm task (its run, the failed run
of a task Slurm ended, and the one a status check reconciles). A caller says what it
measured as a :class:`Measurement`; :func:`build_run` turns it into the ledger's
:class:`~benchdoc.ledger.models.NewRun` and :func:`record` writes it. So the outcome, the
counts summed over repetitions (requests, cut-short requests, failures by reason), the
client's verdict, the machine's load, the start and end times and the redaction of the
command are decided once, whatever the road.

The API, all of it:

- :class:`Repetition`: one measured pass: its index, its numbers, its bookkeeping
  (:class:`~benchdoc.ledger.metadata.RepetitionRecord`), its requests, the machine's load
  over it, and ``start``: which server start of the run it came from (the index into the
  run's ``launch.pids``; 0 for the first start and for a run benchdoc did not start the
  server of). Every sample of a repetition belongs to that start.
- :class:`Failure`: why the run did not measure, and whether the configuration failed
  (outcome ``failed``) or the harness did (``error``).
- :class:`Measurement`: the run as measured: experiment, source, real start and end
  times, repetitions, failure, command, provenance, note, and the metadata only its road
  knows (the launch, the load level, the import source, the Slurm task...).
- :func:`build_run`, :func:`record`, :func:`record_all`.
- :func:`prove_writable`: before measuring, the ledger takes a write (a transaction
  rolled back) and has room, or nothing is measured; a ledger in memory is refused.

This module knows the ledger and nothing above it: the load generator, the runner and the
commands build measurements; nothing here measures or prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, overload

from benchdoc.ledger.metadata import ClientVerdict, RepetitionRecord, RunMetadata, ServerMetrics, ServerSeries
from benchdoc.ledger.models import NewRun, Outcome, RequestRow, Sample
from benchdoc.machineload import LoadFigures, environment_entry
from benchdoc.provenance import Provenance
from benchdoc.reasons import group_reasons
from benchdoc.redact import redact_argv

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

# Where a run came from (NewRun.source); an import is "import:<format>". A Slurm task is a
# `run` (its task is in the metadata's ``slurm``); a value recorded through the MCP server
# (`benchdoc mcp`'s record tool) is "mcp".
SOURCES: tuple[str, ...] = ("run", "bench", "record", "import", "mcp")


@dataclass(frozen=True)
class Repetition:
    """One measured pass of a run.

    ``metrics`` is empty when the pass measured nothing usable (its failure is the run's).
    ``start`` is the server start it came from (index into the run's ``launch.pids``).
    """

    index: int  # 0-based, as the samples number it
    metrics: Mapping[str, float] = field(default_factory=dict)
    record: RepetitionRecord | None = None
    requests: Sequence[RequestRow] = ()
    load: LoadFigures | None = None
    start: int = 0
    simulator: bool = False  # the server said it is benchdoc's simulator
    server_metrics: Mapping[str, Any] | None = None  # the server's /metrics series over this repetition

    def samples(self) -> list[Sample]:
        return [Sample(metric, float(value), self.index, self.start) for metric, value in self.metrics.items()]


@dataclass(frozen=True)
class Failure:
    """Why a run did not measure. ``harness``: benchdoc or the harness failed (outcome
    ``error``: the run says nothing about the configuration); else the configuration
    under test failed (``failed``)."""

    reason: str  # "" when the source gave none
    log_line: str | None = None
    cause: str | None = None  # the log's last exception line, when no known reason matched
    harness: bool = False

    @property
    def outcome(self) -> Outcome:
        return Outcome.ERROR if self.harness else Outcome.FAILED


NO_NUMBERS = Failure("the workload produced no numbers", harness=True)


@dataclass(frozen=True)
class Measurement:
    """A run as measured, before it is a record.

    ``metadata`` holds what only the caller's road knows; the recorder fills the keys it
    derives from ``repetitions`` (repetitions, per_repetition, requests, cut_short,
    failures, client, duration_s, provenance, simulator, server_metrics) whenever a repetition carries its
    bookkeeping, so no road writes them by hand.
    """

    experiment: str
    source: str
    started_at: datetime
    finished_at: datetime
    repetitions: Sequence[Repetition] = ()
    failure: Failure | None = None
    command: Sequence[str] | None = None
    provenance: Provenance | None = None
    note: str | None = None
    metadata: RunMetadata = field(default_factory=RunMetadata)
    keep_requests: bool = True  # [ledger] keep_requests

    @property
    def outcome(self) -> Outcome:
        failure = self.effective_failure
        return Outcome.OK if failure is None else failure.outcome

    @property
    def effective_failure(self) -> Failure | None:
        """The failure, or NO_NUMBERS when nothing failed yet nothing was measured."""
        if self.failure is not None:
            return self.failure
        return None if any(r.metrics for r in self.repetitions) else NO_NUMBERS


def now() -> datetime:
    """The recorder's clock (UTC): a run's start and end are taken from it."""
    return datetime.now(timezone.utc)


def summary(repetitions: Sequence[Repetition]) -> dict[str, Any]:
    """The run-level keys derived from the repetitions' bookkeeping (RunMetadata fields);
    empty when no repetition carries any. Cut-short counts, failure reasons and the
    client's verdict are summed here and nowhere else."""
    series = tuple(ServerSeries.from_json({**r.server_metrics, "repetition": r.index})
                   for r in repetitions if r.server_metrics)
    records = [replace(r.record, start=r.start) for r in repetitions if r.record is not None]
    if not records:
        found: dict[str, Any] = {"simulator": True} if any(r.simulator for r in repetitions) else {}
        return found | ({"server_metrics": ServerMetrics(series)} if series else {})
    counted = [r for r in records if r.requests is not None]
    failures: Counter[str] = Counter()
    for record in counted:
        failures.update(record.failure_reasons)
    durations = [r.duration_s for r in records if r.duration_s is not None]
    provenances = [r.provenance for r in records if r.provenance]
    return {
        "repetitions": sum(1 for r in repetitions if r.metrics),
        "per_repetition": tuple(records),
        "requests": sum(r.requests or 0 for r in counted) if counted else None,
        "cut_short": sum(r.cut_short_requests or 0 for r in counted) if counted else None,
        "failures": group_reasons(dict(failures.most_common())),
        "client": client_verdict(records),
        "duration_s": round(sum(durations), 6) if durations else None,
        "provenance": merge_provenance(provenances) or None,
        "simulator": any(r.simulator for r in repetitions),
        "server_metrics": ServerMetrics(series) if series else None,
    }


def client_verdict(records: Sequence[RepetitionRecord]) -> ClientVerdict | None:
    """The run's client verdict: whether the load generator was the bottleneck, in how many
    of the repetitions that watched it, and why (the first bound one's reasons); None when
    no repetition watched the client. Each repetition's own figures stay in per_repetition."""
    watched = [r.client for r in records if r.client]
    if not watched:
        return None
    bound = [c for c in watched if c.bound]
    return ClientVerdict(bool(bound), len(bound), len(watched), bound[0].reasons if bound else ())


def merge_provenance(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several repetitions' provenance as one: counts by source added up (``{"usage": 12}``);
    any other value (the accept length's source, the dataset's description) is kept once,
    or each distinct one listed when repetitions differ."""
    merged: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, dict) and all(_is_count(v) for v in value.values()):
                counts = merged.setdefault(key, {})
                for source, count in value.items():
                    counts[source] = counts.get(source, 0) + count
            elif key not in merged:  # a description (the dataset: path, digest, size) is kept, not added up
                merged[key] = value
            elif merged[key] != value:
                seen = merged[key] if isinstance(merged[key], list) else [merged[key]]
                merged[key] = seen if value in seen else [*seen, value]
    return merged


def _is_count(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def build_run(measured: Measurement) -> NewRun:
    """The one place a run record is built."""
    failure = measured.effective_failure
    metadata = replace(measured.metadata, **summary(measured.repetitions))
    samples = [s for r in measured.repetitions for s in r.samples()]
    requests = [row for r in measured.repetitions for row in r.requests] if measured.keep_requests else []
    run = NewRun(
        experiment=measured.experiment,
        outcome=Outcome.OK if failure is None else failure.outcome,
        samples=samples,
        started_at=measured.started_at,
        finished_at=max(measured.finished_at, measured.started_at),
        failure_reason=(failure.reason or None) if failure else None,
        failure_log_line=failure.log_line if failure else None,
        failure_cause=failure.cause if failure else None,
        command=redact_argv(list(measured.command)) if measured.command else None,
        note=measured.note,
        source=measured.source,
        metadata=metadata,
        requests=requests,
    )
    if measured.provenance is not None:
        run = measured.provenance.stamp(run)
    loads = [r.load for r in measured.repetitions if r.load is not None]
    if loads:
        run = replace(run, environment={**run.environment, "load": environment_entry(loads)})
    return run


@overload
def record(ledger: Ledger, measured: Measurement) -> int: ...
@overload
def record(ledger: Ledger, measured: Measurement, *, once: bool) -> int | None: ...
def record(ledger: Ledger, measured: Measurement, *, once: bool = False) -> int | None:
    """Write ``measured`` as one run, in one transaction; its id. With ``once`` (a run
    whose metadata has a ``record_id``), nothing is written when a run of the same event
    is already recorded, and the answer is None. A ledger that cannot be reached is
    retried for ``ledger.retry``'s time, then the run is kept in ``ledger.spool`` and
    RunSpooled raised."""
    from benchdoc.ledger.spool import write

    # An unreachable ledger is retried, then the run is kept in the spool (RunSpooled):
    # a measured run is never lost (see benchdoc.ledger.spool).
    return write(ledger, build_run(measured), once=once)


def record_all(ledger: Ledger, measured: Sequence[Measurement], *, once: bool = False) -> list[int | None]:
    """Write several runs in one transaction (all or none), e.g. the runs of one imported file.
    With ``once`` (imported runs), a run whose import fingerprint is already recorded is
    skipped under the write lock (None in its place)."""
    runs = [build_run(m) for m in measured]
    if once:
        return ledger.record_imported(runs)
    return list(ledger.record_runs(runs))


def prove_writable(ledger: Ledger, expected_requests: int = 0) -> None:
    """Raise LedgerError unless ``ledger`` takes a write now (and, for SQLite, has room
    for a run of ``expected_requests`` requests): every road that measures calls this
    before it sends a request or starts a server (see :mod:`benchdoc.ledger.writable`)."""
    from benchdoc.ledger.writable import prove_writable as probe

    probe(ledger, expected_requests)


def refuse_in_memory(url: str) -> None:
    """A ledger in memory keeps nothing after the command: refused by every road that records."""
    from benchdoc.ledger.writable import refuse_in_memory as refuse

    refuse(url)
