"""Spreading one workload over several client processes, each with its own event loop.

One Python event loop takes some tens of thousands of chunks per CPU-second; a server
streaming to thousands of clients needs more. ``run_with_workers`` starts N processes;
each drives its share of the workload (every N-th arrival of an open loop, a share of a
closed loop's streams) from one common start instant. Stamps come from
``time.perf_counter``, the system-wide monotonic clock on Linux and macOS, so the workers'
records merge onto one time line, and the result is the same shape as a single
process's, numbered and prompted exactly as one process would have done it.
"""

from __future__ import annotations

import math
import os
import queue
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from benchdoc.errors import RunError, UsageError

if TYPE_CHECKING:
    from benchdoc.workloads.client import Progress
    from benchdoc.workloads.result import WorkloadResult
    from benchdoc.workloads.spec import WorkloadSpec

# Workers start (import aiohttp, connect) before the common start instant this far ahead.
START_MARGIN_S = 3.0
# Streams one process takes before another is worth starting (see benchmarks/client_capacity.py).
STREAMS_PER_WORKER = 256


@dataclass(frozen=True)
class WorkerPart:
    """Which share of the workload one worker drives, from when."""

    index: int
    count: int
    start_at: float  # a time.perf_counter() value, common to all workers

    def owns(self, request_index: int) -> bool:
        return request_index % self.count == self.index

    def share(self, total: int) -> int:
        """This worker's part of ``total`` (streams, requests), the remainder to the first ones."""
        base, extra = divmod(total, self.count)
        return base + (1 if self.index < extra else 0)


def default_workers(spec: WorkloadSpec) -> int:
    """Workers for ``spec`` when none is asked for: one per STREAMS_PER_WORKER streams in
    flight, at most the cores not already busy (leaving one for everything else)."""
    streams = spec.concurrency or spec.max_concurrency or _open_loop_streams(spec)
    wanted = max(1, math.ceil(streams / STREAMS_PER_WORKER))
    return max(1, min(wanted, free_cores() - 1))


def free_cores() -> int:
    """Cores this process may run on, less the current one-minute load (at least 1)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(1, int(cores - busy + 0.5))


def crowded(workers: int, cores_free: int | None = None) -> str | None:
    """Why ``workers`` client processes cannot help on this machine, or None when they can:
    with as many workers as cores free (or more), they compete with one another, and with
    a local server, for CPU, and their stamps wait for a core."""
    if workers <= 1:
        return None
    free = free_cores() if cores_free is None else cores_free
    if workers < free:
        return None
    return (f"{workers} client worker processes with {free} core{'s' if free != 1 else ''} free: they will wait for "
            f"CPU and their stamps with them; use at most {max(1, free - 1)} here, or a machine with more cores")


def _open_loop_streams(spec: WorkloadSpec) -> int:
    # Without a cap, an open loop's streams are about rate x request time; a few hundred
    # requests/s is where one loop starts to strain, so count each request/s as one stream.
    return int(spec.rate or 1)


def run_with_workers(spec: WorkloadSpec, workers: int, progress: Progress | None = None) -> WorkloadResult:
    """Run ``spec`` over ``workers`` processes and merge what they measured."""
    import multiprocessing

    spec = spec.resolved()
    if workers < 1:
        raise UsageError(f"workers must be >= 1 (got {workers})")
    if not spec.open_loop and (spec.concurrency or 1) < workers:
        raise UsageError(f"{workers} workers need at least as many streams (concurrency {spec.concurrency})")
    why_not = crowded(workers)  # before the workers take the cores
    context = multiprocessing.get_context("spawn")  # no fork of a process that may run threads
    results: Any = context.Queue()
    start_at = time.perf_counter() + START_MARGIN_S + 0.1 * workers
    processes = [
        context.Process(target=_worker_main, args=(spec, WorkerPart(i, workers, start_at), results))
        for i in range(workers)
    ]
    for process in processes:
        process.start()
    try:
        parts = _collect(results, processes, spec, progress)
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
    return merge(parts, start_at, why_not)


def _collect(results: Any, processes: list[Any], spec: WorkloadSpec, progress: Progress | None) -> list[WorkloadResult]:
    parts: list[WorkloadResult] = []
    completed = 0
    errors: list[str] = []
    while len(parts) + len(errors) < len(processes):
        try:
            kind, payload = results.get(timeout=1.0)
        except queue.Empty:
            if not any(p.is_alive() for p in processes):
                errors.append("a client worker process ended without a result")
                break
            continue
        if kind == "done":
            completed += 1
            if progress is not None:
                progress(completed, spec.requests)
        elif kind == "result":
            parts.append(payload)
        else:
            errors.append(str(payload))
    if errors:
        raise RunError(errors[0])
    return parts


def _worker_main(spec: WorkloadSpec, part: WorkerPart, results: Any) -> None:
    """One worker process: drive its share on its own event loop; send back the result."""
    from benchdoc.errors import BenchdocError
    from benchdoc.workloads.client import run_workload_async
    from benchdoc.workloads.loops import run_on

    def done(_completed: int, _total: int | None) -> None:
        results.put(("done", None))

    try:
        result = run_on(spec.event_loop, run_workload_async(spec, done, part=part))
    except BenchdocError as err:
        results.put(("error", err.message))
    except Exception as err:  # anything else still ends this worker with a reason, not a hang
        results.put(("error", f"client worker {part.index} failed: {type(err).__name__}: {err}"))
    else:
        results.put(("result", result))


def merge(parts: list[WorkloadResult], start_at: float, crowded_note: str | None = None) -> WorkloadResult:
    """One result from the workers' results (they share ``start_at`` as their phase start);
    ``crowded_note``, why the workers could not help here, is kept in the client's notes."""
    from benchdoc.workloads.aggregate import accept_length_from_meta_info
    from benchdoc.workloads.saturation import assess
    from benchdoc.workloads.settle import ttft_errors, ttfts

    if not parts:
        raise RunError("no client worker returned a result")
    first = parts[0]
    records = sorted((r for p in parts for r in p.records), key=lambda r: r.index)
    warmup = sorted((r for p in parts for r in p.warmup_records), key=lambda r: r.index)
    provenance = dict(first.provenance)
    for key in ("output_tokens", "input_tokens", "chunk_tokens"):
        merged: dict[str, int] = {}
        for p in parts:
            for source, n in p.provenance.get(key, {}).items():
                merged[source] = merged.get(source, 0) + n
        provenance[key] = merged
    accept = accept_length_from_meta_info(records) if first.accept_length is not None else None
    loads = [p.client for p in parts if p.client is not None]
    client = None
    if loads:
        gaps = [g for r in records if r.ok for g in r.chunk_gaps_ms()]
        ok = [r for r in records if r.ok]
        delays = [r.send_delay_ms for r in ok if r.send_delay_ms is not None]
        busy = [c.loop_busy_share for c in loads if c.loop_busy_share is not None]
        client = assess([c.cpu_share for c in loads], [v for p in parts for v in p.lag_values_ms],
                        gaps, delays, workers=len(parts), busy_shares=busy,
                        ttft_errors_ms=ttft_errors(ok), ttfts_ms=ttfts(ok))
        if crowded_note:
            client = replace(client, notes=(*client.notes, crowded_note))
    settings = dict(first.settings) | {"workers": len(parts)}
    return replace(
        first,
        settings=settings,
        provenance=provenance,
        records=records,
        warmup_records=warmup,
        duration_s=max(p.duration_s for p in parts),
        accept_length=accept if accept is not None else first.accept_length,
        aborted=next((p.aborted for p in parts if p.aborted), None),
        client=client,
        lag_values_ms=[],
        server_metrics=next((p.server_metrics for p in parts if p.server_metrics is not None), None),
    )
