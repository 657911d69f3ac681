"""The streaming LLM load generator: workloads, their results, and metric definitions.

``run_workload(spec)`` drives one :class:`WorkloadSpec` against a server and returns a
:class:`WorkloadResult`. The network engine (aiohttp) is imported only when a workload
runs, so importing this package stays cheap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from benchdoc.workloads.loops import event_loop_factory, run_on
from benchdoc.workloads.metrics import describe, run_metric_names
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.result import WorkloadResult
from benchdoc.workloads.spec import Timeouts, WorkloadSpec

if TYPE_CHECKING:
    from benchdoc.workloads.client import Progress

__all__ = [
    "RequestRecord",
    "Timeouts",
    "WorkloadResult",
    "WorkloadSpec",
    "describe",
    "event_loop_factory",
    "run_metric_names",
    "run_on",
    "run_workload",
    "run_workload_async",
]


def run_workload(spec: WorkloadSpec, progress: Progress | None = None) -> WorkloadResult:
    """Run ``spec`` to completion and return what it measured (blocking).

    ``progress(completed, total)`` is called after each measured request ends; ``total``
    is None for a workload bounded by duration. Must not be called from a running event
    loop: use :func:`run_workload_async` there.
    """
    from benchdoc.workloads.client import run_workload_async as run_async
    from benchdoc.workloads.workers import default_workers, run_with_workers

    resolved = spec.resolved()
    workers = _workers(resolved, default_workers)
    if workers > 1:
        return run_with_workers(resolved, workers, progress)
    return run_on(resolved.event_loop, run_async(resolved, progress))


async def run_workload_async(spec: WorkloadSpec, progress: Progress | None = None) -> WorkloadResult:
    """The coroutine behind :func:`run_workload`, for callers with their own event loop.
    With several workers the processes are waited for in a thread: the caller's loop stays free."""
    from benchdoc.workloads.client import run_workload_async as run_async
    from benchdoc.workloads.workers import default_workers, run_with_workers

    resolved = spec.resolved()
    workers = _workers(resolved, default_workers)
    if workers > 1:
        return await asyncio.get_running_loop().run_in_executor(None, run_with_workers, resolved, workers, progress)
    return await run_async(resolved, progress)


def _workers(spec: WorkloadSpec, default: Callable[[WorkloadSpec], int]) -> int:
    """The client processes ``spec`` runs in: as asked, or from the load; one for a
    multi-turn workload (a conversation's turns follow one another in one process)."""
    if spec.multi_turn:
        return 1
    return spec.workers if spec.workers is not None else default(spec)
