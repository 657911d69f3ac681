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


def test_start_in_process_yields_a_url_and_stops_the_child() -> None:
    import urllib.request

    from benchdoc.sim import start_in_process

    with start_in_process("--ttft-ms", "1", "--step-ms", "1") as url:
        with urllib.request.urlopen(url + "/health", timeout=10) as response:
            assert response.status == 200
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/health", timeout=2)


def test_start_in_process_reports_a_failed_start_with_its_log() -> None:
    from benchdoc.sim import SimStartFailure, start_in_process

    with pytest.raises(SimStartFailure) as info:
        with start_in_process("--fail-start", "torch.OutOfMemoryError: CUDA out of memory."):
            pass
    assert "CUDA out of memory" in info.value.log
