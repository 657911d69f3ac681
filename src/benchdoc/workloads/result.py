"""The outcome of one workload: per-request records, run-level metrics, provenance."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from benchdoc.ledger.models import RequestRow, Sample
from benchdoc.machineload import LoadFigures
from benchdoc.reasons import group_reasons
from benchdoc.workloads.aggregate import run_metrics
from benchdoc.workloads.records import CHUNK_TOKENS_SPREAD, RequestRecord
from benchdoc.workloads.saturation import ClientLoad
from benchdoc.workloads.server_metrics import ServerSeries

# What benchdoc's simulator reports as the owner of its models; its numbers are simulated.
SIMULATOR_OWNER = "benchdoc-simulator"


@dataclass
class WorkloadResult:
    """What one workload measured.

    ``records`` are the measured requests only (warm-up requests are in
    ``warmup_records``). ``duration_s`` is the measured phase's wall duration, from its
    start to the end of its last response. ``aborted`` says why the run stopped early,
    if it did. ``settings`` and ``provenance`` are what the run records with its samples.
    """

    settings: dict[str, Any]
    provenance: dict[str, Any]
    records: list[RequestRecord]
    duration_s: float
    server: dict[str, Any] = field(default_factory=dict)
    warmup_records: list[RequestRecord] = field(default_factory=list)
    accept_length: float | None = None
    aborted: str | None = None
    percentiles: tuple[float, ...] = ()
    load: LoadFigures | None = None  # the machine's load over the measured phase
    slo: tuple[tuple[str, float], ...] = ()
    # Whether the client kept up (None: not measured), and the probe's lateness values
    # (kept to merge the workers' verdicts; not part of the summary).
    client: ClientLoad | None = None
    lag_values_ms: list[float] = field(default_factory=list, repr=False)
    # The server's own figures over the measured phase (its /metrics every second), if it exports them.
    server_metrics: ServerSeries | None = None

    @property
    def metrics(self) -> dict[str, float]:
        """Every run-level metric by its catalogue name (see ``benchdoc.workloads.metrics``)."""
        return run_metrics(self.records, self.duration_s, self.percentiles, self.accept_length, self.slo)

    def samples(self, repetition: int = 0) -> list[Sample]:
        """One ledger sample per run-level metric, for repetition ``repetition``."""
        return [Sample(metric=name, value=float(value), repetition=repetition) for name, value in self.metrics.items()]

    def request_rows(self, repetition: int = 0) -> list[RequestRow]:
        """The measured requests as the ledger keeps them, for repetition ``repetition``
        (warm-up requests are not kept: they are in no figure)."""
        return [
            RequestRow(repetition, r.index, r.ok, r.error, r.ttft_ms, r.e2e_ms, r.output_tokens, r.to_dict())
            for r in self.records
        ]

    @property
    def measured_simulator(self) -> bool:
        """True when the server said it is benchdoc's simulator (its models' ``owned_by``)."""
        return SIMULATOR_OWNER in self.server.get("owned_by", [])

    @property
    def failures(self) -> list[RequestRecord]:
        """The measured requests that failed, each with its ``error``."""
        return [r for r in self.records if not r.ok]

    @property
    def succeeded(self) -> int:
        return sum(1 for r in self.records if r.ok)

    @property
    def cut_short(self) -> int:
        """Failed requests whose stream ended before they were complete."""
        return sum(1 for r in self.records if r.cut_short)

    @property
    def over_length(self) -> int:
        """Complete requests whose output ran past the max_tokens they were sent with."""
        return sum(1 for r in self.records if r.ok and r.over_length)

    @property
    def itl_assumed(self) -> int:
        """Successful requests whose per-chunk tokens (so their ITL values) were assumed:
        spread over the chunks, with neither server counts nor a tokenizer."""
        return sum(1 for r in self.records if r.ok and r.chunk_token_source == CHUNK_TOKENS_SPREAD)

    def failure_reasons(self) -> dict[str, int]:
        """How many measured requests failed for each cause, most frequent first (reasons that
        differ only in their numbers are one cause: see benchdoc.reasons)."""
        counts = Counter(r.error or "unknown" for r in self.records if not r.ok)
        return group_reasons(dict(counts.most_common()))

    @property
    def failed(self) -> bool:
        """The run says nothing useful: it was aborted, or no request succeeded."""
        return self.aborted is not None or self.succeeded == 0

    def to_dict(self, include_requests: bool = False) -> dict[str, Any]:
        """JSON-ready summary; per-request records only when asked (they can be large)."""
        data: dict[str, Any] = {
            "server": dict(self.server),
            "settings": self.settings,
            "provenance": self.provenance,
            "duration_s": self.duration_s,
            "requests": len(self.records),
            "succeeded": self.succeeded,
            "failed": len(self.records) - self.succeeded,
            "cut_short": self.cut_short,
            "over_length": self.over_length,
            "itl_assumed": self.itl_assumed,
            "failure_reasons": self.failure_reasons(),
            "warmup_requests": len(self.warmup_records),
            "warmup_failed": sum(1 for r in self.warmup_records if not r.ok),
            "aborted": self.aborted,
            "metrics": self.metrics,
            "load": self.load.to_dict() if self.load is not None else None,
            "client": self.client.to_dict() if self.client is not None else None,
            "server_metrics": self.server_metrics.to_dict() if self.server_metrics is not None else None,
        }
        if include_requests:
            data["request_records"] = [r.to_dict() for r in self.records]
        return data

