"""The asyncio engine that drives a workload against a server over one connection pool.

One ``aiohttp.ClientSession`` serves every request of a run. Each request is stamped with
``time.perf_counter`` when it is sent and at every network read; its stream is parsed
incrementally as the bytes arrive. A watchdog task enforces the first-token, idle and
per-request timeouts by cancelling the request it bounds, so a stalled stream fails with
its reason instead of holding up the run.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from time import perf_counter
from typing import TYPE_CHECKING, Any

import aiohttp

from benchdoc.errors import RunError
from benchdoc.machineload import LoadFigures, LoadMeter, local_server_pgids
from benchdoc.workloads import settle
from benchdoc.workloads.arrivals import iter_arrival_times
from benchdoc.workloads.prometheus import SPEC_COUNTERS, parse_counters
from benchdoc.workloads.prompt_source import PromptSource, prompt_source
from benchdoc.workloads.protocols import (
    GenerationRequest,
    StreamDecoder,
    StreamError,
    decoder_for,
    request_body,
)
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.result import WorkloadResult
from benchdoc.workloads.saturation import LoopMonitor, SendStamp, assess, send_trace_config
from benchdoc.workloads.spec import WorkloadSpec, redact_url

if TYPE_CHECKING:
    from benchdoc.workloads.workers import WorkerPart
from benchdoc.workloads.sse import SSEParser

Progress = Callable[[int, "int | None"], None]

# After the terminating event, how long the server may take to end the response before
# the connection is dropped (the request itself is complete by then).
_CLOSE_GRACE_S = 1.0
# An open loop stops (and says the client cannot keep up) once this many arrivals are
# waiting to be sent or answered: no rate can make the client's memory grow without end.
MAX_PENDING_ARRIVALS = 10_000
# ... or once it sends this far behind the arrivals' schedule: the rate it measures would
# not be the rate it was asked for.
MAX_BEHIND_S = 5.0
# Warm-up requests are numbered from here so their prompts differ from measured ones.
_WARMUP_INDEX_BASE = 1_000_000_000


class _Watch:
    """The deadline of one in-flight request, checked by the watchdog."""

    __slots__ = ("task", "deadline", "reason", "hard_deadline", "hard_reason", "expired", "finished_stream")

    def __init__(self, task: asyncio.Task[Any], deadline: float, reason: str, hard_deadline: float,
                 hard_reason: str) -> None:
        self.task = task
        self.deadline = deadline  # the first-token or idle bound in force, never past hard_deadline
        self.reason = reason
        self.hard_deadline = hard_deadline  # the whole request's bound
        self.hard_reason = hard_reason
        self.expired = False
        self.finished_stream = False


@dataclass
class _Phase:
    name: str
    start: float
    last_end: float


@dataclass(frozen=True)
class _Planned:
    record: RequestRecord
    body: bytes


class _Engine:
    def __init__(
        self,
        spec: WorkloadSpec,
        http: aiohttp.ClientSession,
        headers: dict[str, str],
        prompts: PromptSource,
        part: WorkerPart | None = None,
    ) -> None:
        self.spec = spec
        self.prompts = prompts
        self.part = part
        self.http = http
        self.headers = headers
        self.model = spec.model
        self.watches: set[_Watch] = set()
        self.consecutive_connect_errors = 0
        self.abort_reason: str | None = None
        timeouts = spec.timeouts
        self.first_token_s = timeouts.first_token_s
        self.idle_s = timeouts.idle_s
        self.request_s = timeouts.request_s
        shortest = min(t for t in (timeouts.connect_s, timeouts.first_token_s, timeouts.idle_s) if t)
        self.tick_s = max(0.005, min(0.05, shortest / 20))

    # -- discovery and scraping -------------------------------------------------------

    async def discover_model(self) -> dict[str, Any]:
        """Ask the server which models it serves; fail clearly if it cannot be reached."""
        url = self.spec.base_url + "/v1/models"
        timeout = aiohttp.ClientTimeout(total=self.spec.timeouts.connect_s + min(self.idle_s, 30.0))
        info: dict[str, Any] = {"models": []}
        try:
            async with self.http.get(url, headers=self.headers, timeout=timeout) as resp:
                if resp.status == 200:
                    payload = await resp.json(content_type=None)
                    data = payload.get("data") if isinstance(payload, dict) else None
                    if isinstance(data, list):
                        info["models"] = [m for m in data if isinstance(m, dict)]
                else:
                    info["models_error"] = f"HTTP {resp.status}"
        except aiohttp.ClientConnectorError as err:
            raise RunError(f"cannot reach the server at {redact_url(self.spec.base_url)}: {_describe(err)}") from None
        except asyncio.TimeoutError:  # aiohttp's connect and read timeouts included
            raise RunError(
                f"the server at {redact_url(self.spec.base_url)} did not answer GET /v1/models "
                f"within {timeout.total:g} s"
            ) from None
        except (aiohttp.ClientError, ValueError) as err:
            info["models_error"] = _describe(err)
        if self.model is None and info["models"]:
            first = info["models"][0].get("id")
            if isinstance(first, str):
                self.model = first
        return info

    async def scrape_counters(self) -> dict[str, float] | None:
        """The speculative-decoding counters of the server's Prometheus endpoint, or None."""
        url = self.spec.metrics_url
        if url == "":
            return None
        url = url or self.spec.base_url + "/metrics"
        timeout = aiohttp.ClientTimeout(total=self.spec.timeouts.connect_s + 5.0)
        try:
            async with self.http.get(url, headers=self.headers, timeout=timeout) as resp:
                if resp.status != 200:
                    return None
                text = await resp.text(errors="replace")
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
            return None
        return parse_counters(text, SPEC_COUNTERS)

    # -- the watchdog ------------------------------------------------------------------

    async def watchdog(self) -> None:
        while True:
            await asyncio.sleep(self.tick_s)
            now = perf_counter()
            for watch in list(self.watches):
                if not watch.expired and now > watch.deadline:
                    watch.expired = True
                    if now >= watch.hard_deadline:
                        watch.reason = watch.hard_reason
                    watch.task.cancel()

    # -- one request -------------------------------------------------------------------

    def plan(self, index: int, due_s: float, warmup: bool = False) -> _Planned:
        spec = self.spec
        number = index + (_WARMUP_INDEX_BASE if warmup else 0)
        prompt = self.prompts.plan(number)
        input_len, output_len = prompt.input_tokens, prompt.output_tokens
        generation = GenerationRequest(
            prompt=prompt.text,
            system=prompt.system,
            output_tokens=output_len,
            model=self.model,
            temperature=spec.temperature,
            ignore_eos=spec.ignore_eos,
            continuous_usage=spec.continuous_usage,
        )
        body = json.dumps(request_body(spec.api, generation)).encode()
        record = RequestRecord(
            index=index, due_s=due_s, requested_input_tokens=input_len, requested_output_tokens=output_len
        )
        return _Planned(record, body)

    async def send(self, planned: _Planned, phase: _Phase) -> RequestRecord:
        record = planned.record
        task = asyncio.current_task()
        assert task is not None
        t_send = perf_counter()
        record.sent_s = t_send - phase.start
        hard_deadline = t_send + self.request_s if self.request_s else float("inf")
        watch = _Watch(
            task,
            min(t_send + self.first_token_s, hard_deadline),
            f"no output within the first-token timeout ({self.first_token_s:g} s)",
            hard_deadline,
            f"the request took longer than its timeout ({self.request_s or 0:g} s)",
        )
        self.watches.add(watch)
        tokenizer = self.prompts.tokenizer
        decoder = decoder_for(self.spec.api, keep_text=tokenizer is not None)
        try:
            await self._stream(planned.body, record, decoder, watch, t_send, hard_deadline)
        except asyncio.CancelledError:
            if not watch.expired:
                raise
            if not watch.finished_stream:
                record.error = watch.reason
        except aiohttp.ClientConnectorError as err:
            record.error = f"cannot connect: {_describe(err)}"
            self._connect_failed(record.error)
        except aiohttp.ServerTimeoutError as err:
            # aiohttp raises this for its socket-connect bound.
            record.error = f"connect timeout ({self.spec.timeouts.connect_s:g} s): {_describe(err)}"
            self._connect_failed(record.error)
        except aiohttp.ServerDisconnectedError:
            # After the terminating event the request is complete, however the server hangs up.
            if not watch.finished_stream:
                record.error = "the server closed the connection before the response was complete"
                record.cut_short = record.http_status == 200
        except aiohttp.ClientPayloadError as err:
            if not watch.finished_stream:
                record.error = f"response cut off mid-stream: {_describe(err)}"
                record.cut_short = True
        except StreamError as err:
            record.error = str(err)
        except (aiohttp.ClientError, OSError) as err:
            record.error = f"network error: {_describe(err)}"
        finally:
            self.watches.discard(watch)
            phase.last_end = max(phase.last_end, perf_counter())
        if record.error is None:
            if record.end_ms is None:
                record.error = "the stream ended without its terminating event"
            else:
                settle.finish_counts(record, decoder, self.prompts.length_source, self.prompts.tokenizer)
                cut = settle.incomplete(record, decoder, forced=self.spec.ignore_eos)
                if cut is None:
                    record.ok = True
                else:
                    record.error = cut
                    record.cut_short = True
        return record

    async def _stream(
        self,
        body: bytes,
        record: RequestRecord,
        decoder: StreamDecoder,
        watch: _Watch,
        t_send: float,
        hard_deadline: float,
    ) -> None:
        written = SendStamp()
        async with self.http.post(
            self.spec.endpoint_url, data=body, headers=self.headers, trace_request_ctx=written
        ) as resp:
            if written.at is not None:
                record.send_delay_ms = (written.at - t_send) * 1000.0
            self.consecutive_connect_errors = 0
            record.http_status = resp.status
            if resp.status != 200:
                raw = await resp.content.read(4096)
                record.error = _http_error(resp.status, resp.reason, raw)
                return
            if resp.content_type == "application/json":
                # A whole answer instead of a stream: the server ignored "stream": true.
                raw = await resp.content.read(300)
                excerpt = " ".join(raw.decode("utf-8", errors="replace").split())[:200]
                record.error = f"expected an event stream, got a JSON body (streaming not supported?): {excerpt}"
                return
            parser = SSEParser()
            chunk_ms = record.chunk_ms
            chunk_tokens = record.chunk_tokens
            idle_s = self.idle_s
            idle_reason = f"stalled: no data within the idle timeout ({idle_s:g} s) after output had started"
            started = False
            async for data in resp.content.iter_any():
                now = perf_counter()
                if started and not watch.finished_stream:
                    watch.deadline = min(now + idle_s, hard_deadline)
                for event in parser.feed(data):
                    tokens = decoder.feed(event.data)
                    if tokens is not None:
                        chunk_ms.append((now - t_send) * 1000.0)
                        chunk_tokens.append(tokens)
                        if not started:
                            started = True
                            watch.reason = idle_reason
                            watch.deadline = min(now + idle_s, hard_deadline)
                    elif decoder.done:
                        record.end_ms = (now - t_send) * 1000.0
                        # Complete; keep reading only to return the connection to the pool.
                        watch.finished_stream = True
                        watch.deadline = now + _CLOSE_GRACE_S
            now = perf_counter()
            for event in parser.close():
                tokens = decoder.feed(event.data)
                if tokens is not None:
                    chunk_ms.append((now - t_send) * 1000.0)
                    chunk_tokens.append(tokens)
                elif decoder.done:
                    record.end_ms = (now - t_send) * 1000.0
            if record.end_ms is None:
                # Closed without [DONE]: whether it is complete is judged like any other end.
                record.end_ms = (now - t_send) * 1000.0

    def _connect_failed(self, reason: str) -> None:
        self.consecutive_connect_errors += 1
        limit = self.spec.abort_after_connect_errors
        if self.abort_reason is None and self.consecutive_connect_errors >= limit:
            self.abort_reason = (
                f"stopped sending after {limit} consecutive requests failed to connect; last: {reason}"
            )

    # -- load shapes -------------------------------------------------------------------

    async def closed_loop(
        self,
        phase: _Phase,
        concurrency: int,
        count: int | None,
        duration_s: float | None,
        warmup: bool,
        done: Callable[[RequestRecord], None],
    ) -> list[RequestRecord]:
        results: list[RequestRecord] = []
        # This process's request numbers: all of them, or every N-th of N worker processes.
        first, stride = (self.part.index, self.part.count) if self.part else (0, 1)
        next_index = first

        async def worker() -> None:
            nonlocal next_index
            while self.abort_reason is None:
                now = perf_counter()
                if count is not None and next_index >= count:
                    return
                if duration_s is not None and now - phase.start >= duration_s:
                    return
                index = next_index
                next_index += stride
                planned = self.plan(index, now - phase.start, warmup)
                results.append(planned.record)
                done(await self.send(planned, phase))

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        if count is not None:
            for index in range(next_index, count, stride):
                results.append(self._not_sent(index))
        results.sort(key=lambda r: r.index)
        return results

    async def open_loop(self, phase: _Phase, done: Callable[[RequestRecord], None]) -> list[RequestRecord]:
        spec = self.spec
        assert spec.rate is not None
        schedule = iter_arrival_times(spec.rate, spec.requests, spec.duration_s, spec.burstiness, spec.seed)
        cap = spec.max_concurrency
        if cap and self.part is not None:
            cap = max(1, self.part.share(cap))
        limit = asyncio.Semaphore(cap) if cap else None
        results: list[RequestRecord] = []
        tasks: set[asyncio.Task[None]] = set()

        async def one(planned: _Planned) -> None:
            if limit is None:
                done(await self.send(planned, phase))
                return
            async with limit:
                if self.abort_reason is not None:
                    planned.record.error = self._not_sent_reason()
                    done(planned.record)
                    return
                done(await self.send(planned, phase))

        try:
            for index, due in enumerate(schedule):
                if self.part is not None and not self.part.owns(index):
                    continue
                # Always yield to the loop, even when behind: the requests already due must run.
                await asyncio.sleep(max(0.0, phase.start + due - perf_counter()))
                if spec.duration_s is not None and perf_counter() - phase.start >= spec.duration_s:
                    break  # the run's time is up, however far behind its schedule the client is
                behind = perf_counter() - (phase.start + due)
                if self.abort_reason is None and (len(tasks) >= MAX_PENDING_ARRIVALS or behind > MAX_BEHIND_S):
                    self.abort_reason = (
                        f"the client cannot keep up with {spec.rate:g} requests/s: {behind:.1f} s behind its schedule "
                        f"with {len(tasks)} arrivals waiting to be sent or answered; lower the rate"
                    )
                    self._give_up(tasks, results)
                if self.abort_reason is not None:
                    if spec.requests is not None:
                        results.extend(
                            self._not_sent(i) for i in range(index, spec.requests) if self.part is None or self.part.owns(i)
                        )
                    break
                planned = self.plan(index, due)
                results.append(planned.record)
                task = asyncio.ensure_future(one(planned))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            for outcome in await asyncio.gather(*tasks, return_exceptions=True):
                if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                    raise outcome  # a cancelled arrival was given up on; anything else is a real error
        finally:
            for task in list(tasks):
                task.cancel()
        return results

    def _give_up(self, tasks: set[asyncio.Task[None]], records: list[RequestRecord]) -> None:
        """Cancel every pending arrival; each unanswered one fails with the abort's reason."""
        for task in list(tasks):
            task.cancel()
        for record in records:
            if not record.ok and record.error is None:
                record.error = self._not_sent_reason()

    def _not_sent_reason(self) -> str:
        return f"not sent: {self.abort_reason}"

    def _not_sent(self, index: int) -> RequestRecord:
        spec = self.spec
        return RequestRecord(
            index=index,
            due_s=0.0,
            requested_input_tokens=spec.input_tokens,
            requested_output_tokens=spec.output_tokens,
            error=self._not_sent_reason(),
        )


def _http_error(status: int, reason: str | None, raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error", payload.get("message", payload.get("detail")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error:
            text = str(error)
    text = " ".join(text.split())
    if len(text) > 200:
        text = text[:200] + "..."
    head = f"HTTP {status}" + (f" {reason}" if reason else "")
    return f"{head}: {text}" if text else head


def _describe(err: BaseException) -> str:
    text = str(err).strip()
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _count(records: list[RequestRecord], attribute: str) -> dict[str, int]:
    return dict(Counter(getattr(r, attribute) for r in records if r.ok and getattr(r, attribute)))


async def run_workload_async(
    spec: WorkloadSpec, progress: Progress | None = None, *, part: WorkerPart | None = None
) -> WorkloadResult:
    """Run ``spec`` against its server and return what was measured.

    Raises :class:`~benchdoc.errors.UsageError` for an invalid spec and
    :class:`~benchdoc.errors.RunError` when the server cannot be reached at all;
    everything that goes wrong with individual requests is in the result instead.
    With several workers (``spec.workers``, or chosen from the load) the run is spread
    over that many processes; ``part`` is one worker's share of it.
    """
    spec = spec.resolved()
    if part is None:
        from benchdoc.workloads.workers import default_workers, run_with_workers

        workers = spec.workers if spec.workers is not None else default_workers(spec)
        if workers > 1:  # the processes are waited for in a thread: this loop stays free
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, run_with_workers, spec, workers, progress)
    prompts = prompt_source(spec)  # a missing or malformed dataset stops the run before it starts
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if spec.api_key:
        headers["Authorization"] = f"Bearer {spec.api_key}"
    pool = spec.concurrency if not spec.open_loop else (spec.max_concurrency or 0)
    connector = aiohttp.TCPConnector(limit=pool or 0, limit_per_host=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=spec.timeouts.connect_s, sock_read=None)
    async with aiohttp.ClientSession(
        connector=connector, timeout=timeout, auto_decompress=False, trace_configs=[send_trace_config()]
    ) as http:
        engine = _Engine(spec, http, headers, prompts, part)
        watchdog = asyncio.ensure_future(engine.watchdog())
        try:
            measured = await _measure(engine, progress)
        finally:
            watchdog.cancel()
            await asyncio.gather(watchdog, return_exceptions=True)
    return _result(engine, measured)


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


async def _measure(engine: _Engine, progress: Progress | None) -> _Measured:
    """Discover the model, warm up, then the measured phase with the loop monitor running."""
    part = engine.part
    server_info = await engine.discover_model()
    spec = engine.spec = replace(engine.spec, model=engine.model)
    engine.prompts.spec = spec
    warmup: list[RequestRecord] = []
    warmup_count = part.share(spec.warmup_requests) if part else spec.warmup_requests
    if warmup_count:
        warm_phase = _Phase("warmup", perf_counter(), perf_counter())
        warm_concurrency = min(warmup_count, spec.concurrency or spec.max_concurrency or 1)
        warmup = await engine.closed_loop(warm_phase, warm_concurrency, spec.warmup_requests, None, True, lambda r: None)
        # A failed warm-up says nothing yet: the measured phase starts afresh.
        engine.abort_reason = None
        engine.consecutive_connect_errors = 0

    before = await engine.scrape_counters() if part is None or part.index == 0 else None
    completed = 0

    def done(_: RequestRecord) -> None:
        nonlocal completed
        completed += 1
        if progress is not None:
            progress(completed, spec.requests)

    if part is not None:  # every worker starts at the same instant
        await asyncio.sleep(max(0.0, part.start_at - perf_counter()))
    meter = LoadMeter(local_server_pgids(spec.base_url)).start()
    monitor = LoopMonitor()
    monitor.start()
    start = part.start_at if part is not None else perf_counter()
    phase = _Phase("measured", start, start)
    if spec.open_loop:
        records = await engine.open_loop(phase, done)
    else:
        assert spec.concurrency is not None
        streams = part.share(spec.concurrency) if part else spec.concurrency
        records = await engine.closed_loop(phase, streams, spec.requests, spec.duration_s, False, done)
    monitor.stop()
    duration = max(0.0, phase.last_end - phase.start)
    load = meter.stop()
    after = await engine.scrape_counters() if before is not None else None
    return _Measured(server_info, warmup, records, duration, before, after, monitor, load)


def _result(engine: _Engine, measured: _Measured) -> WorkloadResult:
    spec, prompts, records = engine.spec, engine.prompts, measured.records
    accept_length, accept_source = settle.accept_length(spec, records, measured.before, measured.after)
    ok = [r for r in records if r.ok]
    provenance: dict[str, Any] = {
        "output_tokens": _count(ok, "output_token_source"),
        "input_tokens": _count(ok, "input_token_source"),
        "chunk_tokens": _count(ok, "chunk_token_source"),
        "accept_length": accept_source,
        "clock": "time.perf_counter",
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
                      ttft_errors_ms=settle.ttft_errors(ok)),
        lag_values_ms=lags,
    )
