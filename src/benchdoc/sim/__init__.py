"""An inference-server simulator: a real HTTP server with a known latency model.

It speaks the OpenAI completions and chat APIs (streaming SSE with usage), SGLang's
native ``/generate`` (with speculative-decoding ``meta_info``), ``/health``,
``/v1/models``, ``/server_info`` and a Prometheus ``/metrics`` with vLLM's counter
names. Every duration comes from `SimConfig` through a seeded model, so a measurement
can be checked against `expected`. It is a simulator: nothing it reports is a
measurement of hardware.

This package imports nothing else of benchdoc: it is a server under test.
"""

from __future__ import annotations

from benchdoc.sim.config import SimConfig
from benchdoc.sim.model import Expected, expected
from benchdoc.sim.requests import count_words
from benchdoc.sim.running import RunningSim, SimStartFailure, serve, start_in_process, start_in_thread

__all__ = [
    "Expected",
    "RunningSim",
    "SimConfig",
    "SimStartFailure",
    "count_words",
    "expected",
    "serve",
    "start_in_process",
    "start_in_thread",
]
