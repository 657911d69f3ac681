"""The streaming LLM load generator: workloads, their results, and metric definitions.

``run_workload(spec)`` drives one :class:`WorkloadSpec` against a server and returns a
:class:`WorkloadResult`. The network engine (aiohttp) is imported only when a workload
runs, so importing this package stays cheap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from benchdoc.workloads.metrics import describe, run_metric_names
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.result import WorkloadResult
from benchdoc.workloads.spec import Timeouts, WorkloadSpec

if TYPE_CHECKING:
    from benchdoc.workloads.client import Progress

T = TypeVar("T")

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
    from benchdoc.workloads.client import run_workload_async as run_async
    from benchdoc.workloads.workers import default_workers, run_with_workers

    resolved = spec.resolved()
    workers = resolved.workers if resolved.workers is not None else default_workers(resolved)
    if workers > 1:
        return run_with_workers(resolved, workers, progress)
    return run_on(resolved.event_loop, run_async(resolved, progress))


def run_on(event_loop: str, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion on a new event loop of the kind named."""
    factory = event_loop_factory(event_loop)
    if factory is None:
        return asyncio.run(coroutine)
    loop = factory()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


def event_loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory of the event loop ``name`` (None: asyncio's default)."""
    if name != "uvloop":
        return None
    try:
        import uvloop  # optional: pip install 'benchdoc[uvloop]'
    except ImportError:
        from benchdoc.errors import UsageError

        raise UsageError("event_loop uvloop needs the uvloop library: pip install 'benchdoc[uvloop]'") from None
    return uvloop.new_event_loop


async def run_workload_async(spec: WorkloadSpec, progress: Progress | None = None) -> WorkloadResult:
    """The coroutine behind :func:`run_workload`, for callers with their own event loop."""
    from benchdoc.workloads.client import run_workload_async as run_async

    return await run_async(spec, progress)

