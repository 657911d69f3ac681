"""Running a coroutine on the event loop a workload asks for (asyncio's, or uvloop's).

Below the client and its worker processes: both run their share through :func:`run_on`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from benchdoc.errors import UsageError

T = TypeVar("T")


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
        raise UsageError("event_loop uvloop needs the uvloop library: pip install 'benchdoc[uvloop]'") from None
    return uvloop.new_event_loop
