"""`benchdoc replay`: record the runs kept in the spool while the ledger was unreachable."""

from __future__ import annotations

import argparse

from benchdoc.cli._common import load_project
from benchdoc.errors import EXIT_FAILED

ORDER = 43


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="record the runs kept in .benchdoc/spool/ while the ledger was unreachable",
        description="A command that measured and could not reach the ledger (after retrying for "
        "BENCHDOC_LEDGER_RETRY_S seconds, 60 by default) keeps the whole run in .benchdoc/spool/ and exits 75. "
        "Any later command that opens the ledger records those runs first; this command does only that. "
        "Each run is recorded once: one already in the ledger (by its idempotency key) is not recorded again.",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.ledger.spool import SPOOL_DIR, pending, replay
    from benchdoc.ledger.store import Ledger

    config = load_project(args)
    folder = config.root / SPOOL_DIR
    if not pending(folder):
        print(f"nothing to replay: {SPOOL_DIR}/ holds no run")
        return 0
    with Ledger.open(config.ledger_url) as ledger:
        done = replay(ledger, folder)
    for experiment, run_id in done.recorded:
        print(f"recorded run {run_id} of {experiment}")
    if done.already:
        print(f"{done.already} run(s) were already in the ledger (removed from {SPOOL_DIR}/)")
    if done.kept:
        print(f"{len(done.kept)} run(s) still kept in {SPOOL_DIR}/: the ledger cannot take them yet ({', '.join(done.kept)})")
        return EXIT_FAILED
    return 0
