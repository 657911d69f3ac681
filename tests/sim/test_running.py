"""Starting and stopping a simulator in a background thread."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from benchdoc.sim import SimConfig, start_in_thread


def _status(url: str) -> int:
    async def run() -> int:
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "/health") as response:
                return response.status

    return asyncio.run(run())


def test_context_manager_serves_then_stops_listening() -> None:
    config = SimConfig(ttft_ms=1.0)
    with start_in_thread(config) as sim:
        assert sim.url == f"http://127.0.0.1:{sim.port}" and sim.port > 0
        assert sim.config is config
        assert _status(sim.url) == 200
    with pytest.raises(aiohttp.ClientConnectionError):
        _status(sim.url)
    sim.stop()  # stopping twice is harmless


def test_a_taken_port_raises_oserror() -> None:
    with start_in_thread(SimConfig()) as sim:
        with pytest.raises(OSError):
            start_in_thread(SimConfig(), port=sim.port)
