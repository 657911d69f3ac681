"""`benchdoc export`: every run and sample, flat, for pandas or spreadsheets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchdoc.cli._common import load_project, open_ledger
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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.export import flat_rows, render_rows
    from benchdoc.results.catalog import select_recorded
    from benchdoc.textfile import write_atomic

    config = load_project(args)
    with open_ledger(config) as ledger:
        experiments = select_recorded(config, ledger, args.experiment) if args.experiment else None
        runs = ledger.runs(experiments)
    text = render_rows(flat_rows(runs), args.format)
    if args.output:
        write_atomic(Path(args.output), text.encode("utf-8"))
        print(f"wrote {len(runs)} run(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
