"""What every importer produces: runs read from another tool's file, ready for the ledger.

An importer reads a whole file into :class:`ImportedRun` objects (or refuses it), and
only then does anybody record them, so a bad file records nothing. Each importer module
declares its field mapping as a visible table of :class:`Field` rows.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from benchdoc.importers.reading import Where, number
from benchdoc.ledger.metadata import ImportSource, RunMetadata
from benchdoc.ledger.models import NewRun, Outcome, Sample
from benchdoc.provenance import Provenance
from benchdoc.recording import Failure, Measurement, Repetition, build_run, now

MS_PER_S = 1000.0


@dataclass(frozen=True)
class Field:
    """One row of an importer's mapping table: a source key, benchdoc's name, a scale.

    ``scale`` turns the source's unit into benchdoc's (1000 for seconds to milliseconds).
    """

    source: str
    metric: str
    scale: float = 1.0


@dataclass(frozen=True)
class ImportedRun:
    """One run read from a results file (one JSON line, one benchmark entry, one command).

    ``label`` names the configuration the run measured, as the source describes it
    (request rate and concurrency, batch size, command...): runs with different labels
    measured different things and do not belong to one experiment.
    """

    format: str
    file: str
    entry: str  # where in the file: "line 3", "benchmarks[1]", "results[0]"
    line: int | None
    label: str
    samples: tuple[Sample, ...]
    fingerprint: str  # stable digest of the entry's content, to notice a file imported twice
    outcome: Outcome = Outcome.OK
    failure_reason: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    host: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    # The digest earlier versions recorded (salted with the format's name), so that a run
    # imported by one of them is still seen as imported.
    former_fingerprint: str | None = None

    @property
    def location(self) -> str:
        name = Path(self.file).name
        return f"{name}:{self.line}" if self.line is not None and self.entry.startswith("line") else f"{name} {self.entry}"

    def metrics(self) -> dict[str, list[float]]:
        """Each metric's values in repetition order."""
        values: dict[str, list[float]] = {}
        for sample in sorted(self.samples, key=lambda s: (s.metric, s.repetition)):
            values.setdefault(sample.metric, []).append(sample.value)
        return values

    def period(self) -> tuple[datetime | None, datetime | None]:
        """When the run started and finished, as far as the file tells.

        A file that gives one moment only gives it for both, so that a run never seems to
        finish before it started (the ledger puts "now" in place of a missing time).
        """
        return self.started_at or self.finished_at, self.finished_at or self.started_at

    def to_measurement(self, experiment: str, note: str | None = None) -> Measurement:
        """The run to record under ``experiment``, its provenance kept in metadata["import"]
        (a file that tells no time is dated when it is imported)."""
        provenance = ImportSource(self.format, self.file, self.entry, self.label, self.fingerprint)
        started_at, finished_at = self.period()
        moment = now()
        by_repetition: dict[int, dict[str, float]] = {}
        for sample in self.samples:
            by_repetition.setdefault(sample.repetition, {})[sample.metric] = sample.value
        return Measurement(
            experiment=experiment,
            source=f"import:{self.format}",
            started_at=started_at or moment,
            finished_at=finished_at or moment,
            repetitions=[Repetition(index, metrics) for index, metrics in sorted(by_repetition.items())],
            failure=Failure(self.failure_reason or "", harness=self.outcome == Outcome.ERROR)
            if self.outcome != Outcome.OK else None,
            provenance=Provenance(dict(self.environment), self.host, self.git_commit, self.git_dirty),
            note=note,
            metadata=RunMetadata(imported=provenance, tool=dict(self.metadata)),
        )

    def to_new_run(self, experiment: str, note: str | None = None) -> NewRun:
        """The run record the recorder makes of :meth:`to_measurement`."""
        return build_run(self.to_measurement(experiment, note))


@dataclass(frozen=True)
class Importer:
    """A supported format: its name, what it reads, its parser and a sniffer for detection."""

    name: str
    description: str
    parse: Callable[[Path], list[ImportedRun]]
    looks_like: Callable[[Any], bool]


def fingerprint(fmt: str, *parts: Any) -> str:
    """A digest of an entry's content (key order ignored), short enough to store.

    ``fmt`` salts the digest when given; :func:`fingerprints` leaves it out, so that the
    same content is the same run whatever format it was imported as.
    """
    digest = hashlib.sha256(fmt.encode())
    for part in parts:
        digest.update(b"\0")
        digest.update(json.dumps(part, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:32]


class Fingerprints(TypedDict):
    fingerprint: str
    former_fingerprint: str


def fingerprints(fmt: str, *parts: Any) -> Fingerprints:
    """An entry's fingerprint (its content alone) and the one earlier versions recorded
    (salted with ``fmt``), as ImportedRun keyword arguments."""
    return Fingerprints(fingerprint=fingerprint("content", *parts), former_fingerprint=fingerprint(fmt, *parts))


def scaled(value: float, scale: float) -> float:
    """``value * scale`` without binary noise in the last digits (2.4302 s -> 2430.2 ms)."""
    return value if scale == 1.0 else float(f"{value * scale:.15g}")


def samples_from_table(obj: dict[str, Any], table: Iterable[Field], where: Where) -> list[Sample]:
    """One sample (repetition 0) per table row whose key holds a number. A NaN or infinite
    value (the tool had no data) becomes a NaN sample: ``parse_file`` drops it, or refuses
    the file when the metric is one the project needs (its primary)."""
    samples: list[Sample] = []
    for row in table:
        value = number(obj, row.source, where)
        if value is not None:
            samples.append(Sample(row.metric, scaled(value, row.scale), 0))
        elif isinstance(obj.get(row.source), float):  # NaN or infinite, not null or absent
            samples.append(Sample(row.metric, math.nan, 0))
    return samples


def mapped_keys(*tables: Iterable[Field]) -> frozenset[str]:
    return frozenset(row.source for table in tables for row in table)


def label_from(obj: dict[str, Any], keys: Iterable[str]) -> str:
    """``key=value`` pairs of the keys present (and not null), in the given order."""
    parts = [f"{key}={_plain(obj[key])}" for key in keys if obj.get(key) is not None]
    return " ".join(parts)


def _plain(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
