"""How many streamed chunks can benchdoc's load generator take in, and how true are its stamps?

Side by side in one run, against the simulator in its own process (one SSE event per
output token, usage at the end), each client in its own process pinned to one core:

- **benchdoc**: the load generator as `benchdoc bench` runs it, reading with aiohttp;
- **benchdoc lean**: the same with ``--http-client lean`` (an asyncio Protocol over
  httptools: the bytes are handled in the transport's callback, no stream reader);
- **floor** (paced, 64 and 256 streams): an asyncio Protocol that only counts what it
  reads, no HTTP parsing: the least any client on the asyncio event loop can spend;
- **bare aiohttp**: the least a client on aiohttp can do per chunk: read what arrived
  (``iter_any``), stamp it, count the events in it. No JSON, no records. What benchdoc
  spends beyond it is benchdoc's own work; what it spends is aiohttp's read path.

Two regimes: **zero-latency** (the simulator streams as fast as it can: many chunks per
read) and **paced** (a token every 10 ms per stream, the realistic case: one chunk per
read). For each, 1, 64, 256 and 1024 streams; at 64 and 256 both benchdoc readers also
run on uvloop (``--event-loop uvloop``), and at 256 and 1024 with ``--workers`` (unpinned,
one process per core free; their start-up CPU counts). Figures:

- ``chunks_per_cpu_s``: output chunks taken in per second of the client's CPU time (user +
  system, child processes included); its capacity whatever the server's speed.
- ``lean_over_bare`` and ``lean_over_aiohttp`` (and ``lean_uvloop_...`` on uvloop): the
  lean reader's chunks per CPU-second over the bare loop's and over benchdoc's aiohttp
  reader's on the same event loop, all from the same run.
- ``ttft_error_ms`` (benchdoc): mean of the client's TTFT minus the server's own
  TTFT for the same request (the simulator reports when each request arrived and when
  its first token was written), the part of TTFT the client added: network, its send
  queue and its event loop.
- ``client_bound``: whether benchdoc's own saturation check flagged the run.

With ``--sglang-python PATH`` (the Python of a venv holding SGLang, never a dependency of
benchdoc) it measures instead benchdoc's default client beside SGLang's own benchmark client
and the bare loop, interleaved and rotated in one run, over six cells and ``--repeats``
(see ``vs_sglang.py``); its figures go to the ``client-vs-sglang-*`` experiments.

    python benchmarks/client_capacity.py                 # a table
    python benchmarks/client_capacity.py --json          # {"chunks_per_cpu_s_zero_64": ..., ...}
    python benchmarks/client_capacity.py --streams 1,64  # fewer cases
    python benchmarks/client_capacity.py --accuracy      # TTFT error only, arrivals spread out
    python benchmarks/client_capacity.py --sglang-python VENV/bin/python --repeats 5  # beside SGLang's client
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import multiprocessing
import os
import queue
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from benchdoc.sim import start_in_process

OUTPUT_TOKENS = 256
STREAMS: tuple[int, ...] = (1, 64, 256, 1024)
PACED_STEP_MS = 10.0
STEADY_S = 6.0  # --accuracy: the open loop's measured time
# Requests per stream, zero-latency: enough chunks (~10^5) for a stable CPU figure.
ZERO_REQUESTS = {1: 200, 64: 6, 256: 2, 1024: 1}


@dataclass
class Figures:
    client: str
    tag: str  # the prefix of this client's figures in --json ("" for benchdoc on aiohttp)
    regime: str
    streams: int
    chunks: int
    cpu_s: float
    wall_s: float
    failed: int
    ttft_error_ms: float | None = None
    client_bound: bool | None = None

    @property
    def chunks_per_cpu_s(self) -> float:
        return self.chunks / self.cpu_s if self.cpu_s > 0 else 0.0


def _pin(core: int | None) -> None:
    if core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})


def _cpu() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _benchdoc_job(url: str, streams: int, requests: int, core: int | None, workers: int,
                  event_loop: str = "asyncio", http_client: str = "aiohttp") -> dict[str, Any]:
    _pin(core)
    import benchdoc.workloads.client  # noqa: F401  (imports are not per-chunk work)
    import benchdoc.workloads.lean_reader  # noqa: F401
    from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload

    spec = WorkloadSpec(url=url, concurrency=streams, requests=requests, input_tokens=8,
                        output_tokens=OUTPUT_TOKENS, metrics_url="", workers=workers, event_loop=event_loop,
                        http_client=http_client, timeouts=Timeouts(connect_s=30, first_token_s=120, idle_s=60))
    cpu0, wall0 = _cpu(), time.perf_counter()
    result = run_workload(spec)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    errors = [r.ttft_ms - r.server_ttft_ms for r in result.records
              if r.ok and r.ttft_ms is not None and r.server_ttft_ms is not None]
    return {
        "chunks": sum(len(r.chunk_ms) for r in result.records), "cpu_s": cpu, "wall_s": wall,
        "failed": len(result.failures), "ttft_error_ms": statistics.fmean(errors) if errors else None,
        "client_bound": result.client.bound if result.client is not None else None,
    }


def _steady_job(url: str, streams: int, core: int | None, workers: int, http_client: str) -> dict[str, Any]:
    """TTFT beside the simulator's own stamps with arrivals spread out: an open loop whose
    rate keeps ``streams`` requests in flight (each lasts 256 steps of 10 ms), evenly spaced."""
    _pin(core)
    import benchdoc.workloads.client  # noqa: F401  (imports are not per-chunk work)
    import benchdoc.workloads.lean_reader  # noqa: F401
    from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload

    spec = WorkloadSpec(url=url, rate=streams / (OUTPUT_TOKENS * PACED_STEP_MS / 1000.0), burstiness=100.0,
                        duration_s=STEADY_S, input_tokens=8, output_tokens=OUTPUT_TOKENS, metrics_url="",
                        warmup_requests=4, workers=workers, http_client=http_client,
                        timeouts=Timeouts(connect_s=30, first_token_s=120, idle_s=60))
    result = run_workload(spec)
    errors = sorted(r.ttft_ms - r.server_ttft_ms for r in result.records
                    if r.ok and r.ttft_ms is not None and r.server_ttft_ms is not None)
    return {
        "requests": len(errors), "failed": len(result.failures),
        "ttft_error_ms": statistics.fmean(errors) if errors else None,
        "ttft_error_ms_p50": statistics.median(errors) if errors else None,
        "client_bound": result.client.bound if result.client is not None else None,
    }


def steady(streams: int, workers: int, http_client: str, core: int | None) -> dict[str, Any]:
    with start_in_process("--ttft-ms", "0", "--step-ms", str(PACED_STEP_MS), "--max-running", "4096") as url:
        data = _in_child(_steady_job, url, streams, core if workers == 1 else None, workers, http_client)
    name = "benchdoc lean" if http_client == "lean" else "benchdoc"
    return {"client": name + (f" --workers {workers}" if workers > 1 else ""), "streams": streams, **data}


def _bare_job(url: str, streams: int, requests: int, core: int | None) -> dict[str, Any]:
    _pin(core)
    import aiohttp

    body = json.dumps({"prompt": "one two three four five six seven eight", "max_tokens": OUTPUT_TOKENS,
                       "min_tokens": OUTPUT_TOKENS, "ignore_eos": True, "stream": True,
                       "stream_options": {"include_usage": True}}).encode()
    headers = {"Content-Type": "application/json"}

    async def main() -> tuple[int, int]:
        events = failed = 0
        connector = aiohttp.TCPConnector(limit=streams)
        async with aiohttp.ClientSession(connector=connector) as http:
            async def one() -> None:
                nonlocal events, failed
                for _ in range(requests // streams):
                    stamps = []
                    async with http.post(url + "/v1/completions", data=body, headers=headers) as resp:
                        if resp.status != 200:
                            failed += 1
                            continue
                        async for data in resp.content.iter_any():
                            stamps.append(time.perf_counter())
                            events += data.count(b"\n\n")
                    events -= 2  # the usage event and [DONE] carry no output

            await asyncio.gather(*(one() for _ in range(streams)))
        return events, failed

    cpu0, wall0 = _cpu(), time.perf_counter()
    chunks, failed = asyncio.run(main())
    return {"chunks": chunks, "cpu_s": _cpu() - cpu0, "wall_s": time.perf_counter() - wall0, "failed": failed}


class _Counter(asyncio.Protocol):
    """Counts the events it reads and stamps each read; ends at [DONE]."""

    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done
        self.events = 0
        self.stamps: list[float] = []

    def data_received(self, data: bytes) -> None:
        self.stamps.append(time.perf_counter())
        self.events += data.count(b"\n\n")
        if b"[DONE]" in data and not self.done.done():
            self.done.set_result(None)


def _floor_job(url: str, streams: int, requests: int, core: int | None) -> dict[str, Any]:
    """The least any asyncio client can do per read: a bare Protocol, no HTTP parsing at all."""
    _pin(core)
    host, port = url.removeprefix("http://").rsplit(":", 1)
    body = json.dumps({"prompt": "one two three four five six seven eight", "max_tokens": OUTPUT_TOKENS,
                       "min_tokens": OUTPUT_TOKENS, "ignore_eos": True, "stream": True,
                       "stream_options": {"include_usage": True}}).encode()
    request = (b"POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (host.encode(), len(body), body))

    async def main() -> int:
        loop = asyncio.get_running_loop()

        async def one() -> int:
            events = 0
            for _ in range(requests // streams):  # a connection per request: no keep-alive to get right
                done: asyncio.Future[None] = loop.create_future()
                transport, counter = await loop.create_connection(functools.partial(_Counter, done), host, int(port))
                transport.write(request)
                await done
                transport.close()
                events += counter.events - 2  # the usage event and [DONE] carry no output
            return events

        return sum(await asyncio.gather(*(one() for _ in range(streams))))

    cpu0, wall0 = _cpu(), time.perf_counter()
    chunks = asyncio.run(main())
    return {"chunks": chunks, "cpu_s": _cpu() - cpu0, "wall_s": time.perf_counter() - wall0, "failed": 0}


def _child(results: Any, target: Any, args: tuple[Any, ...]) -> None:
    results.put(target(*args))


def _in_child(target: Any, *args: Any) -> dict[str, Any]:
    """Run one client in its own process (not a daemon: it may start workers of its own),
    so its CPU time is its own."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_child, args=(results, target, args))
    process.start()
    deadline = time.monotonic() + 900
    try:
        while time.monotonic() < deadline:
            try:
                return results.get(timeout=5)  # type: ignore[no-any-return]
            except queue.Empty:
                if not process.is_alive():  # it may have put its figures just before it ended
                    try:
                        return results.get(timeout=1)  # type: ignore[no-any-return]
                    except queue.Empty:
                        raise RuntimeError(f"the client process ended (exit code {process.exitcode}) "
                                           "without its figures") from None
        raise RuntimeError("the client process gave no figures within 900 s")
    finally:
        process.join(timeout=30)


def measure(regime: str, streams: int, client: str, core: int | None, workers: int = 1,
            event_loop: str = "asyncio", http_client: str = "aiohttp") -> Figures:
    step = "0" if regime == "zero" else str(PACED_STEP_MS)
    requests = streams * (ZERO_REQUESTS[streams] if regime == "zero" else 1)
    with start_in_process("--ttft-ms", "0", "--step-ms", step, "--max-running", "4096") as url:
        if client in ("bare", "floor"):
            data = _in_child(_bare_job if client == "bare" else _floor_job, url, streams, requests, core)
        else:
            data = _in_child(_benchdoc_job, url, streams, requests, core, workers, event_loop, http_client)
    lean = client == "benchdoc" and http_client == "lean"
    name = "benchdoc lean" if lean else client
    tag = f"{client}_" if client in ("bare", "floor") else ("lean_" if lean else "")
    if workers != 1:
        name, tag = f"{name} --workers {workers}", f"{tag}workers_"
    if event_loop != "asyncio":
        name, tag = f"{name} --event-loop {event_loop}", f"{tag}{event_loop}_"
    return Figures(name, tag, regime, streams, **data)


def _cores() -> tuple[int | None, int | None]:
    """(the client's core, the server's core): different ones when there are two or more."""
    if not hasattr(os, "sched_getaffinity"):
        return None, None
    cores = sorted(os.sched_getaffinity(0))
    return (cores[-1], cores[0]) if len(cores) > 1 else (cores[0], None)


def _figures(results: list[Figures]) -> dict[str, float]:
    """Every figure by name, and the lean reader's ratios to the other clients of the same run."""
    figures: dict[str, float] = {}
    for f in results:
        figures[f"{f.tag}chunks_per_cpu_s_{f.regime}_{f.streams}"] = round(f.chunks_per_cpu_s, 1)
        if f.ttft_error_ms is not None:
            figures[f"{f.tag}ttft_error_ms_{f.regime}_{f.streams}"] = round(f.ttft_error_ms, 3)
    for f in results:
        if not f.tag.startswith("lean_") or "workers" in f.tag:
            continue
        # Beside the bare loop (on asyncio), and beside benchdoc's aiohttp reader on the same loop.
        for other, name in (("bare_", "over_bare"), (f.tag[len("lean_"):], "over_aiohttp")):
            base = figures.get(f"{other}chunks_per_cpu_s_{f.regime}_{f.streams}")
            if base:
                figures[f"{f.tag}{name}_{f.regime}_{f.streams}"] = round(f.chunks_per_cpu_s / base, 3)
    return figures


def _accuracy(as_json: bool) -> int:
    from benchdoc.workloads.workers import free_cores

    core, _ = _cores()
    rows = [steady(n, w, reader, core) for n, w in ((64, 1), (256, 1), (256, max(2, free_cores())))
            for reader in ("lean", "aiohttp")]
    if any(r["failed"] for r in rows):
        print("some requests failed", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps({f"{r['client']} {r['streams']}": {k: r[k] for k in ("ttft_error_ms", "ttft_error_ms_p50")}
                          for r in rows}))
        return 0
    print(f"{'client':<28} {'streams':>7} {'requests':>8} {'TTFT err mean':>14} {'median':>8} {'client-bound':>12}")
    for r in rows:
        bound = "—" if r["client_bound"] is None else ("yes" if r["client_bound"] else "no")
        print(f"{r['client']:<28} {r['streams']:>7} {r['requests']:>8} {r['ttft_error_ms']:>14.2f} "
              f"{r['ttft_error_ms_p50']:>8.2f} {bound:>12}")
    return 0


def _versus_sglang(python: str, repeats: int, as_json: bool) -> int:
    import vs_sglang

    if not os.path.exists(python):
        print(f"--sglang-python: {python}: no such file", file=sys.stderr)
        return 2
    if repeats < 1:
        print(f"--repeats: must be at least 1 (got {repeats})", file=sys.stderr)
        return 2

    def progress(s: vs_sglang.Sample) -> None:
        err = f", TTFT {s.ttft_error_ms:+.2f} ms" if s.ttft_error_ms is not None else ""
        print(f"repeat {s.repeat + 1}/{repeats} {s.regime} {s.streams}: {s.client} {s.per_cpu_s:.0f} chunks/CPU-s "
              f"({s.chunks} chunks, {s.cpu_s:.2f} CPU-s, {s.wall_s:.1f} s{err}; load {s.load_1m:.2f})", file=sys.stderr)

    outcome = vs_sglang.measure(python, repeats, progress)
    failed = [s for s in outcome.samples if s.failed]
    if failed:
        print("some requests failed: " + ", ".join(f"{s.client} {s.regime} {s.streams}: {s.failed}" for s in failed),
              file=sys.stderr)
        return 1
    # The version and the load at both ends are kept with the figures in the ledger's metadata.
    kept = {**vs_sglang.figures(outcome), "sglang_version": outcome.sglang_version,
            "load_avg": f"{outcome.load_start:.2f} at the start, {outcome.load_end:.2f} at the end"}
    if as_json:  # the table too, on stderr: the JSON is for the ledger, the table for the reader
        print(vs_sglang.table(outcome), file=sys.stderr)
    print(json.dumps(kept) if as_json else vs_sglang.table(outcome))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--streams", default=",".join(map(str, STREAMS)), help="stream counts (default 1,64,256,1024)")
    parser.add_argument("--regimes", default="zero,paced", help="zero, paced or both (default)")
    parser.add_argument("--accuracy", action="store_true",
                        help="only TTFT beside the simulator's stamps, arrivals spread out (64 streams on one core, "
                        "256 on one core and with --workers), both readers")
    parser.add_argument("--sglang-python", metavar="PATH",
                        help="the Python of a venv with SGLang installed: measure benchdoc's default client beside "
                        "SGLang's bench_serving and the bare loop (six cells, interleaved and rotated)")
    parser.add_argument("--repeats", type=int, default=3, help="with --sglang-python: repeats of every cell (default 3)")
    args = parser.parse_args()
    if args.sglang_python:
        return _versus_sglang(args.sglang_python, args.repeats, args.json)
    if args.accuracy:
        return _accuracy(args.json)
    streams = [int(s) for s in args.streams.split(",")]
    unknown = [s for s in streams if s not in ZERO_REQUESTS]
    if unknown:
        parser.error(f"stream counts must be among {', '.join(map(str, STREAMS))}")
    core, _ = _cores()
    results: list[Figures] = []
    for regime in args.regimes.split(","):
        for count in streams:
            results.append(measure(regime, count, "benchdoc", core))
            results.append(measure(regime, count, "benchdoc", core, http_client="lean"))
            results.append(measure(regime, count, "bare", core))
            if regime == "paced" and count in (64, 256):
                results.append(measure(regime, count, "floor", core))
            for reader in ("aiohttp", "lean"):
                if count in (64, 256):
                    results.append(measure(regime, count, "benchdoc", core, event_loop="uvloop", http_client=reader))
                if count in (256, 1024):
                    from benchdoc.workloads.workers import free_cores

                    workers = max(2, free_cores())
                    results.append(measure(regime, count, "benchdoc", None, workers=workers, http_client=reader))
    if any(f.failed for f in results):
        print("some requests failed: " + ", ".join(f"{f.client} {f.regime} {f.streams}: {f.failed}"
                                                   for f in results if f.failed), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(_figures(results)))
        return 0
    print(f"{'client':<40} {'regime':<6} {'streams':>7} {'chunks':>8} {'cpu s':>7} {'wall s':>7} "
          f"{'chunks/cpu-s':>13} {'TTFT err ms':>12} {'client-bound':>12}")
    for f in results:
        err = f"{f.ttft_error_ms:.2f}" if f.ttft_error_ms is not None else "—"
        bound = "—" if f.client_bound is None else ("yes" if f.client_bound else "no")
        print(f"{f.client:<40} {f.regime:<6} {f.streams:>7} {f.chunks:>8} {f.cpu_s:>7.2f} {f.wall_s:>7.2f} "
              f"{f.chunks_per_cpu_s:>13.0f} {err:>12} {bound:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
