"""Scraping the server's ``/metrics`` every second while a measured phase runs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from time import perf_counter

from benchdoc.workloads.server_metrics import SCRAPE_INTERVAL_S, ServerSeries, dialect_of, parse_samples


class Scraper:
    """Scrapes with ``fetch`` from ``start()`` until ``await stop()``, which returns the
    series (None when the server exported none of the metrics, or the phase ended before
    the first scrape, half an interval in)."""

    def __init__(self, fetch: Callable[[], Awaitable[str | None]], phase_start: float, prefer: str,
                 interval_s: float = SCRAPE_INTERVAL_S) -> None:
        self._fetch = fetch
        self._start = phase_start
        self._prefer = prefer
        self._interval = interval_s
        self._series: ServerSeries | None = None
        self._task: asyncio.Task[None] | None = None
        self._misses = 0

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> ServerSeries | None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        return self._series

    async def _run(self) -> None:
        # Half an interval in, then every interval: neither the idle instant before the first
        # request nor the one after the last is sampled (they would pull every mean down).
        tick = self._start + self._interval / 2
        while self._misses < 3 or self._series is not None:  # a server without metrics is left alone
            await asyncio.sleep(max(0.0, tick - perf_counter()))
            await self._scrape()
            tick += self._interval

    async def _scrape(self) -> None:
        at = perf_counter() - self._start
        try:
            text = await self._fetch()
        except Exception:  # noqa: BLE001 - the server's figures are a side view: never the run's failure
            text = None
        samples = parse_samples(text) if text else {}
        if not samples:
            self._misses += 1
            return
        if self._series is None:
            dialect = dialect_of(samples, self._prefer)
            if dialect is None:
                self._misses += 1
                return
            self._series = ServerSeries(dialect, self._interval)
        self._series.add(at, samples)
