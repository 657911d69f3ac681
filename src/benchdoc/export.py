"""Runs as flat rows (one per sample) in CSV, JSON or JSON Lines, for pandas or spreadsheets."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: `benchdoc export --help` need not load the ledger
    from benchdoc.ledger.models import RequestRow, RunRecord

RUN_FIELDS = (
    "run_id", "experiment", "outcome", "started_at", "finished_at", "failure_reason", "cause",
    "host", "git_commit", "git_dirty", "source", "note", "retracted",
)
FLAT_FIELDS = (*RUN_FIELDS, "metric", "repetition", "start", "value")
# One row per kept request (`export --requests`); JSON rows also hold the chunk arrays.
REQUEST_FIELDS = (
    "run_id", "experiment", "repetition", "request", "ok", "error", "cut_short", "http_status", "finish_reason",
    "queue_ms", "send_delay_ms", "ttft_ms", "tpot_ms", "e2e_ms", "requested_input_tokens", "input_tokens", "input_token_source",
    "requested_output_tokens", "output_tokens", "output_token_source", "chunk_token_source", "spec_verify_ct",
)
FORMATS = ("csv", "json", "jsonl")


def flat_rows(runs: Iterable[RunRecord]) -> list[dict[str, Any]]:
    """One row per sample, oldest run first; a run without samples (a failure) gets one row
    with an empty metric."""
    rows: list[dict[str, Any]] = []
    for run in sorted(runs, key=lambda r: r.id):
        base = run.columns()
        if not run.samples:
            rows.append({**base, "metric": None, "repetition": None, "start": None, "value": None})
        for sample in run.samples:
            rows.append({**base, "metric": sample.metric, "repetition": sample.repetition, "start": sample.start,
                         "value": sample.value})
    return rows


def request_rows(runs: Iterable[RunRecord], kept: dict[int, list[RequestRow]]) -> list[dict[str, Any]]:
    """One row per kept request, oldest run first, by repetition and request number; every
    field of the request's record (chunk arrival times included), under REQUEST_FIELDS' names."""
    rows: list[dict[str, Any]] = []
    for run in sorted(runs, key=lambda r: r.id):
        for request in kept.get(run.id, []):
            record = {k: v for k, v in request.record.items() if k != "index"}
            rows.append({
                "run_id": run.id, "experiment": run.experiment, "repetition": request.repetition,
                "request": request.index, **record, "ok": request.ok, "error": request.error,
            })
    return rows


def render_rows(rows: list[dict[str, Any]], fmt: str, fields: tuple[str, ...] = FLAT_FIELDS) -> str:
    """The rows as text in ``fmt`` (one of FORMATS); CSV writes ``fields`` as its header."""
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(row) + "\n" for row in rows)

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writerow({k: _csv_cell(k) for k in fields})
    for row in rows:
        writer.writerow({k: _csv_cell(row.get(k)) for k in fields})
    return buffer.getvalue()


# A spreadsheet runs a cell starting with one of these as a formula (=HYPERLINK(...)).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def _csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: control characters dropped and every line
    break made LF (so a bare CR cannot end the row: the cell is quoted); a text cell that
    would start a formula gets a leading apostrophe (as OWASP advises); numbers, negative
    ones included, stay numbers."""
    from benchdoc.untrusted import clean_text

    if value is None:
        return ""
    if isinstance(value, str):
        value = clean_text(value)
        if value.startswith(_FORMULA_STARTS):
            return "'" + value
    return value
