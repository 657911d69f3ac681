"""The SSE parser against streams generated from the events they carry: whatever the line
endings, the fields around the data and the places the bytes are cut, the events out are
the events in, each as soon as its blank line arrives and never before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdoc.limits import MAX_EVENT_BYTES
from benchdoc.workloads.protocols import StreamError
from benchdoc.workloads.sse import SSEEvent, SSEParser

# Text a data line can carry: no line break (a break ends the field), anything else,
# a colon, a leading space, non-ASCII.
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12)
_NAME = st.sampled_from(["", "update", "error", "message", "x y"])
_EOL = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def _events(draw: st.DrawFn) -> tuple[bytes, list[SSEEvent]]:
    """(a stream, the events a reader of it receives)."""
    stream = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    expected: list[SSEEvent] = []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(_NAME)
        lines = draw(st.lists(_TEXT, max_size=3))
        fields: list[bytes] = []
        if draw(st.booleans()):
            fields.append(b": a comment: data: not data")
        if name:
            fields.append(b"event: " + name.encode())
        for text in lines:
            space = b" " if text.startswith(" ") or draw(st.booleans()) else b""  # one leading space is dropped
            fields.append(b"data:" + space + text.encode())
        if draw(st.booleans()):
            fields.insert(draw(st.integers(0, len(fields))), draw(st.sampled_from([b"id: 7", b"retry: 10", b"other: x"])))
        for field in [*fields, b""]:  # the blank line ends the event
            eol = draw(_EOL)
            if stream.endswith(b"\r") and eol == b"\n":
                eol = b"\r\n"  # an LF right after a line's CR would be part of its line end
            stream += field + eol
        if lines and (len(lines) > 1 or lines[0]):  # a lone empty data field dispatches nothing
            expected.append(SSEEvent("\n".join(lines), name or "message"))
    return stream, expected


def _feed(data: bytes, cuts: list[int]) -> tuple[list[SSEEvent], SSEParser]:
    parser = SSEParser()
    events: list[SSEEvent] = []
    start = 0
    for cut in [*sorted(cuts), len(data)]:
        events.extend(parser.feed(data[start:cut]))
        start = cut
    return events, parser


@settings(max_examples=120, deadline=None)
@given(case=_events(), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_the_events_out_are_the_events_in_however_the_bytes_are_cut(
    case: tuple[bytes, list[SSEEvent]], cuts: list[int]
) -> None:
    stream, expected = case
    events, parser = _feed(stream, [c for c in cuts if c <= len(stream)])
    assert events == expected
    assert parser.close() == []
    assert not parser.pending


@settings(max_examples=60, deadline=None)
@given(case=_events())
def test_an_event_arrives_with_its_blank_line_and_not_before(case: tuple[bytes, list[SSEEvent]]) -> None:
    """Fed byte by byte, the n-th event is returned by the feed that completes its blank
    line, so a time to first token is never late by a buffered event."""
    stream, expected = case
    parser = SSEParser()
    received: list[SSEEvent] = []
    for position in range(len(stream)):
        received.extend(parser.feed(stream[position : position + 1]))
        # Whatever has been received is a prefix of what was sent.
        assert received == expected[: len(received)]
    assert received == expected


def test_a_line_break_after_a_split_carriage_return_is_one_line_end() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\n") == []  # the LF completes the CR, it is not a blank line
    assert parser.feed(b"\r") == [SSEEvent("a")]
    assert parser.feed(b"\ndata: b\n\n") == [SSEEvent("b")]


def test_an_event_type_is_used_once() -> None:
    parser = SSEParser()
    assert parser.feed(b"event: first\ndata: a\n\ndata: b\n\n") == [SSEEvent("a", "first"), SSEEvent("b")]
    assert parser.feed(b"event: lone\n\ndata: c\n\n") == [SSEEvent("c")]  # no data: nothing, and reset


def test_pending_holds_until_the_event_is_complete_or_closed() -> None:
    parser = SSEParser()
    assert not parser.pending
    assert parser.feed(b"event: e") == [] and parser.pending
    assert parser.feed(b"\n") == [] and parser.pending
    assert parser.close() == [] and not parser.pending
    parser.feed(b"data: x\n")
    assert parser.close() == [] and not parser.pending
    assert parser.feed(b"\n") == []  # the closed event does not come back


def test_a_byte_order_mark_is_dropped_only_at_the_start() -> None:
    """Later, or cut short, its bytes belong to the field name, which is then no known field."""
    assert _feed(b"data: x\n\n\xef\xbb\xbfdata: y\n\n", [])[0] == [SSEEvent("x")]
    assert _feed(b"\xef\xbbdata: x\n\ndata: y\n\n", [1])[0] == [SSEEvent("y")]
    assert _feed(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n", [2])[0] == [SSEEvent("y")]
    parser = SSEParser()
    assert parser.feed(b"data: x\n\n") == [SSEEvent("x")]
    assert parser.feed(b"\xef\xbb\xbfdata: y\n\n") == []  # a later feed's mark is not the stream's
    assert parser.feed(b"\xef") == [] and parser.pending


def test_a_line_longer_than_the_limit_is_refused_at_the_limit() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: " + b"x" * (MAX_EVENT_BYTES - 6)) == []  # exactly the limit: held
    with pytest.raises(StreamError, match="over 16 MiB without a line break"):
        parser.feed(b"x")


def test_close_forgets_an_unterminated_line() -> None:
    """What close discards does not come back as the start of a later feed's line."""
    parser = SSEParser()
    assert parser.feed(b"data: cut off") == [] and parser.pending
    assert parser.close() == [] and not parser.pending
    assert parser.feed(b"data: b\n\n") == [SSEEvent("b")]


def test_a_byte_order_mark_alone_is_consumed() -> None:
    """The whole mark in one feed is dropped there: nothing is held for later."""
    parser = SSEParser()
    assert parser.feed(b"\xef\xbb\xbf") == [] and not parser.pending
    assert parser.feed(b"data: x\n\n") == [SSEEvent("x")]


def test_a_byte_order_mark_after_a_leading_blank_line_is_not_the_stream_s() -> None:
    """Only the stream's first bytes can be its mark; after a blank line they belong to a
    field name that is no known field."""
    assert _feed(b"\n\xef\xbb\xbfdata: x\n\ndata: y\n\n", [])[0] == [SSEEvent("y")]
