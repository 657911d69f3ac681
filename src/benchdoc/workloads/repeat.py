"""Repetitions of one workload: the same load, each pass with its own prompts.

`run` and `bench --repetitions N` repeat a workload the same way: repetition ``i`` (from
0) draws its prompts, lengths and arrivals from ``seed + i``, and the warm-up requests are
sent once, before the first measured pass against a server (see :func:`repetition_spec`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from benchdoc.ledger.metadata import ClientLoad, RepetitionRecord
from benchdoc.recording import Repetition

if TYPE_CHECKING:
    from benchdoc.workloads.result import WorkloadResult
    from benchdoc.workloads.spec import WorkloadSpec

Progress = Callable[[int, int | None], None]


def repetition_spec(spec: WorkloadSpec, index: int, *, warm_up: bool) -> WorkloadSpec:
    """Repetition ``index``'s workload: seed ``spec.seed + index``; warm-up only when ``warm_up``."""
    return replace(spec, seed=spec.seed + index, warmup_requests=spec.warmup_requests if warm_up else 0)


def repetition_record(index: int, seed: int | None, result: WorkloadResult) -> RepetitionRecord:
    """The bookkeeping a run keeps of one load-generator repetition."""
    return RepetitionRecord(
        repetition=index,
        seed=seed,
        requests=len(result.records),
        failed_requests=len(result.failures),
        cut_short_requests=result.cut_short,
        failure_reasons=result.failure_reasons(),
        warmup_requests=len(result.warmup_records),
        duration_s=round(result.duration_s, 6),
        aborted=result.aborted,
        client=ClientLoad.from_json(result.client.to_dict()) if result.client is not None else None,
        provenance=result.provenance,
    )


def measured_repetition(index: int, seed: int | None, result: WorkloadResult, *, usable: bool = True, start: int = 0) -> Repetition:
    """One load-generator pass as the recorder takes it: its numbers (none when not
    ``usable``), its bookkeeping, its requests and the machine's load over it."""
    return Repetition(
        index=index,
        metrics=dict(result.metrics) if usable else {},
        record=repetition_record(index, seed, result),
        requests=tuple(result.request_rows(index)),
        load=result.load,
        start=start,
        simulator=result.measured_simulator,
        server_metrics=result.server_metrics.to_dict() if result.server_metrics is not None else None,
    )


def failure_of(result: WorkloadResult) -> str | None:
    """Why a workload measured nothing usable (aborted, or every request failed), or None."""
    if result.aborted:
        return result.aborted
    if result.succeeded == 0:
        reasons = result.failure_reasons()
        top = next(iter(reasons), "no request was sent")
        return f"all {len(result.records)} requests failed; most often: {top}"
    return None


@dataclass
class Repetitions:
    """The passes of one workload so far; a failed pass ends them (as in `run`)."""

    planned: int
    seed: int
    results: list[WorkloadResult] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C ended them: the pass under way was dropped

    @property
    def failure(self) -> str | None:
        """Why the repetitions stopped: the failed pass and its reason; None when all succeeded."""
        if not self.results:
            return "no repetition ran"
        why = failure_of(self.results[-1])
        return f"repetition {len(self.results)} of {self.planned}: {why}" if why else None

    @property
    def completed(self) -> int:
        """The passes that measured something usable."""
        return len(self.results) - (1 if self.failure else 0)

    def measured(self) -> list[Repetition]:
        """Every pass as the recorder takes it; the numbers of those that measured something usable."""
        return [measured_repetition(i, self.seed + i, r, usable=i < self.completed) for i, r in enumerate(self.results)]


def run_repetitions(
    spec: WorkloadSpec,
    count: int,
    *,
    progress: Callable[[int], Progress | None] | None = None,
    on_repetition: Callable[[int, WorkloadResult], None] | None = None,
) -> Repetitions:
    """Run ``spec`` ``count`` times, each pass seeded ``spec.seed + i``, warm-up before the
    first only; stop after a pass that measured nothing usable, or at Ctrl-C (then
    ``interrupted``, the finished passes kept). ``progress(i)`` gives the
    request-progress callback of pass ``i``; ``on_repetition(i, result)`` hears each pass end."""
    from benchdoc.workloads import run_workload

    done = Repetitions(planned=count, seed=spec.seed)
    try:
        for index in range(count):
            result = run_workload(repetition_spec(spec, index, warm_up=index == 0), progress=progress(index) if progress else None)
            done.results.append(result)
            if on_repetition is not None:
                on_repetition(index, result)
            if done.failure:
                break
    except KeyboardInterrupt:
        done.interrupted = True  # the passes that finished are kept; the one under way is not
    return done
