"""`benchdoc export`: every run and sample, flat, for pandas or spreadsheets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchdoc.cli._common import load_project, open_ledger
from benchdoc.ledger.models import RunRecord

ORDER = 45

RUN_FIELDS = (
    "run_id", "experiment", "outcome", "started_at", "finished_at", "failure_reason",
    "host", "git_commit", "git_dirty", "source", "note",
)
FLAT_FIELDS = (*RUN_FIELDS, "metric", "repetition", "value")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="export all runs and samples (csv, json, jsonl)",
        description="Export every run and sample as flat rows: one row per sample, and one row with "
        "empty metric for a run without samples (a failure). JSON holds the same rows as an array.",
    )
    parser.add_argument("--format", "-f", choices=("csv", "json", "jsonl"), default="csv", help="default: csv")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: standard output)")
    parser.add_argument("--experiment", "-e", action="append", help="only this experiment (repeatable)")
    parser.set_defaults(func=run)


def _run_fields(run: RunRecord) -> dict[str, Any]:
    """The run's own columns, as written in every export row."""
    return {
        "run_id": run.id,
        "experiment": run.experiment,
        "outcome": run.outcome,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat(),
        "failure_reason": run.failure_reason,
        "host": run.host,
        "git_commit": run.git_commit,
        "git_dirty": run.git_dirty,
        "source": run.source,
        "note": run.note,
    }


def run_to_dict(run: RunRecord) -> dict[str, Any]:
    """One run, nested, as JSON-ready data (used by `history --json`)."""
    return {
        **_run_fields(run),
        "failure_log_line": run.failure_log_line,
        "command": run.command,
        "samples": [{"metric": s.metric, "repetition": s.repetition, "value": s.value} for s in run.samples],
        "environment": run.environment,
        "metadata": run.metadata,
    }


def flat_rows(runs: list[RunRecord]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for run in sorted(runs, key=lambda r: r.id):
        base = _run_fields(run)
        if not run.samples:
            rows.append({**base, "metric": None, "repetition": None, "value": None})
        for sample in run.samples:
            rows.append({**base, "metric": sample.metric, "repetition": sample.repetition, "value": sample.value})
    return rows


def render(rows: list[dict[str, Any]], fmt: str) -> str:
    import io
    import json

    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(row) + "\n" for row in rows)
    import csv

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FLAT_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()


def run(args: argparse.Namespace) -> int:
    from benchdoc.textfile import write_atomic

    config = load_project(args)
    experiments = [config.experiment(e).name for e in args.experiment] if args.experiment else None
    with open_ledger(config) as ledger:
        runs = ledger.runs(experiments)
    text = render(flat_rows(runs), args.format)
    if args.output:
        write_atomic(Path(args.output), text.encode("utf-8"))
        print(f"wrote {len(runs)} run(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
