"""The simulated inference server: aiohttp handlers over the latency model.

Tokens are released on absolute deadlines measured from the moment a request is
admitted to the running batch (t0 + ttft + the sum of its step times), so a late timer
wake-up delays one chunk but never the ones after it. Requests beyond ``max_running``
wait in a FIFO queue; their wait shows up in the client's TTFT, as on a real server.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import asdict
from typing import Any, TypeVar

from aiohttp import web

from benchdoc.sim import formats
from benchdoc.sim.arrivals import StampingRunner, arrived, stamping_site
from benchdoc.sim.cache import PrefixCache, prompt_words
from benchdoc.sim.clock import DeadlineClock
from benchdoc.sim.config import PREEMPT_CLOSE, SimConfig
from benchdoc.sim.faults import fatal_line
from benchdoc.sim.metrics import Counters, render
from benchdoc.sim.model import Step, draw_prefill_ms, draw_step, request_rng
from benchdoc.sim.requests import CHAT, COMPLETIONS, GENERATE, BadRequest, GenerationRequest, parse

T = TypeVar("T")

SIMULATOR_LABEL = "benchdoc simulator (not real hardware)"
SIM_VERSION = "sim-1"  # the version its server info reports (a version endpoint to read, as SGLang has)
OWNER = "benchdoc-simulator"


class SimServer:
    """One simulated server. Create, `await start(...)`, and `await close()` on one event loop.

    `on_fatal(line)` is called when an injected crash happens (die-after-requests); a
    process-level server passes a hook that logs the line and exits the process at once.
    Without a hook the crash stays in-process: every open connection is cut and the
    listening socket closed, so clients see what they would see of a dead server.
    """

    def __init__(self, config: SimConfig, on_fatal: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.counters = Counters(spec_accepted_per_position=[0] * config.draft_steps)
        self._on_fatal = on_fatal
        self._requests_started = 0
        self._slots: asyncio.Semaphore | None = None
        self._ready_at = 0.0
        self._handlers: dict[asyncio.Task[Any], web.Request] = {}
        self._runner: web.AppRunner | None = None
        self._clock: DeadlineClock | None = None
        self._dead = False
        self._prefix_cache = PrefixCache()
        # Streams in arrival order, each with its preemption flag (--preempt-on-arrival).
        self._streams: list[_Preemptible] = []

    # -- lifecycle -------------------------------------------------------------------

    def build_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.on_response_prepare.append(_label_response)
        app.router.add_get("/health", self._health)
        app.router.add_get("/health_generate", self._health)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/server_info", self._server_info)
        app.router.add_get("/get_server_info", self._server_info)
        app.router.add_get("/get_model_info", self._model_info)
        app.router.add_get("/metrics", self._metrics)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/generate", self._generate)
        return app

    async def start(self, host: str, port: int) -> int:
        """Listen on host:port (port 0 picks a free one) and return the bound port."""
        self._slots = asyncio.Semaphore(self.config.max_running)
        self._clock = DeadlineClock(asyncio.get_running_loop())
        self._ready_at = time.monotonic() + self.config.ready_delay_s
        self._runner = StampingRunner(self.build_app(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = stamping_site(self._runner, host, port)
        await site.start()
        sockets = self._runner.addresses
        return int(sockets[0][1])

    async def close(self) -> None:
        """Stop listening and end every request in flight (stalled streams included)."""
        self._cancel_handlers()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._clock is not None:
            self._clock.close()
            self._clock = None

    def _cancel_handlers(self) -> None:
        for task in list(self._handlers):
            if task is not asyncio.current_task():
                task.cancel()

    # -- informational endpoints ------------------------------------------------------

    def _ready(self) -> bool:
        return time.monotonic() >= self._ready_at

    async def _health(self, request: web.Request) -> web.Response:
        if not self._ready():
            return _error(503, "the simulated server is still loading the model", "ServiceUnavailableError")
        return web.Response(status=200)

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "object": "list",
                "data": [
                    {
                        "id": self.config.model,
                        "object": "model",
                        "created": 0,
                        "owned_by": OWNER,
                        "root": self.config.model,
                        "parent": None,
                        "max_model_len": self.config.max_model_len,
                    }
                ],
            }
        )

    async def _model_info(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"model_path": self.config.model, "is_generation": True, "simulator": True, "owned_by": OWNER}
        )

    async def _server_info(self, request: web.Request) -> web.Response:
        accept = self.counters.mean_accept_length()
        return web.json_response(
            {
                "simulator": True,
                "version": SIM_VERSION,  # as SGLang's server info carries its version
                "description": f"{SIMULATOR_LABEL}: every figure it serves is simulated",
                "model_path": self.config.model,
                "served_model_name": self.config.model,
                "config": asdict(self.config),
                "internal_states": [
                    {
                        # Cumulative since start, as SGLang reports it.
                        "avg_spec_accept_length": accept if accept is not None else 1.0,
                        "num_running_reqs": self.counters.running,
                        "num_waiting_reqs": self.counters.waiting,
                    }
                ],
            }
        )

    async def _metrics(self, request: web.Request) -> web.Response:
        text = render(self.counters, self.config.model, self.config.speculative)
        return web.Response(text=text, content_type="text/plain", charset="utf-8",
                            headers={"X-Benchdoc-Simulator": "1"})

    # -- generation -------------------------------------------------------------------

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        return await self._tracked(request, COMPLETIONS)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._tracked(request, CHAT)

    async def _generate(self, request: web.Request) -> web.StreamResponse:
        return await self._tracked(request, GENERATE)

    async def _tracked(self, request: web.Request, api: str) -> web.StreamResponse:
        task = asyncio.current_task()
        assert task is not None
        self._handlers[task] = request
        try:
            return await self._serve(request, api, arrived(request))
        finally:
            self._handlers.pop(task, None)

    async def _serve(self, request: web.Request, api: str, arrived: float) -> web.StreamResponse:
        if self._dead:  # a connection that slipped in while the crash was under way
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        if not self._ready():
            return _error(503, "the simulated server is still loading the model", "ServiceUnavailableError")
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the request body is not valid JSON", "BadRequestError")
        try:
            generation = parse(api, body, self.config)
        except BadRequest as err:
            return _error(err.status, err.message, "BadRequestError")
        if generation.model is not None and generation.model != self.config.model:
            return _error(404, f"The model `{generation.model}` does not exist.", "NotFoundError")
        self._look_up_prefix(api, body)

        index = self._requests_started
        self._requests_started += 1
        limit = self.config.die_after_requests
        if limit is not None and self._requests_started >= limit:
            self._die(request)
            raise asyncio.CancelledError  # the connection is gone; nothing is answered
        rng = request_rng(self.config, index)
        if rng.random() < self.config.error_rate:
            self.counters.requests_failed += 1
            return _error(500, "simulated internal server error (injected by --error-rate)", "InternalServerError")

        ident = formats.Identity(
            request_id=_request_id(api, index), created=int(time.time()), model=self.config.model
        )
        if generation.stream:
            response = web.StreamResponse(
                status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
            )
            try:
                await response.prepare(request)
                await self._admitted(self._stream(request, response, generation, ident, rng, arrived), generation)
            except ConnectionError:
                self.counters.requests_aborted += 1
            return response
        return await self._admitted(self._whole(request, generation, ident, rng), generation)

    async def _admitted(self, work: Coroutine[Any, Any, T], generation: GenerationRequest) -> T:
        """Run `work` (a coroutine) holding a batch slot, queueing for one if needed; while
        it runs, its prompt and max_tokens hold KV cache."""
        assert self._slots is not None
        self.counters.waiting += 1
        try:
            await self._slots.acquire()
        except BaseException:
            work.close()
            raise
        finally:
            self.counters.waiting -= 1
        held = generation.input_tokens + generation.max_tokens
        self.counters.running += 1
        self.counters.kv_tokens += held
        try:
            return await work
        finally:
            self.counters.running -= 1
            self.counters.kv_tokens -= held
            self._slots.release()

    async def _releases(
        self, generation: GenerationRequest, rng: random.Random, tokens: int
    ) -> AsyncIterator[Step]:
        """Yield each release of tokens at its deadline, up to `tokens` tokens in all."""
        clock = self._clock
        assert clock is not None
        config = self.config
        started = clock.now()  # admission: the request's deadlines count from here
        deadline = started + draw_prefill_ms(config, rng, generation.input_tokens) / 1000.0
        await clock.sleep_until(deadline, precise=True)  # TTFT takes a late wake-up in full
        self.counters.prompt_tokens += generation.input_tokens
        self.counters.generation_tokens += 1
        yield Step(tokens=1, drafted=0, accepted=0, duration_ms=0.0)
        released = 1
        while released < tokens:
            step = draw_step(config, rng, self.counters.running, tokens - released)
            deadline += step.duration_ms / 1000.0
            # Precise: a plain asyncio sleep wakes on the selector's millisecond grid, and steps
            # 20 ms apart then came out alternately near 20.5 and 19.5 ms (mean right, median not).
            await clock.sleep_until(deadline, precise=True)
            released += step.tokens
            self.counters.generation_tokens += step.tokens
            if config.speculative:
                # Count what was released: drafts cut off by the output length are not tokens.
                self.counters.record_step(step.drafted, step.tokens - 1)
            yield step

    def _look_up_prefix(self, api: str, body: Any) -> None:
        words = prompt_words(api, body)
        counters = self.counters
        counters.prefix_hits += self._prefix_cache.lookup(words)
        counters.prefix_queries += len(words)
        counters.last_prefix_hit_rate = self._prefix_cache.last_hit_rate

    def _planned(self, generation: GenerationRequest) -> tuple[int, int]:
        """(tokens the model produces, tokens actually sent before any injected stall)."""
        total = generation.output_tokens(self.config)
        stall = self.config.stall_after_tokens
        return total, total if stall is None else min(total, stall)

    def _zero_latency(self, generation: GenerationRequest, sent_limit: int, total: int) -> bool:
        """Every token after the first is due at once (no step time, nothing else to model)."""
        config = self.config
        return (
            config.step_ms == 0.0
            and not config.speculative
            and config.preempt_on_arrival is None
            and sent_limit == total
            and generation.api != GENERATE
        )

    def _arrived(self) -> _Preemptible:
        """Register a new stream; with --preempt-on-arrival it preempts the oldest running one."""
        mine = _Preemptible()
        if self.config.preempt_on_arrival is not None:
            for other in self._streams:
                if not other.preempted:
                    other.preempted = True
                    break
        self._streams.append(mine)
        return mine

    async def _stream(
        self,
        request: web.Request,
        response: web.StreamResponse,
        generation: GenerationRequest,
        ident: formats.Identity,
        rng: random.Random,
        arrived: float,
    ) -> None:
        mine = self._arrived()
        stamps = _Stamps(arrived, self.counters)
        try:
            await self._stream_tokens(request, response, generation, ident, rng, mine, stamps)
        finally:
            self._streams.remove(mine)

    async def _stream_tokens(
        self,
        request: web.Request,
        response: web.StreamResponse,
        generation: GenerationRequest,
        ident: formats.Identity,
        rng: random.Random,
        mine: _Preemptible,
        stamps: _Stamps,
    ) -> None:
        total, sent_limit = self._planned(generation)
        finish = generation.finish_reason(self.config)
        api = generation.api
        released = 0
        verify_steps = accepted = proposed = 0
        text = ""
        if sent_limit > 0:
            async for step in self._releases(generation, rng, sent_limit):
                if mine.preempted:
                    await self._preempted(response, generation, ident, released)
                    return
                piece = formats.tokens_text(released, step.tokens)
                first = released == 0
                released += step.tokens
                done = released == total
                if step.drafted:
                    verify_steps += 1
                    accepted += step.tokens - 1
                    proposed += step.drafted
                if api == GENERATE:
                    text += piece
                    state = formats.GenerateState(
                        prompt_tokens=generation.input_tokens,
                        completion_tokens=released,
                        finish_reason=finish if done else None,
                        speculative=self.config.speculative,
                        verify_steps=verify_steps,
                        accepted_drafts=accepted,
                        proposed_drafts=proposed,
                    )
                    payload = formats.generate_payload(ident, text, state)
                    stamps.written(first)
                    if done:
                        payload["meta_info"][formats.STAMPS_KEY] = stamps.report()
                    await response.write(formats.sse(payload))
                    continue
                if first and api == CHAT:
                    await response.write(formats.sse(formats.openai_role_chunk(ident)))
                chunk = formats.openai_chunk(api, ident, piece, finish if done else None)
                stamps.written(first)  # as the write starts: no client can read it before
                await response.write(formats.sse(chunk))
                if first and not done and self._zero_latency(generation, sent_limit, total):
                    # Every later token is due now: one write, as a server sends what it has.
                    await response.write(formats.openai_chunks(api, ident, released, total, finish))
                    self.counters.generation_tokens += total - released
                    released = total
                    break
        if sent_limit < total:
            await _hold_open(request)
            self.counters.requests_aborted += 1
            return
        if api != GENERATE and generation.include_usage:
            usage = formats.openai_usage_chunk(api, ident, generation.input_tokens, total)
            usage[formats.STAMPS_KEY] = stamps.report()
            await response.write(formats.sse(usage))
        await response.write(formats.DONE)
        await response.write_eof()
        self._finished(finish)

    async def _preempted(
        self, response: web.StreamResponse, generation: GenerationRequest, ident: formats.Identity, released: int
    ) -> None:
        """End a preempted stream early, without a finish_reason, as such servers do."""
        self.counters.requests_preempted += 1
        if self.config.preempt_on_arrival != PREEMPT_CLOSE:
            if generation.api != GENERATE and generation.include_usage:
                usage = formats.openai_usage_chunk(generation.api, ident, generation.input_tokens, released)
                await response.write(formats.sse(usage))
            await response.write(formats.DONE)
        await response.write_eof()

    async def _whole(
        self,
        request: web.Request,
        generation: GenerationRequest,
        ident: formats.Identity,
        rng: random.Random,
    ) -> web.StreamResponse:
        total, sent_limit = self._planned(generation)
        finish = generation.finish_reason(self.config)
        verify_steps = accepted = proposed = 0
        if sent_limit > 0:
            async for step in self._releases(generation, rng, sent_limit):
                if step.drafted:
                    verify_steps += 1
                    accepted += step.tokens - 1
                    proposed += step.drafted
        if sent_limit < total:
            await _hold_open(request)
            return web.Response(status=499)
        text = formats.tokens_text(0, total)
        self._finished(finish)
        if generation.api == GENERATE:
            state = formats.GenerateState(
                prompt_tokens=generation.input_tokens,
                completion_tokens=total,
                finish_reason=finish,
                speculative=self.config.speculative,
                verify_steps=verify_steps,
                accepted_drafts=accepted,
                proposed_drafts=proposed,
            )
            return web.json_response(formats.generate_payload(ident, text, state))
        body = formats.openai_body(generation.api, ident, text, finish, generation.input_tokens, total)
        return web.json_response(body)

    def _finished(self, reason: str) -> None:
        self.counters.requests_finished[reason] = self.counters.requests_finished.get(reason, 0) + 1

    # -- injected crash ---------------------------------------------------------------

    def _die(self, request: web.Request) -> None:
        line = fatal_line(self._requests_started)
        self._dead = True
        if self._on_fatal is not None:
            self._on_fatal(line)
        # In-process crash: cut every connection and stop listening.
        for other in list(self._handlers.values()):
            if other.transport is not None:
                other.transport.abort()
        self._cancel_handlers()
        if self._runner is not None:
            for site in list(self._runner.sites):
                asyncio.get_running_loop().create_task(site.stop())


class _Stamps:
    """When a request arrived (see :mod:`benchdoc.sim.arrivals`) and when the write of its
    first token began, on ``time.perf_counter`` (the system-wide monotonic clock): reported
    with the last event, so a client on the same machine can set its own TTFT of the request
    beside the server's. Both are the earliest the bytes could have been there, so a client's
    TTFT is never below the server's."""

    __slots__ = ("arrived", "first_token", "counters")

    def __init__(self, arrived: float, counters: Counters) -> None:
        self.arrived = arrived
        self.first_token: float | None = None
        self.counters = counters  # the server's TTFT sum and count, for /metrics

    def written(self, first: bool) -> None:
        if first:
            self.first_token = now = time.perf_counter()
            self.counters.ttft_sum_s += now - self.arrived
            self.counters.ttft_count += 1

    def report(self) -> dict[str, float | None]:
        ttft = None if self.first_token is None else (self.first_token - self.arrived) * 1000.0
        return {"arrived_s": self.arrived, "first_token_s": self.first_token, "ttft_ms": ttft}


class _Preemptible:
    """One stream in flight; set ``preempted`` and it ends at its next token."""

    __slots__ = ("preempted",)

    def __init__(self) -> None:
        self.preempted = False


async def _hold_open(request: web.Request) -> None:
    """An injected stall: send nothing more, but keep the connection until the client leaves."""
    while request.transport is not None and not request.transport.is_closing():
        await asyncio.sleep(0.05)


async def _label_response(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Server"] = "benchdoc-simulator (not real hardware)"


def _request_id(api: str, index: int) -> str:
    prefix = {COMPLETIONS: "cmpl", CHAT: "chatcmpl", GENERATE: "gen"}[api]
    return f"{prefix}-sim-{index:08d}"


def _error(status: int, message: str, kind: str) -> web.Response:
    return web.json_response(formats.error_body(message, status, kind), status=status)
