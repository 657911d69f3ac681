"""The engine of a run: it plans requests, bounds each with its deadlines, judges how each
ended, and shapes the load (a closed loop of N streams, or arrivals on a schedule).

The bytes themselves go through a reader (aiohttp's or the lean one); a watchdog task
enforces the first-token, idle and per-request timeouts by cancelling the request it
bounds, so a stalled stream fails with its reason instead of holding up the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol

from benchdoc.workloads import settle
from benchdoc.workloads.arrivals import iter_arrival_times
from benchdoc.workloads.inflight import Built, Phase, Planned, ReadFailure, Watch, build_request, plan_request
from benchdoc.workloads.prompt_source import PromptSource
from benchdoc.workloads.protocols import StreamDecoder, StreamError, decoder_for
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.spec import WorkloadSpec

if TYPE_CHECKING:
    from benchdoc.workloads.workers import WorkerPart

# An open loop stops (and says the client cannot keep up) once this many arrivals are
# waiting to be sent or answered: no rate can make the client's memory grow without end.
MAX_PENDING_ARRIVALS = 10_000
# ... or once it sends this far behind the arrivals' schedule: the rate it measures would
# not be the rate it was asked for.
MAX_BEHIND_S = 5.0
# A closed loop's streams start this many at a time, with a turn of the event loop (its
# reads) between the groups.
LAUNCH_GROUP = 16
# The measured requests' bodies are built before timing starts, up to this many of them and
# this many bytes (the rest, of a very long run, as they are due).
PREBUILT_REQUESTS = 10_000
PREBUILT_BYTES = 256 * 1024 * 1024


class StreamReader(Protocol):
    """Carries one request over HTTP and stamps its stream into its record."""

    name: str

    async def stream(self, body: bytes, record: RequestRecord, decoder: StreamDecoder, watch: Watch,
                     t_send: float, hard_deadline: float) -> None: ...

    async def close(self) -> None: ...

    async def prewarm(self, count: int) -> None: ...


class Engine:
    def __init__(self, spec: WorkloadSpec, reader: StreamReader, prompts: PromptSource,
                 part: WorkerPart | None = None) -> None:
        self.spec = spec
        self.reader = reader
        self.prompts = prompts
        self.part = part
        self.model = spec.model
        self.watches: set[Watch] = set()
        self.prepared: dict[int, Built] = {}  # measured requests' bodies, built before timing starts
        self.consecutive_connect_errors = 0
        self.abort_reason: str | None = None
        timeouts = spec.timeouts
        self.first_token_s = timeouts.first_token_s
        self.request_s = timeouts.request_s
        # The watchdog wakes the loop: a twentieth of the shortest timeout (a timeout fires
        # at most 5% late), at most twice a second with the default ones.
        shortest = min(t for t in (timeouts.connect_s, timeouts.first_token_s, timeouts.idle_s) if t)
        self.tick_s = max(0.005, min(0.5, shortest / 20))

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

    def plan(self, index: int, due_s: float, warmup: bool = False) -> Planned:
        built = None if warmup else self.prepared.pop(index, None)
        return plan_request(self.spec, self.prompts, self.model, index, due_s, warmup, built)

    def prepare(self) -> int:
        """Build the bodies of the measured requests (prompts made, tokenized, counted) now,
        before timing starts, as far as their number is known: every one of ``requests``,
        or the arrivals an open loop expects in its duration with a margin. Returns how
        many were built."""
        spec = self.spec
        if spec.multi_turn:
            return 0  # a turn's body holds the answers before it: built as it falls due
        if spec.requests is not None:
            count = spec.requests
        elif spec.open_loop and spec.rate is not None and spec.duration_s is not None:
            count = int(spec.rate * spec.duration_s * 1.25) + 16
        else:
            return 0  # a closed loop for a duration: its number of requests is not known
        first, stride = (self.part.index, self.part.count) if self.part else (0, 1)
        # A worker process builds only until the instant all workers start together.
        deadline = self.part.start_at - 0.05 if self.part else float("inf")
        size = 0
        for index in range(first, min(count, first + PREBUILT_REQUESTS * stride), stride):
            built = build_request(spec, self.prompts, self.model, index)
            self.prepared[index] = built
            size += len(built.body)
            if size >= PREBUILT_BYTES or perf_counter() > deadline:
                break
        return len(self.prepared)

    async def send(self, planned: Planned, phase: Phase) -> RequestRecord:
        record = planned.record
        task = asyncio.current_task()
        assert task is not None
        t_send = perf_counter()
        record.sent_s = t_send - phase.start
        hard_deadline = t_send + self.request_s if self.request_s else float("inf")
        watch = Watch(
            task,
            min(t_send + self.first_token_s, hard_deadline),
            f"no output within the first-token timeout ({self.first_token_s:g} s)",
            hard_deadline,
            f"the request took longer than its timeout ({self.request_s or 0:g} s)",
        )
        self.watches.add(watch)
        decoder = decoder_for(self.spec.api, keep_text=self.prompts.tokenizer is not None or planned.reply is not None)
        try:
            await self.reader.stream(planned.body, record, decoder, watch, t_send, hard_deadline)
        except asyncio.CancelledError:
            if not watch.expired:
                raise
            if not watch.finished_stream:
                record.error = watch.reason
        except ReadFailure as failure:
            if failure.kind == "connect":
                record.error = failure.reason
                self._connect_failed(failure.reason)
            elif failure.kind != "cut" or not watch.finished_stream:
                # After the terminating event the request is complete, however the server hangs up.
                record.error = failure.reason
                record.cut_short = failure.cut_short
        except StreamError as err:
            record.error = str(err)
        finally:
            self.watches.discard(watch)
            phase.last_end = max(phase.last_end, perf_counter())
        if record.http_status is not None:
            self.consecutive_connect_errors = 0
        if record.error is None:
            self._judge(record, decoder)
        if planned.reply is not None and record.ok:
            planned.reply.append(decoder.output_text())
        return record

    def _judge(self, record: RequestRecord, decoder: StreamDecoder) -> None:
        """A stream read to its end: complete, or cut short (and why)."""
        if record.end_ms is None:
            record.error = "the stream ended without its terminating event"
            return
        settle.finish_counts(record, decoder, self.prompts.length_source, self.prompts.tokenizer)
        cut = settle.incomplete(record, decoder, forced=self.spec.ignore_eos)
        if cut is None:
            record.ok = True
        else:
            record.error = cut
            record.cut_short = True

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
        phase: Phase,
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
            # A stream's request is due when its slot is free: every stream's first at the start
            # of the phase (however long the client takes to send the burst: its queue_ms says),
            # each later one when the one before it ended.
            free = phase.start
            while self.abort_reason is None:
                now = perf_counter()
                if count is not None and next_index >= count:
                    return
                if duration_s is not None and now - phase.start >= duration_s:
                    return
                index = next_index
                next_index += stride
                planned = self.plan(index, free - phase.start, warmup)
                results.append(planned.record)
                done(await self.send(planned, phase))
                free = perf_counter()

        # The streams start in groups, the loop reading between them: sent in one turn of the
        # loop, a burst of 256 requests would leave the first answers unread (their stamps
        # late) until the last request had gone out.
        started: list[asyncio.Task[None]] = []
        try:
            for n in range(concurrency):
                started.append(asyncio.ensure_future(worker()))
                if (n + 1) % LAUNCH_GROUP == 0 and n + 1 < concurrency:
                    await asyncio.sleep(0)
        except BaseException:  # cancelled while starting: the streams started end with it
            for task in started:
                task.cancel()
            raise
        await asyncio.gather(*started)
        if count is not None:
            for index in range(next_index, count, stride):
                results.append(self._not_sent(index))
        results.sort(key=lambda r: r.index)
        return results

    async def open_loop(self, phase: Phase, done: Callable[[RequestRecord], None]) -> list[RequestRecord]:
        spec = self.spec
        assert spec.rate is not None
        trace = self.prompts.trace
        schedule = iter(trace.times_s) if trace is not None else iter_arrival_times(
            spec.rate, spec.requests, spec.duration_s, spec.burstiness, spec.seed, spec.ramp_up_s)
        cap = spec.max_concurrency
        if cap and self.part is not None:
            cap = max(1, self.part.share(cap))
        limit = asyncio.Semaphore(cap) if cap else None
        results: list[RequestRecord] = []
        tasks: set[asyncio.Task[None]] = set()

        async def one(planned: Planned) -> None:
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
                if self._falls_behind(phase, due, tasks, results):
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

    def _falls_behind(self, phase: Phase, due: float, tasks: set[asyncio.Task[None]],
                      results: list[RequestRecord]) -> bool:
        """Whether the open loop stops here: it was stopped, or it cannot keep up."""
        behind = perf_counter() - (phase.start + due)
        if self.abort_reason is None and (len(tasks) >= MAX_PENDING_ARRIVALS or behind > MAX_BEHIND_S):
            self.abort_reason = (
                f"the client cannot keep up with {self.spec.rate:g} requests/s: {behind:.1f} s behind its schedule "
                f"with {len(tasks)} arrivals waiting to be sent or answered; lower the rate"
            )
            self._give_up(tasks, results)
        return self.abort_reason is not None

    def _give_up(self, tasks: set[asyncio.Task[Any]], records: list[RequestRecord]) -> None:
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
