"""A small real HTTP client for talking to the simulator in tests."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest

from benchdoc.sim import RunningSim, SimConfig, start_in_thread


@dataclass
class Streamed:
    """One streamed response: each ``data:`` payload with its arrival time (perf_counter)."""

    status: int
    sent: float
    content_type: str
    events: list[tuple[float, Any]] = field(default_factory=list)  # JSON object, or "[DONE]"
    body: Any = None  # the parsed body of a non-2xx answer

    @property
    def payloads(self) -> list[dict[str, Any]]:
        return [payload for _, payload in self.events if isinstance(payload, dict)]


async def _stream(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> Streamed:
    sent = time.perf_counter()
    async with session.post(url, json=body) as response:
        result = Streamed(status=response.status, sent=sent, content_type=response.content_type)
        if response.status != 200:
            result.body = await response.json()
            return result
        async for raw in response.content:
            line = raw.decode().strip()
            if not line:
                continue
            assert line.startswith("data: "), f"not an SSE data line: {line!r}"
            data = line[len("data: "):]
            result.events.append((time.perf_counter(), data if data == "[DONE]" else json.loads(data)))
    return result


class SimClient:
    """Synchronous helpers over a real aiohttp client (each call runs its own event loop)."""

    def stream(self, url: str, body: dict[str, Any]) -> Streamed:
        return self.stream_many(url, [body])[0]

    def stream_many(self, url: str, bodies: list[dict[str, Any]]) -> list[Streamed]:
        async def run() -> list[Streamed]:
            async with aiohttp.ClientSession() as session:
                return list(await asyncio.gather(*(_stream(session, url, body) for body in bodies)))

        return asyncio.run(run())

    def post(self, url: str, body: Any, raw: bytes | None = None) -> tuple[int, Any]:
        async def run() -> tuple[int, Any]:
            async with aiohttp.ClientSession() as session:
                kwargs: dict[str, Any] = {"data": raw} if raw is not None else {"json": body}
                async with session.post(url, **kwargs) as response:
                    return response.status, await response.json()

        return asyncio.run(run())

    def get(self, url: str) -> tuple[int, str]:
        async def run() -> tuple[int, str]:
            async with aiohttp.ClientSession() as session:
                async with session.get(url) as response:
                    return response.status, await response.text()

        return asyncio.run(run())

    def metrics(self, base: str) -> dict[str, float]:
        """Prometheus samples keyed by ``name{labels}``."""
        status, text = self.get(base + "/metrics")
        assert status == 200
        samples: dict[str, float] = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                key, value = line.rsplit(" ", 1)
                samples[key] = float(value)
        return samples


@pytest.fixture
def client() -> SimClient:
    return SimClient()


@pytest.fixture
def sim_factory() -> Iterator[Any]:
    """Start simulators in-process; every one is stopped at the end of the test."""
    started: list[RunningSim] = []

    def start(**settings: Any) -> RunningSim:
        running = start_in_thread(SimConfig(**settings))
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


def least_of(attempts: int, measure: Any) -> float:
    """The smallest of a few repeated timings: a busy machine only ever adds delay."""
    return min(measure() for _ in range(attempts))
