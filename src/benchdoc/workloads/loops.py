"""Running a coroutine on the event loop a workload asks for (uvloop's, or asyncio's).

uvloop is the default wherever it is installed (a dependency of benchdoc on Linux and
macOS): it reads a socket with one system call where asyncio's selector loop spends four
(``recv`` into a fresh 256 KiB buffer, then the allocator's ``mmap``/``mremap``/``munmap``),
and it dispatches each ready socket in C. Elsewhere the client runs on asyncio.
Below the client and its worker processes: both run their share through :func:`run_on`.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from benchdoc.errors import UsageError

T = TypeVar("T")


def default_event_loop() -> str:
    """The event loop a workload runs on unless it names one: uvloop where it is installed."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def loop_description(loop: asyncio.AbstractEventLoop) -> str:
    """The event loop a run used, for its provenance: ``uvloop 0.21.0`` or ``asyncio``."""
    module = type(loop).__module__.split(".")[0]
    if module == "uvloop":
        import uvloop

        return f"uvloop {uvloop.__version__}"
    return "asyncio"


def run_on(event_loop: str | None, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion on a new event loop of the kind named."""
    factory = event_loop_factory(event_loop or default_event_loop())
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
        raise UsageError("event_loop uvloop needs the uvloop library (not installed; pip install uvloop, "
                         "or --event-loop asyncio)") from None
    return uvloop.new_event_loop
