"""Runs as flat rows (one per sample) in CSV, JSON or JSON Lines, for pandas or spreadsheets."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from benchdoc.ledger.models import RunRecord

RUN_FIELDS = (
    "run_id", "experiment", "outcome", "started_at", "finished_at", "failure_reason", "cause",
    "host", "git_commit", "git_dirty", "source", "note", "retracted",
)
FLAT_FIELDS = (*RUN_FIELDS, "metric", "repetition", "value")
FORMATS = ("csv", "json", "jsonl")


def flat_rows(runs: Iterable[RunRecord]) -> list[dict[str, Any]]:
    """One row per sample, oldest run first; a run without samples (a failure) gets one row
    with an empty metric."""
    rows: list[dict[str, Any]] = []
    for run in sorted(runs, key=lambda r: r.id):
        base = run.columns()
        if not run.samples:
            rows.append({**base, "metric": None, "repetition": None, "value": None})
        for sample in run.samples:
            rows.append({**base, "metric": sample.metric, "repetition": sample.repetition, "value": sample.value})
    return rows


def render_rows(rows: list[dict[str, Any]], fmt: str, fields: tuple[str, ...] = FLAT_FIELDS) -> str:
    """The rows as text in ``fmt`` (one of FORMATS); CSV writes ``fields`` as its header."""
    import io
    import json

    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(row) + "\n" for row in rows)
    import csv

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()
