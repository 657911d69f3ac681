"""A run measured elsewhere, recorded: the values (or the failure) someone brings to the ledger.

`benchdoc record` and the MCP server's `record` tool both come here, so a value is checked
the same way and a run carries the same provenance whichever door it came through; only
``source`` tells them apart ("record", "mcp").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from benchdoc.errors import UsageError, ValidationError
from benchdoc.ledger.store import Ledger
from benchdoc.naming import did_you_mean
from benchdoc.provenance import provenance
from benchdoc.recording import Failure, Measurement, Repetition, now, record, refuse_in_memory

if TYPE_CHECKING:
    from benchdoc.config import Config


@dataclass(frozen=True)
class RecordedRun:
    """What was recorded: the run's id, its experiment and its values or failure."""

    run_id: int
    experiment: str
    counts: dict[str, int]  # metric -> number of values
    failed: str | None
    starts: int = 1  # server starts the values were measured on

    def describe(self) -> str:
        """The line `benchdoc record` prints."""
        if self.failed is not None:
            return f"recorded run {self.run_id}: {self.experiment} failed ({self.failed})"
        parts = ", ".join(f"{name} n={count}" for name, count in self.counts.items())
        starts = "one server start" if self.starts == 1 else f"{self.starts} server starts"
        return f"recorded run {self.run_id}: {self.experiment} ({parts}; {starts})"


def check_measured(config: Config, metrics: Mapping[str, Sequence[float]], failed: str | None) -> None:
    """Refuse what cannot be recorded, with the line `record` gives; nothing is written."""
    if failed is not None and metrics:
        raise UsageError("a failed run has no values: give --failed or --metric, not both")
    if failed is None and not metrics:
        raise UsageError("nothing to record: give --metric NAME=VALUE or --failed REASON")
    if failed is not None and not failed.strip():
        raise UsageError("--failed needs a reason, e.g. --failed \"CUDA out of memory\"")
    if config.metrics:
        for name in metrics:
            if name not in config.metrics:
                raise UsageError(
                    f"metric '{name}' is not declared in {config.path.name}{did_you_mean(name, config.metrics)}"
                )
    for name, values in metrics.items():
        if not values:
            raise UsageError(f"--metric {name}: no values")
        problem = next(filter(None, (config.metric_or_default(name).value_problem(v) for v in values)), None)
        if problem:
            raise ValidationError(f"--metric {name}: {problem}; nothing was recorded")


def measured_period(started: datetime | None, finished: datetime | None, moment: datetime) -> tuple[datetime, datetime]:
    """When a run brought in was measured: as stated (each in UTC; one given stands for
    both), or ``moment`` when nothing is; a ValidationError when it ends before it
    starts or lies in the future."""
    start = (started or finished or moment).astimezone(timezone.utc)
    end = (finished or started or moment).astimezone(timezone.utc)
    if end < start:
        raise ValidationError(f"the run finishes ({end.isoformat()}) before it starts ({start.isoformat()}); "
                              "nothing was recorded")
    if end > moment + timedelta(minutes=1):
        raise ValidationError(f"the run finishes in the future ({end.isoformat()}); nothing was recorded")
    return start, end


def record_measured(
    config: Config,
    experiment: str,
    metrics: Mapping[str, Sequence[float]],
    *,
    failed: str | None = None,
    note: str | None = None,
    source: str = "record",
    each_start: bool = False,
    started_at: datetime | None = None,
    finished_at: datetime | None = None,
) -> RecordedRun:
    """Check, stamp with this machine's provenance and record one run of ``experiment`` (a name or alias).

    Its values are the repetitions of one server start, or, with ``each_start``, each the
    value of a server start of its own (comparisons are made between starts). The run
    spans ``started_at`` to ``finished_at`` when the caller knows when it was measured
    (a missing end is the start, a missing start the end); else it is dated when recorded."""
    moment = now()
    name = config.experiment(experiment).name
    check_measured(config, metrics, failed)
    started_at, finished_at = measured_period(started_at, finished_at, moment)
    repetitions = max((len(values) for values in metrics.values()), default=0)
    measured = Measurement(
        experiment=name,
        source=source,
        started_at=started_at,
        finished_at=finished_at,
        repetitions=[
            Repetition(
                index, {metric: float(values[index]) for metric, values in metrics.items() if index < len(values)},
                start=index if each_start else 0,
            )
            for index in range(repetitions)
        ],
        failure=Failure(failed) if failed is not None else None,
        provenance=provenance(config.root),
        note=note,
    )
    refuse_in_memory(config.ledger_url)
    with Ledger.open(config.ledger_url, create=True, read_only=False) as ledger:
        run_id = record(ledger, measured)
    starts = max(repetitions, 1) if each_start else 1
    return RecordedRun(run_id, name, {m: len(v) for m, v in metrics.items()}, failed, starts)
