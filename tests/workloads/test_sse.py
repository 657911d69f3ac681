"""The SSE parser over real byte streams, split at every possible place."""

from __future__ import annotations

import pytest

from benchdoc.workloads.sse import SSEEvent, SSEParser

STREAM = (
    b": keep-alive comment\n"
    b"data: {\"a\": 1}\n\n"
    b"event: update\r\ndata: line one\r\ndata: line two\r\n\r\n"
    b"id: 7\rretry: 10\rdata:no space\r\r"
    b"data: caf\xc3\xa9\n\n"
    b"data: [DONE]\n\n"
)
EXPECTED = [
    SSEEvent('{"a": 1}'),
    SSEEvent("line one\nline two", "update"),
    SSEEvent("no space"),
    SSEEvent("café"),
    SSEEvent("[DONE]"),
]


def parse_in_pieces(data: bytes, cuts: list[int]) -> list[SSEEvent]:
    parser = SSEParser()
    events: list[SSEEvent] = []
    start = 0
    for cut in [*cuts, len(data)]:
        events.extend(parser.feed(data[start:cut]))
        start = cut
    events.extend(parser.close())
    return events


def test_whole_stream_at_once() -> None:
    assert parse_in_pieces(STREAM, []) == EXPECTED


def test_every_single_split_point_gives_the_same_events() -> None:
    # CRLF halves, a UTF-8 character's bytes and "data:" itself all get split somewhere.
    for cut in range(1, len(STREAM)):
        assert parse_in_pieces(STREAM, [cut]) == EXPECTED, cut


def test_byte_at_a_time() -> None:
    assert parse_in_pieces(STREAM, list(range(1, len(STREAM)))) == EXPECTED


def test_events_are_returned_as_soon_as_their_blank_line_arrives() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: x\n") == []
    assert parser.pending
    assert parser.feed(b"\n") == [SSEEvent("x")]
    assert not parser.pending


def test_leading_byte_order_mark_is_dropped_even_when_split() -> None:
    data = b"\xef\xbb\xbfdata: x\n\n"
    assert parse_in_pieces(data, [1, 2]) == [SSEEvent("x")]


def test_unterminated_final_event_is_discarded_at_close() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: complete\n\ndata: cut off") == [SSEEvent("complete")]
    assert parser.close() == []


def test_empty_data_field_dispatches_nothing() -> None:
    assert parse_in_pieces(b"data:\n\ndata: y\n\n", []) == [SSEEvent("y")]


@pytest.mark.timeout(10)
def test_long_stream_is_linear() -> None:
    # 20,000 events fed in 7-byte pieces: a parser that re-scans its buffer per feed
    # would take minutes; an incremental one well under the timeout.
    one = b'data: {"choices":[{"text":" word"}]}\n\n'
    data = one * 20_000
    parser = SSEParser()
    count = 0
    for i in range(0, len(data), 7):
        count += len(parser.feed(data[i : i + 7]))
    assert count == 20_000
