"""How many streamed chunks can benchdoc's load generator take in, and how late does it see them?

Drives the simulator at zero latency (TTFT 0, step 0: it streams as fast as it can) from
the load generator with 1, 64 and 512 concurrent streams. The simulator runs in its own
process, so only the client's work is counted as the client's. For each:

- ``chunks_per_cpu_s``: output chunks taken in per second of the client process's CPU
  time (user + system), over the whole run; the client's capacity, whatever the
  server's speed. ``cpu_us_per_chunk`` is its inverse.
- ``added_latency_us``: the client's added latency per chunk, in microseconds: the
  event-loop time the client spends on each chunk (reading, parsing, stamping,
  recording), i.e. its CPU time per chunk. The client is one event loop, so each of
  those microseconds delays the stamp of any chunk that arrives meanwhile; a server that
  sends a chunk every few milliseconds per stream sees its chunks stamped this late at
  most, as long as streams x chunk rate x this cost stays well under one second per second.
- ``flooded_lag_mean_us`` / ``flooded_lag_p99_us``: how late stamps get when the
  zero-latency server floods the client beyond that (the queue in front of the loop). A
  probe timer fires every 2 ms during the run; its lateness, less its lateness on an
  idle loop (the timer's own granularity), is how long a ready socket waits.
- ``chunks_per_s``: chunks per wall-clock second (bounded by the simulator, one Python
  process, at high concurrency; shown for context).

    python benchmarks/client_capacity.py           # a table
    python benchmarks/client_capacity.py --json    # {"chunks_per_cpu_s_1": ..., ...}
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass

from benchdoc.sim import start_in_process

# streams -> (requests per stream, output tokens per request): ~10^4-10^5 chunks each.
SHAPES: dict[int, tuple[int, int]] = {1: (5, 2000), 64: (2, 400), 512: (1, 150)}
PROBE_INTERVAL_S = 0.002
IDLE_PROBE_S = 0.5


@dataclass
class Figures:
    streams: int
    chunks: int
    failed: int
    wall_s: float
    cpu_s: float
    flooded_lag_mean_us: float
    flooded_lag_p99_us: float

    @property
    def chunks_per_cpu_s(self) -> float:
        return self.chunks / self.cpu_s

    @property
    def added_latency_us(self) -> float:
        return 1e6 * self.cpu_s / self.chunks

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.wall_s


def simulator() -> AbstractContextManager[str]:
    """The simulator at zero latency in its own process; yields its URL."""
    return start_in_process("--ttft-ms", "0", "--step-ms", "0", "--max-running", "4096")


class LagProbe:
    """Measures how late a timer callback runs on this event loop."""

    def __init__(self) -> None:
        self.lateness: list[float] = []
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        when = loop.time() + PROBE_INTERVAL_S

        def fire(due: float) -> None:
            now = loop.time()
            self.lateness.append(now - due)
            self._handle = loop.call_at(now + PROBE_INTERVAL_S, fire, now + PROBE_INTERVAL_S)

        self._handle = loop.call_at(when, fire, when)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()


async def measure(url: str, streams: int) -> Figures:
    import benchdoc.workloads.client  # noqa: F401  (its imports are not per-chunk work)
    from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload_async

    per_stream, output = SHAPES[streams]
    spec = WorkloadSpec(
        url=url, api="openai-completions", concurrency=streams, requests=streams * per_stream,
        input_tokens=8, output_tokens=output, metrics_url="",
        timeouts=Timeouts(connect_s=30, first_token_s=60, idle_s=60),
    )
    idle = LagProbe()
    idle.start()
    await asyncio.sleep(IDLE_PROBE_S)
    idle.stop()
    probe = LagProbe()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    probe.start()
    result = await run_workload_async(spec)
    probe.stop()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    chunks = sum(len(r.chunk_ms) for r in result.records)
    baseline = statistics.fmean(idle.lateness)
    loaded = sorted(probe.lateness)
    lag_mean = max(0.0, statistics.fmean(loaded) - baseline)
    lag_p99 = max(0.0, loaded[min(len(loaded) - 1, int(0.99 * len(loaded)))] - baseline)
    return Figures(streams, chunks, len(result.failures), wall, cpu, lag_mean * 1e6, lag_p99 * 1e6)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    results: list[Figures] = []
    for streams in SHAPES:
        with simulator() as url:
            results.append(asyncio.run(measure(url, streams)))
    if any(f.failed for f in results):
        print("some requests failed: " + ", ".join(f"{f.streams} streams: {f.failed}" for f in results),
              file=sys.stderr)
        return 1
    if args.json:
        figures: dict[str, float] = {}
        for f in results:
            figures[f"chunks_per_cpu_s_{f.streams}"] = round(f.chunks_per_cpu_s, 1)
            figures[f"added_latency_us_{f.streams}"] = round(f.added_latency_us, 2)
            figures[f"flooded_lag_mean_us_{f.streams}"] = round(f.flooded_lag_mean_us, 1)
            figures[f"flooded_lag_p99_us_{f.streams}"] = round(f.flooded_lag_p99_us, 1)
            figures[f"chunks_per_s_{f.streams}"] = round(f.chunks_per_s, 1)
        print(json.dumps(figures))
        return 0
    print(f"{'streams':>7} {'chunks':>8} {'wall s':>7} {'cpu s':>7} {'chunks/cpu-s':>13} "
          f"{'added us/chunk':>15} {'flooded lag mean/p99 us':>24} {'chunks/s':>9}")
    for f in results:
        lag = f"{f.flooded_lag_mean_us:.0f} / {f.flooded_lag_p99_us:.0f}"
        print(f"{f.streams:>7} {f.chunks:>8} {f.wall_s:>7.2f} {f.cpu_s:>7.2f} {f.chunks_per_cpu_s:>13.0f} "
              f"{f.added_latency_us:>15.1f} {lag:>24} {f.chunks_per_s:>9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
