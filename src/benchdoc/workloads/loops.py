"""Running a coroutine on the event loop a workload asks for (uvloop's, or asyncio's).

uvloop is the default wherever it is installed (a dependency of benchdoc on Linux and
macOS): it reads a socket with one system call where asyncio's selector loop spends four
(``recv`` into a fresh 256 KiB buffer, then the allocator's ``mmap``/``mremap``/``munmap``),
and it dispatches each ready socket in C. Elsewhere the client runs on asyncio.
Below the client and its worker processes: both run their share through :func:`run_on`.

Ctrl-C while a workload runs cancels it and then raises KeyboardInterrupt, as
``asyncio.run`` does on Python 3.11: raised at once from the signal handler, the
interrupt lands in whatever code runs, and uvloop takes one that lands in a protocol
callback (the reader's ``get_buffer``) for a transport error: it logged "Fatal error on
transport", closed that connection and measured on.
"""

from __future__ import annotations

import asyncio
import importlib.util
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
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
    """Run ``coroutine`` to completion on a new event loop of the kind named; Ctrl-C
    cancels it, then raises KeyboardInterrupt (a second Ctrl-C raises at once)."""
    factory = event_loop_factory(event_loop or default_event_loop())
    loop = factory() if factory is not None else asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        task = loop.create_task(coroutine)
        with _ctrl_c_cancels(loop, task) as interrupted:
            try:
                result = loop.run_until_complete(task)
            except asyncio.CancelledError:
                if interrupted:
                    raise KeyboardInterrupt from None
                raise
            if interrupted:  # the workload ended as it was cancelled: it was still cut short
                raise KeyboardInterrupt
            return result
    finally:
        try:
            _cancel_the_rest(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


@contextmanager
def _ctrl_c_cancels(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> Iterator[list[int]]:
    """While the loop runs: the first SIGINT cancels ``task`` (and is counted in the list
    yielded); a second raises KeyboardInterrupt. Only in the main thread, and only where
    SIGINT still has Python's own handler (no one else has claimed it)."""
    interrupted: list[int] = []
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield interrupted
        return

    def on_sigint(signum: int, frame: Any) -> None:
        interrupted.append(signum)
        if len(interrupted) > 1 or task.done():
            raise KeyboardInterrupt
        task.cancel()
        loop.call_soon_threadsafe(lambda: None)  # wake a loop waiting in its poll

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _cancel_the_rest(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks the workload left behind and let them finish (as asyncio.run does)."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


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
