"""`benchdoc unretract`: undo a retraction (the undo is kept too)."""

from __future__ import annotations

import argparse

from benchdoc.cli._common import load_project, open_ledger
from benchdoc.errors import LedgerError, UsageError

ORDER = 42


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "unretract",
        help="undo `benchdoc retract`: the run counts again",
        description="Undo the retraction of run RUN_ID: it counts in results, sync and lint again. "
        "The retraction and its undoing both stay in the ledger.",
    )
    parser.add_argument("run_id", type=int, metavar="RUN_ID", help="the retracted run's id")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load_project(args)
    with open_ledger(config, create=False, write=True) as ledger:
        try:
            undone = ledger.unretract(args.run_id)
            experiment = ledger.run(args.run_id).experiment
        except LedgerError as err:
            raise UsageError(err.message) from None
    print(f"run {args.run_id} of {experiment} counts again (it had been retracted: {undone.reason})")
    return 0
