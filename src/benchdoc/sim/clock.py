"""Waking at absolute deadlines with sub-millisecond precision where it matters.

An asyncio sleep on Linux wakes up to a millisecond late (the selector's timeout is
rounded up to whole milliseconds). For a wait that must be exact (a time to first
token) or short (sub-millisecond decode steps, which would otherwise bunch up into
one burst per millisecond), the coarse part of the wait is an ordinary asyncio sleep
and the last stretch is timed by one helper thread, whose timed waits are precise to
tens of microseconds, waking the event loop when the deadline is due. Longer waits that
need no precision stay plain asyncio sleeps: each precise wake costs the loop an extra
hop, and on absolute deadlines a late wake-up delays one chunk, never the ones after it.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time

# Waits longer than this start with a plain asyncio sleep that ends this much early.
_COARSE_MARGIN_S = 0.002
# The helper thread aims early by its recent mean wake-up delay (thread wake plus the
# hop into the event loop), learnt as it runs and bounded so it can never run far ahead.
_MAX_LEAD_S = 0.0003
_LEAD_SMOOTHING = 0.1
# Deadlines this close together are woken together: one hop into the loop for many
# streams instead of one each.
_BATCH_S = 0.00005


class DeadlineClock:
    """Deadline waits for one event loop; `close()` it when the loop's server stops."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._condition = threading.Condition()
        self._closed = False
        self._lead = 0.0  # written by the loop thread, read by the helper thread
        self._thread = threading.Thread(target=self._run, name="benchdoc-sim-clock", daemon=True)
        self._thread.start()

    def now(self) -> float:
        """The clock deadlines are measured on (the loop's, i.e. time.monotonic)."""
        return self._loop.time()

    async def sleep_until(self, deadline: float, precise: bool = False) -> None:
        """Return at `deadline` (on `now()`'s clock); yield to other tasks even when late.

        Waits shorter than a couple of milliseconds, and any wait marked `precise`, end
        within tens of microseconds of the deadline; other waits may end up to about a
        millisecond late.
        """
        remaining = deadline - self._loop.time()
        if remaining <= 0.0:
            await asyncio.sleep(0)
            return
        if remaining > _COARSE_MARGIN_S and not precise:
            await asyncio.sleep(remaining)
            return
        if remaining > _COARSE_MARGIN_S:
            await asyncio.sleep(remaining - _COARSE_MARGIN_S)
            if deadline - self._loop.time() <= 0.0:
                return
        future: asyncio.Future[None] = self._loop.create_future()
        with self._condition:
            heapq.heappush(self._heap, (deadline, next(self._order), future))
            if self._heap[0][2] is future:
                self._condition.notify()
        await future
        late = self._loop.time() - deadline
        self._lead = min(_MAX_LEAD_S, max(0.0, self._lead + _LEAD_SMOOTHING * late))

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._condition:
                due: list[asyncio.Future[None]] = []
                while not due:
                    if self._closed:
                        return
                    if not self._heap:
                        self._condition.wait()
                        continue
                    wait = self._heap[0][0] - self._lead - time.monotonic()
                    if wait > 0.0:
                        self._condition.wait(wait)
                        continue
                    now = time.monotonic() + self._lead + _BATCH_S
                    while self._heap and self._heap[0][0] <= now:
                        due.append(heapq.heappop(self._heap)[2])
            try:
                self._loop.call_soon_threadsafe(_wake, due)
            except RuntimeError:  # the loop closed under us; nobody is waiting any more
                return


def _wake(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():
            future.set_result(None)
