"""Incremental Server-Sent Events parsing over a byte stream.

Bytes are fed as they arrive from the socket; each call returns only the events completed
by those bytes, so a response is scanned once whatever its length (a parser that re-reads
everything received so far per chunk costs O(n^2) on long outputs).
"""

from __future__ import annotations

from dataclasses import dataclass

from benchdoc.limits import MAX_EVENT_BYTES


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event: its type (``message`` unless an ``event:`` field set one) and data."""

    data: str
    event: str = "message"


class SSEParser:
    """Turns a byte stream into SSE events, following the WHATWG event-stream rules.

    Lines may end in LF, CRLF or a lone CR; ``data:`` fields of one event are joined with
    newlines; comments (``:``) and ``id:``/``retry:`` fields are ignored; an event is
    dispatched at a blank line. A line may be split across any number of feeds.
    """

    __slots__ = ("_buffer", "_data", "_event", "_started", "_pending_cr")

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []
        self._event = ""
        self._started = False  # a leading UTF-8 BOM is dropped once
        self._pending_cr = False  # the previous feed ended in CR: a following LF belongs to it

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume ``chunk``; return the events it completed, in order."""
        if not chunk:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if chunk.startswith(b"\n"):
                chunk = chunk[1:]
        if b"\r" in chunk:
            # Normalise CRLF and lone CR to LF; a CR at the very end may be half of CRLF.
            if chunk.endswith(b"\r"):
                self._pending_cr = True
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buffer = self._buffer + chunk if self._buffer else chunk
        if not self._started:
            if len(buffer) < 3 and b"\xef\xbb\xbf".startswith(buffer):
                self._buffer = buffer
                return []
            self._started = True
            if buffer.startswith(b"\xef\xbb\xbf"):
                buffer = buffer[3:]
        end = buffer.rfind(b"\n")
        if end < 0:
            if len(buffer) > MAX_EVENT_BYTES:
                from benchdoc.workloads.protocols import StreamError

                raise StreamError(f"the server sent over {MAX_EVENT_BYTES // (1024 * 1024)} MiB without a line break")
            self._buffer = buffer
            return []
        self._buffer = buffer[end + 1 :]
        events: list[SSEEvent] = []
        data = self._data
        for raw in buffer[:end].split(b"\n"):
            # Fast paths for the two lines every event of an LLM stream is made of.
            if raw.startswith(b"data: "):
                data.append(raw[6:].decode("utf-8", errors="replace"))
            elif not raw and not self._event:
                if data and (len(data) > 1 or data[0]):
                    events.append(SSEEvent("\n".join(data) if len(data) > 1 else data[0]))
                data.clear()
            else:
                self._line(raw, events)
                data = self._data
        return events

    def close(self) -> list[SSEEvent]:
        """End of stream: what is pending (an unterminated final line, an event without its
        closing blank line) is discarded, as the standard says; nothing is dispatched. (A
        final line, being unterminated, cannot be the blank line that would dispatch.)"""
        self._buffer = b""
        self._data = []
        self._event = ""
        return []

    @property
    def pending(self) -> bool:
        """True when bytes or fields of an unfinished event are held."""
        return bool(self._buffer or self._data or self._event)

    def _line(self, raw: bytes, events: list[SSEEvent]) -> None:
        if not raw:
            if self._data and (len(self._data) > 1 or self._data[0]):
                events.append(SSEEvent("\n".join(self._data), self._event or "message"))
            self._data = []
            self._event = ""
            return
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        # id, retry and unknown fields carry nothing a benchmark needs.
