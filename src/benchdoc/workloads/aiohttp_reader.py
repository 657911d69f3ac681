"""The aiohttp reader: one ``aiohttp.ClientSession`` carries a run's requests.

It serves every URL (https included), the server's discovery and metrics endpoints, and
streams where the lean reader (:mod:`benchdoc.workloads.lean_reader`) does not apply.
Each read is stamped with ``time.perf_counter`` and parsed incrementally as it arrives;
aiohttp's errors are turned into :class:`~benchdoc.workloads.inflight.ReadFailure`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from time import perf_counter
from typing import Any

import aiohttp

from benchdoc.errors import RunError
from benchdoc.workloads.inflight import (
    CLOSE_GRACE_S,
    CLOSED_EARLY,
    CUT_MID_BODY,
    ReadFailure,
    Watch,
    describe,
    http_error,
    json_body_error,
)
from benchdoc.workloads.prometheus import SPEC_COUNTERS, parse_counters
from benchdoc.workloads.protocols import StreamDecoder
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.saturation import SendStamp, send_trace_config
from benchdoc.workloads.spec import WorkloadSpec, redact_url
from benchdoc.workloads.sse import SSEParser


def _ignore(now: float) -> None:
    pass


class AiohttpReader:
    """Requests over one aiohttp session; ``await close()`` when the run is over."""

    name = "aiohttp"

    def __init__(self, spec: WorkloadSpec, headers: dict[str, str],
                 note: Callable[[float], None] | None = None) -> None:
        self.spec = spec
        self.headers = headers
        self.note = note or _ignore  # told of every read (the loop monitor's lag samples)
        pool = spec.concurrency if not spec.open_loop else (spec.max_concurrency or 0)
        connector = aiohttp.TCPConnector(limit=pool or 0, limit_per_host=0, force_close=False)
        timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=spec.timeouts.connect_s, sock_read=None)
        self.http = aiohttp.ClientSession(
            connector=connector, timeout=timeout, auto_decompress=False, trace_configs=[send_trace_config()]
        )

    async def close(self) -> None:
        await self.http.close()

    async def prewarm(self, count: int) -> None:
        """aiohttp opens its connections as requests need them."""

    async def discover(self) -> dict[str, Any]:
        """Ask the server which models it serves; fail clearly if it cannot be reached."""
        url = self.spec.base_url + "/v1/models"
        timeout = aiohttp.ClientTimeout(total=self.spec.timeouts.connect_s + min(self.spec.timeouts.idle_s, 30.0))
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
            raise RunError(f"cannot reach the server at {redact_url(self.spec.base_url)}: {describe(err)}") from None
        except asyncio.TimeoutError:  # aiohttp's connect and read timeouts included
            raise RunError(
                f"the server at {redact_url(self.spec.base_url)} did not answer GET /v1/models "
                f"within {timeout.total:g} s"
            ) from None
        except (aiohttp.ClientError, ValueError) as err:
            info["models_error"] = describe(err)
        return info

    async def metrics_text(self) -> str | None:
        """The server's Prometheus exposition, or None (no endpoint, an error, metrics off)."""
        url = self.spec.metrics_url
        if url == "":
            return None
        url = url or self.spec.base_url + "/metrics"
        timeout = aiohttp.ClientTimeout(total=self.spec.timeouts.connect_s + 5.0)
        try:
            async with self.http.get(url, headers=self.headers, timeout=timeout) as resp:
                if resp.status != 200:
                    return None
                return await resp.text(errors="replace")
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
            return None

    async def scrape_counters(self) -> dict[str, float] | None:
        """The speculative-decoding counters of the server's Prometheus endpoint, or None."""
        text = await self.metrics_text()
        return None if text is None else parse_counters(text, SPEC_COUNTERS)

    async def stream(self, body: bytes, record: RequestRecord, decoder: StreamDecoder, watch: Watch,
                     t_send: float, hard_deadline: float) -> None:
        """POST ``body`` and read its event stream into ``record``; a failed exchange
        raises ReadFailure (a stream error, StreamError; a timeout, cancellation)."""
        try:
            await self._stream(body, record, decoder, watch, t_send, hard_deadline)
        except aiohttp.ClientConnectorError as err:
            raise ReadFailure(f"cannot connect: {describe(err)}", "connect") from None
        except aiohttp.ServerTimeoutError as err:
            # aiohttp raises this for its socket-connect bound.
            reason = f"connect timeout ({self.spec.timeouts.connect_s:g} s): {describe(err)}"
            raise ReadFailure(reason, "connect") from None
        except aiohttp.ServerDisconnectedError:
            raise ReadFailure(CLOSED_EARLY, "cut", cut_short=record.http_status == 200) from None
        except aiohttp.ClientPayloadError as err:
            # aiohttp's words for a body that stopped short of its framing's end.
            early = str(err).startswith("Response payload is not completed")
            reason = CUT_MID_BODY if early else f"response cut off mid-stream: {describe(err)}"
            raise ReadFailure(reason, "cut", cut_short=True) from None
        except (aiohttp.ClientError, OSError) as err:
            raise ReadFailure(f"network error: {describe(err)}") from None

    async def _stream(self, body: bytes, record: RequestRecord, decoder: StreamDecoder, watch: Watch,
                      t_send: float, hard_deadline: float) -> None:
        written = SendStamp()
        async with self.http.post(
            self.spec.endpoint_url, data=body, headers=self.headers, trace_request_ctx=written
        ) as resp:
            if written.at is not None:
                record.send_delay_ms = (written.at - t_send) * 1000.0
            record.http_status = resp.status
            if resp.status != 200:
                record.error = http_error(resp.status, resp.reason, await resp.content.read(4096))
                return
            if resp.content_type == "application/json":
                # A whole answer instead of a stream: the server ignored "stream": true.
                record.error = json_body_error(await resp.content.read(300))
                return
            parser = SSEParser()
            chunk_ms = record.chunk_ms
            chunk_tokens = record.chunk_tokens
            idle_s = self.spec.timeouts.idle_s
            idle_reason = f"stalled: no data within the idle timeout ({idle_s:g} s) after output had started"
            started = False
            note = self.note
            async for data in resp.content.iter_any():
                now = perf_counter()
                note(now)
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
                        watch.deadline = now + CLOSE_GRACE_S
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
