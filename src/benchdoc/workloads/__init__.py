"""The streaming LLM load generator: workloads, their results, and metric definitions.

``run_workload(spec)`` drives one :class:`WorkloadSpec` against a server and returns a
:class:`WorkloadResult`. The network engine (aiohttp) is imported only when a workload
runs, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    "run_metric_names",
    "run_workload",
    "run_workload_async",
]


def run_workload(spec: WorkloadSpec, progress: Progress | None = None) -> WorkloadResult:
    """Run ``spec`` to completion and return what it measured (blocking).

    ``progress(completed, total)`` is called after each measured request ends; ``total``
    is None for a workload bounded by duration. Must not be called from a running event
    loop: use :func:`run_workload_async` there.
    """
    import asyncio

    from benchdoc.workloads.client import run_workload_async as run_async

    return asyncio.run(run_async(spec, progress))


async def run_workload_async(spec: WorkloadSpec, progress: Progress | None = None) -> WorkloadResult:
    """The coroutine behind :func:`run_workload`, for callers with their own event loop."""
    from benchdoc.workloads.client import run_workload_async as run_async

    return await run_async(spec, progress)

