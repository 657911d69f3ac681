"""`benchdoc retract`: take a run back (it stays in the ledger and in its history)."""

from __future__ import annotations

import argparse

from benchdoc.cli._common import load_project, open_ledger
from benchdoc.errors import LedgerError, UsageError

ORDER = 41


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "retract",
        help="take a run back: out of every result, sync and lint, kept in history with the reason",
        description="Retract run RUN_ID: it stays in the ledger (runs are never deleted) and `history` shows it "
        "struck through with REASON, but no result, table, chart, sync or lint counts it any more. "
        "`benchdoc unretract RUN_ID` undoes it.",
        epilog='example:\n  benchdoc retract 42 --reason "measured with the debug build"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_id", type=int, metavar="RUN_ID", help="the run's id (see `benchdoc history EXP`)")
    parser.add_argument("--reason", required=True, help="why the run is taken back (kept and shown in history)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load_project(args)
    with open_ledger(config, create=False, write=True) as ledger:
        try:
            retraction = ledger.retract(args.run_id, args.reason)
            experiment = ledger.run(args.run_id).experiment
        except LedgerError as err:
            raise UsageError(err.message) from None
    print(f"retracted run {args.run_id} of {experiment}: {retraction.reason}")
    return 0
