"""`benchdoc export`: every run and sample, flat, for pandas or spreadsheets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchdoc.cli._common import load_project, open_ledger, write_output
from benchdoc.export import FORMATS

ORDER = 45


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="export all runs and samples (csv, json, jsonl)",
        description="Export every run and sample as flat rows: one row per sample, and one row with "
        "empty metric for a run without samples (a failure). JSON holds the same rows as an array.",
    )
    parser.add_argument("--format", "-f", choices=FORMATS, default="csv", help="default: csv")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: standard output)")
    parser.add_argument(
        "--experiment", "-e", action="append", help="only this experiment: a name, alias or glob like 'eagle3-*' (repeatable)"
    )
    parser.add_argument("--requests", action="store_true",
                        help="one row per request kept with the runs instead (CSV: the scalar fields; "
                        "JSON: every field, chunk arrival times included)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.export import REQUEST_FIELDS, flat_rows, render_rows, request_rows
    from benchdoc.results.catalog import select_recorded

    config = load_project(args)
    with open_ledger(config) as ledger:
        experiments = select_recorded(config, ledger, args.experiment) if args.experiment else None
        runs = ledger.runs(experiments)
        kept = ledger.requests([r.id for r in runs]) if args.requests else {}
    if args.requests:
        rows = request_rows(runs, kept)
        text = render_rows(rows, args.format, REQUEST_FIELDS)
        what = f"{len(rows)} request(s) of {len(runs)} run(s)"
    else:
        text = render_rows(flat_rows(runs), args.format)
        what = f"{len(runs)} run(s)"
    if args.output:
        write_output(Path(args.output), text.encode("utf-8"))
        print(f"wrote {what} to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
