"""The lean reader: streamed responses read by an asyncio Protocol, parsed by httptools.

Per chunk the aiohttp reader pays for its stream reader, an async iterator and a task
wake-up before benchdoc sees a byte. Here the bytes are handled in the transport's own
callback: each connection is a ``BufferedProtocol`` that lends the transport one buffer,
reused for every read of the run (asyncio's plain protocols get a fresh 256 KiB bytes
object per read, which the allocator maps and unmaps each time), ``buffer_updated`` stamps
the read, httptools (llhttp, in C) takes off the
chunked or Content-Length framing, and the body is split into events with ``bytes.find``
on the blank line. Only an event's JSON is parsed in Python; the task that sent the
request wakes once, when the response is over.

It carries plain ``http://`` with keep-alive connections (a pool per run, so per worker
process), opened before the measured phase for the streams it will run (:meth:`LeanReader.prewarm`),
so no measured request waits for a TCP handshake the server's own stamps would not show. Anything else (https, credentials in the URL, header values it would have to
reject) goes through the aiohttp reader: see :func:`unsupported`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from time import perf_counter
from urllib.parse import urlsplit

import httptools

from benchdoc.limits import MAX_EVENT_BYTES
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
from benchdoc.workloads.protocols import StreamDecoder, StreamError
from benchdoc.workloads.records import RequestRecord
from benchdoc.workloads.spec import WorkloadSpec
from benchdoc.workloads.sse import SSEParser

# Of a non-200 or JSON answer, this much of the body is kept for the failure's reason.
_ERROR_BODY_BYTES = 4096
_JSON_BODY_BYTES = 300
# The buffer every read of a run lands in (asyncio reads up to 256 KiB at a time too).
READ_BUFFER_BYTES = 256 * 1024
# Connections opened at once before the measured phase: a server's listen backlog is
# often 128, and a connection past it waits a second for the handshake to be retried.
PREWARM_AT_ONCE = 64


def _ignore(now: float) -> None:
    pass


def unsupported(spec: WorkloadSpec, headers: dict[str, str]) -> str | None:
    """Why the lean reader cannot carry this run's requests, or None when it can."""
    parts = urlsplit(spec.endpoint_url)
    if parts.scheme != "http":
        return f"{parts.scheme or 'a scheme-less'} URL"
    if parts.username is not None or parts.password is not None:
        return "credentials in the URL"
    if not parts.hostname:
        return "a URL without a host"
    if any(c in v for v in headers.values() for c in "\r\n\0"):
        return "a header value with a line break"
    return None


class LeanReader:
    """Streams over a pool of keep-alive connections; ``await close()`` when the run is over."""

    name = "lean"

    def __init__(self, spec: WorkloadSpec, headers: dict[str, str],
                 note: Callable[[float], None] = _ignore) -> None:
        parts = urlsplit(spec.endpoint_url)
        assert parts.hostname is not None  # unsupported() said so before
        self.host = parts.hostname
        self.port = parts.port or 80
        self.connect_s = spec.timeouts.connect_s
        self.idle_s = spec.timeouts.idle_s
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}", "User-Agent: benchdoc",
                 "Accept-Encoding: identity"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self._idle: list[_Connection] = []
        self._buffer = memoryview(bytearray(READ_BUFFER_BYTES))  # each read is handled before the next
        self.note = note  # told of every read (the loop monitor's lag samples)

    async def prewarm(self, count: int) -> None:
        """Open keep-alive connections until ``count`` are idle in the pool, so that
        the requests that follow do not each wait for a handshake. A connection that
        cannot be opened now is left to the request that needs it (which reports why)."""
        self._idle = [c for c in self._idle if not c.lost]
        while len(self._idle) < count:
            batch = min(PREWARM_AT_ONCE, count - len(self._idle))
            opened = await asyncio.gather(*(self._open() for _ in range(batch)), return_exceptions=True)
            fresh = [c for c in opened if isinstance(c, _Connection)]
            self._idle.extend(fresh)
            if len(fresh) < batch:
                return

    async def close(self) -> None:
        for connection in self._idle:
            connection.close()
        self._idle.clear()

    async def stream(self, body: bytes, record: RequestRecord, decoder: StreamDecoder, watch: Watch,
                     t_send: float, hard_deadline: float) -> None:
        """POST ``body`` and read its event stream into ``record``; a failed exchange
        raises ReadFailure (a stream error, StreamError; a timeout, cancellation)."""
        connection = await self._connection()
        exchange = _Exchange(record, decoder, watch, t_send, hard_deadline, self.idle_s, self.note)
        connection.exchange = exchange
        try:
            connection.write(b"%s%d\r\n\r\n%s" % (self._head, len(body), body))
            record.send_delay_ms = (perf_counter() - t_send) * 1000.0
            await exchange.finished
        finally:
            connection.exchange = None
            if not exchange.finished.done():
                exchange.finished.cancel()
            elif not exchange.finished.cancelled():
                exchange.finished.exception()  # retrieved, even when a timeout cancelled the wait
            if exchange.complete and exchange.keep_alive and not connection.lost:
                self._idle.append(connection)
            else:
                connection.close()

    async def _connection(self) -> _Connection:
        """An idle keep-alive connection, or a new one."""
        while self._idle:
            connection = self._idle.pop()
            if not connection.lost:
                return connection
        return await self._open()

    async def _open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        buffer = self._buffer
        try:
            _, protocol = await asyncio.wait_for(
                loop.create_connection(lambda: _Connection(buffer), self.host, self.port), self.connect_s
            )
        except asyncio.TimeoutError:
            raise ReadFailure(f"connect timeout ({self.connect_s:g} s): {self.host}:{self.port}", "connect") from None
        except OSError as err:
            raise ReadFailure(f"cannot connect: {describe(err)}", "connect") from None
        return protocol


class _Connection(asyncio.BufferedProtocol):
    """One TCP connection; reads into the reader's buffer and hands each read to the
    exchange in progress, which is done with it before the transport reads again."""

    def __init__(self, buffer: memoryview) -> None:
        self.transport: asyncio.Transport | None = None
        self.exchange: _Exchange | None = None
        self.lost = False
        self.buffer = buffer

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.buffer

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(self.buffer[:nbytes])

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # asyncio's or uvloop's TCP transport

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)

    def data_received(self, data: bytes | memoryview) -> None:
        exchange = self.exchange
        if exchange is None:  # nothing was asked: this connection is not to be trusted
            self.close()
            return
        exchange.received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.exchange is not None:
            self.exchange.ended(exc)

    def close(self) -> None:
        self.lost = True
        if self.transport is not None:
            self.transport.abort()


class _Exchange:
    """One request's response: httptools' callbacks, the event split and the stamps."""

    def __init__(self, record: RequestRecord, decoder: StreamDecoder, watch: Watch, t_send: float,
                 hard_deadline: float, idle_s: float, note: Callable[[float], None] = _ignore) -> None:
        self.record = record
        self.decoder = decoder
        self.watch = watch
        self.t_send = t_send
        self.hard_deadline = hard_deadline
        self.idle_s = idle_s
        self.note = note
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.parser = httptools.HttpResponseParser(self)
        self.now = t_send  # the stamp of the read being parsed
        self.reason_phrase = ""
        self.content_type = ""
        self.framed = False  # the body's end is given (Content-Length or chunked), not the close
        self.raw: bytearray | None = None  # a non-stream answer's first bytes, for its reason
        self.raw_limit = 0
        self.buffer = b""
        self.sse: SSEParser | None = None  # the full SSE rules, once the stream needs them
        self.started = False
        self.complete = False
        self.keep_alive = False

    # -- the transport's side ----------------------------------------------------------

    def received(self, data: bytes | memoryview) -> None:
        self.now = now = perf_counter()
        self.note(now)
        watch = self.watch
        if self.started and not watch.finished_stream:
            watch.deadline = min(now + self.idle_s, self.hard_deadline)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as err:
            # What a callback raised (a malformed event: StreamError) is the error's context.
            cause = err.__context__
            self._fail(cause if isinstance(cause, StreamError) else ReadFailure(f"network error: {describe(err)}"))
        except httptools.HttpParserError as err:
            self._fail(ReadFailure(f"network error: malformed HTTP response: {describe(err)}"))

    def ended(self, exc: Exception | None) -> None:
        """The connection closed; the end of a body that runs to the close is its end."""
        if self.finished.done():
            return
        if self.record.http_status is not None and not self.framed:
            self.on_message_complete()
            return
        if self.record.http_status is None:
            self._fail(ReadFailure(CLOSED_EARLY, "cut"))
        else:
            self._fail(ReadFailure(CUT_MID_BODY, "cut", cut_short=True))

    def _fail(self, error: BaseException) -> None:
        if not self.finished.done():
            self.finished.set_exception(error)

    # -- httptools' callbacks ----------------------------------------------------------

    def on_status(self, status: bytes) -> None:
        self.reason_phrase += status.decode("latin-1")

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        if name == b"content-type":
            self.content_type = value.decode("latin-1").split(";")[0].strip().lower()
        elif name in (b"content-length", b"transfer-encoding"):
            self.framed = True

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        self.record.http_status = status
        if status != 200:
            self.raw, self.raw_limit = bytearray(), _ERROR_BODY_BYTES
        elif self.content_type == "application/json":
            # A whole answer instead of a stream: the server ignored "stream": true.
            self.raw, self.raw_limit = bytearray(), _JSON_BODY_BYTES

    def on_body(self, body: bytes) -> None:
        if self.raw is not None:
            self.raw += body[: self.raw_limit - len(self.raw)]
            return
        if self.sse is not None or b"\r" in body:
            self._events(body)
            return
        buffer = self.buffer + body if self.buffer else body
        start = 0
        end = buffer.find(b"\n\n")
        if end < 0:
            if len(buffer) > MAX_EVENT_BYTES:
                raise StreamError(f"the server sent over {MAX_EVENT_BYTES // (1024 * 1024)} MiB without ending an event")
            self.buffer = buffer
            return
        feed = self.decoder.feed
        record = self.record
        at_ms = (self.now - self.t_send) * 1000.0
        while end >= 0:
            # The two lines every event of an LLM stream is made of: "data: {...}" and a blank one.
            if buffer.startswith(b"data: ", start) and buffer.find(b"\n", start, end) < 0:
                tokens = feed(buffer[start + 6 : end].decode("utf-8", errors="replace"))
                if tokens is not None and self.started:  # the common case, inline
                    record.chunk_ms.append(at_ms)
                    record.chunk_tokens.append(tokens)
                else:
                    self._took(tokens)
            else:
                self.buffer = b""
                self._events(buffer[start:])  # the full rules from here on
                return
            start = end + 2
            end = buffer.find(b"\n\n", start)
        self.buffer = buffer[start:]

    def on_message_complete(self) -> None:
        self.complete = True
        self.keep_alive = self.parser.should_keep_alive()
        record = self.record
        if self.raw is not None:
            if record.http_status != 200:
                record.error = http_error(record.http_status or 0, self.reason_phrase.strip(), bytes(self.raw))
            else:
                record.error = json_body_error(bytes(self.raw))
        elif record.end_ms is None:
            # Closed without [DONE]: whether it is complete is judged like any other end.
            record.end_ms = (perf_counter() - self.t_send) * 1000.0
        if not self.finished.done():
            self.finished.set_result(None)

    # -- events ------------------------------------------------------------------------

    def _events(self, data: bytes) -> None:
        """Events by the full SSE rules (line breaks other than LF, comments, fields)."""
        if self.sse is None:
            self.sse = SSEParser()
            data, self.buffer = self.buffer + data, b""
        for event in self.sse.feed(data):
            self._event(event.data)

    def _event(self, data: str) -> None:
        self._took(self.decoder.feed(data))

    def _took(self, tokens: int | None) -> None:
        """Stamp what one event brought: a chunk (``tokens`` not None), or the end."""
        now = self.now
        if tokens is not None:
            record = self.record
            record.chunk_ms.append((now - self.t_send) * 1000.0)
            record.chunk_tokens.append(tokens)
            if not self.started:
                self.started = True
                watch = self.watch
                watch.reason = f"stalled: no data within the idle timeout ({self.idle_s:g} s) after output had started"
                watch.deadline = min(now + self.idle_s, self.hard_deadline)
        elif self.decoder.done:
            self.record.end_ms = (now - self.t_send) * 1000.0
            # Complete; the rest of the response is read only to keep the connection.
            self.watch.finished_stream = True
            self.watch.deadline = now + CLOSE_GRACE_S


def open_lean(spec: WorkloadSpec, headers: dict[str, str],
              note: Callable[[float], None] = _ignore) -> tuple[LeanReader | None, str | None]:
    """The lean reader for this run, or None and why it cannot carry it."""
    why = unsupported(spec, headers)
    return (None, why) if why else (LeanReader(spec, headers, note), None)

