"""ledger.requests: the per-request records kept with a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.ledger import Ledger, NewRun, RequestRow, Sample


def rows(repetition: int, count: int) -> list[RequestRow]:
    return [
        RequestRow(
            repetition=repetition, index=i, ok=i != 1, error=None if i != 1 else "HTTP 500: key sk-abcdefghijklmnopqrstuvwx12345",
            ttft_ms=10.0 + i, e2e_ms=50.0 + i, output_tokens=8 if i != 1 else None,
            record={"index": i, "chunk_ms": [10.0 + i, 11.0 + i], "tpot_ms": float("nan"), "finish_reason": "length"},
        )
        for i in range(count)
    ]


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'l.db'}"


def test_requests_round_trip_by_run_repetition_and_number(url: str) -> None:
    with Ledger.open(url) as ledger:
        first = ledger.record_run(NewRun("a", samples=[Sample("x", 1.0)], requests=rows(1, 2) + rows(0, 3)))
        second = ledger.record_run(NewRun("a", samples=[Sample("x", 2.0)]))
        kept = ledger.requests([first, second])
    assert kept[second] == []
    assert [(r.repetition, r.index) for r in kept[first]] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    failed = kept[first][1]
    assert not failed.ok and failed.output_tokens is None and failed.error == "HTTP 500: key sk-***"
    assert kept[first][0].record == {"index": 0, "chunk_ms": [10.0, 11.0], "tpot_ms": None, "finish_reason": "length"}


def test_a_run_refused_keeps_no_requests(url: str) -> None:
    with Ledger.open(url) as ledger:
        with pytest.raises(Exception, match="needs at least one sample"):
            ledger.record_run(NewRun("a", requests=rows(0, 2)))
        assert ledger.run_count() == 0 and ledger.requests([1]) == {1: []}


def test_timings_alone_leave_each_whole_record_unread(url: str) -> None:
    with Ledger.open(url) as ledger:
        run = ledger.record_run(NewRun("a", samples=[Sample("x", 1.0)], requests=rows(0, 3)))
        whole, timings = ledger.requests([run])[run], ledger.request_timings([run])[run]
    assert [r.record for r in timings] == [{}, {}, {}] and all(r.record for r in whole)
    columns = [(r.repetition, r.index, r.ok, r.error, r.ttft_ms, r.e2e_ms, r.output_tokens) for r in whole]
    assert [(r.repetition, r.index, r.ok, r.error, r.ttft_ms, r.e2e_ms, r.output_tokens) for r in timings] == columns
