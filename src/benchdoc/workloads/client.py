"""The run driver: one workload against its server, from discovery to the result.

It opens the run's reader, discovers the model, warms up, measures with the loop monitor
and the machine's load meter running, and assembles what was measured. The engine
(:mod:`benchdoc.workloads.engine`) plans and judges the requests; a reader carries them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from time import perf_counter
from typing import TYPE_CHECKING, Any

from benchdoc.machineload import LoadFigures, LoadMeter, local_server_pgids
from benchdoc.workloads import settle
from benchdoc.workloads.aiohttp_reader import AiohttpReader
from benchdoc.workloads.engine import Engine, StreamReader
from benchdoc.workloads.inflight import Phase
from benchdoc.workloads.loops import loop_description
from benchdoc.workloads.prompt_source import prompt_source
from benchdoc.workloads.protocols import API_SGLANG
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.result import WorkloadResult
from benchdoc.workloads.saturation import LoopMonitor, assess
from benchdoc.workloads.scraper import Scraper
from benchdoc.workloads.server_metrics import ServerSeries
from benchdoc.workloads.spec import WorkloadSpec, redact_url

if TYPE_CHECKING:
    from benchdoc.workloads.workers import WorkerPart

Progress = Callable[[int, "int | None"], None]


def _count(records: list[RequestRecord], attribute: str) -> dict[str, int]:
    return dict(Counter(getattr(r, attribute) for r in records if r.ok and getattr(r, attribute)))


async def run_workload_async(
    spec: WorkloadSpec, progress: Progress | None = None, *, part: WorkerPart | None = None
) -> WorkloadResult:
    """Run ``spec`` against its server and return what was measured.

    Raises :class:`~benchdoc.errors.UsageError` for an invalid spec and
    :class:`~benchdoc.errors.RunError` when the server cannot be reached at all;
    everything that goes wrong with individual requests is in the result instead.
    This runs in one process; ``part`` is one worker's share of a run spread over several
    (:func:`benchdoc.workloads.run_workload_async` spreads it).
    """
    spec = spec.resolved()
    prompts = prompt_source(spec)  # a missing or malformed dataset stops the run before it starts
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if spec.api_key:
        headers["Authorization"] = f"Bearer {spec.api_key}"
    headers.update(dict(spec.headers))  # --header: the user's own, last
    monitor = LoopMonitor()
    http = AiohttpReader(spec, headers, monitor.note)
    reader, reader_note = _stream_reader(spec, headers, http, monitor)
    try:
        engine = Engine(spec, reader, prompts, part)
        watchdog = asyncio.ensure_future(engine.watchdog())
        try:
            measured = await _measure(engine, http, progress, monitor)
        finally:
            watchdog.cancel()
            await asyncio.gather(watchdog, return_exceptions=True)
    finally:
        if reader is not http:
            await reader.close()
        await http.close()
    return _result(engine, measured, reader_note)


def _stream_reader(spec: WorkloadSpec, headers: dict[str, str], http: AiohttpReader,
                   monitor: LoopMonitor) -> tuple[StreamReader, str]:
    """The reader of the streams, and the words provenance records for it."""
    if spec.http_client != "lean":
        return http, "aiohttp"
    from benchdoc.workloads.lean_reader import open_lean

    lean, why = open_lean(spec, headers, monitor.note)
    if lean is None:
        return http, f"aiohttp (the lean reader does not carry {why})"
    return lean, "lean (httptools)"


@dataclass
class _Measured:
    server_info: dict[str, Any]
    warmup: list[RequestRecord]
    records: list[RequestRecord]
    duration_s: float
    before: dict[str, float] | None
    after: dict[str, float] | None
    monitor: LoopMonitor
    load: LoadFigures | None  # the machine's load over the measured phase
    server_series: ServerSeries | None = None  # the server's /metrics, scraped every second


def _streams(engine: Engine) -> int:
    """The requests this process will have in flight at most, where the load says so."""
    spec, part = engine.spec, engine.part
    streams = spec.max_concurrency if spec.open_loop else spec.concurrency
    return (part.share(streams) if part else streams) if streams else 0


async def _measure(engine: Engine, http: AiohttpReader, progress: Progress | None, monitor: LoopMonitor) -> _Measured:
    """Discover the model, warm up, then the measured phase with the loop monitor running."""
    part = engine.part
    # The streams' connections first: the server answers the discovery below only after it
    # has taken in the connections opened before it, so no measured request waits for that.
    await engine.reader.prewarm(_streams(engine))
    server_info = await http.discover()
    if engine.model is None and server_info["models"]:
        first = server_info["models"][0].get("id")
        if isinstance(first, str):
            engine.model = first
    spec = engine.spec = replace(engine.spec, model=engine.model)
    engine.prompts.spec = spec
    warmup: list[RequestRecord] = []
    warmup_count = part.share(spec.warmup_requests) if part else spec.warmup_requests
    if warmup_count:
        warm_phase = Phase("warmup", perf_counter(), perf_counter())
        warm_concurrency = min(warmup_count, spec.concurrency or spec.max_concurrency or 1)
        warmup = await engine.closed_loop(warm_phase, warm_concurrency, spec.warmup_requests, None, True, lambda r: None)
        # A failed warm-up says nothing yet: the measured phase starts afresh.
        engine.abort_reason = None
        engine.consecutive_connect_errors = 0

    engine.prepare()  # every prompt made and counted before the clock starts
    await engine.reader.prewarm(_streams(engine))  # and any the warm-up closed opened again
    before = await http.scrape_counters() if part is None or part.index == 0 else None
    completed = 0

    def done(_: RequestRecord) -> None:
        nonlocal completed
        completed += 1
        if progress is not None:
            progress(completed, spec.requests)

    if part is not None:  # every worker starts at the same instant
        await asyncio.sleep(max(0.0, part.start_at - perf_counter()))
    meter = LoadMeter(local_server_pgids(spec.base_url)).start()
    monitor.start()
    start = part.start_at if part is not None else perf_counter()
    phase = Phase("measured", start, start)
    scraper = None
    if (part is None or part.index == 0) and spec.metrics_url != "":
        scraper = Scraper(http.metrics_text, start, "sglang" if spec.api == API_SGLANG else "vllm")
        scraper.start()
    if spec.open_loop:
        records = await engine.open_loop(phase, done)
    else:
        assert spec.concurrency is not None
        streams = part.share(spec.concurrency) if part else spec.concurrency
        if spec.multi_turn:
            from benchdoc.workloads.multiturn import conversations

            records = await conversations(engine, phase, streams, spec.requests, spec.duration_s, done)
        else:
            records = await engine.closed_loop(phase, streams, spec.requests, spec.duration_s, False, done)
    monitor.stop()
    duration = max(0.0, phase.last_end - phase.start)
    load = meter.stop()
    series = await scraper.stop() if scraper is not None else None
    after = await http.scrape_counters() if before is not None else None
    return _Measured(server_info, warmup, records, duration, before, after, monitor, load, series)


def _result(engine: Engine, measured: _Measured, reader_note: str) -> WorkloadResult:
    spec, prompts, records = engine.spec, engine.prompts, measured.records
    accept_length, accept_source = settle.accept_length(spec, records, measured.before, measured.after)
    ok = [r for r in records if r.ok]
    provenance: dict[str, Any] = {
        "output_tokens": _count(ok, "output_token_source"),
        "input_tokens": _count(ok, "input_token_source"),
        "chunk_tokens": _count(ok, "chunk_token_source"),
        "accept_length": accept_source,
        "clock": "time.perf_counter",
        "event_loop": loop_description(asyncio.get_running_loop()),
        "http_client": reader_note,
        **prompts.provenance(),
    }
    settings = spec.settings()
    settings["model"] = engine.model
    settings["workers"] = engine.part.count if engine.part else 1
    models = measured.server_info.get("models", [])
    server = {
        "url": redact_url(spec.base_url),
        "api": spec.api,
        "model": engine.model,
        "models": [m.get("id") for m in models],
        "owned_by": sorted({str(m.get("owned_by")) for m in models if m.get("owned_by")}),
    }
    share, busy, lags = measured.monitor.measure()
    gaps = [g for r in ok for g in r.chunk_gaps_ms()]
    delays = [r.send_delay_ms for r in ok if r.send_delay_ms is not None]
    return WorkloadResult(
        settings=settings,
        provenance=provenance,
        records=records,
        duration_s=measured.duration_s,
        server=server,
        warmup_records=measured.warmup,
        accept_length=accept_length,
        aborted=engine.abort_reason,
        percentiles=tuple(spec.percentiles),
        load=measured.load,
        slo=tuple(spec.slo),
        client=assess([share], lags, gaps, delays, busy_shares=[busy] if busy is not None else [],
                      ttft_errors_ms=settle.ttft_errors(ok), ttfts_ms=settle.ttfts(ok)),
        lag_values_ms=lags,
        server_metrics=measured.server_series,
    )
