"""`benchdoc check`: one command for CI — fails when any document is stale or broken."""

from __future__ import annotations

import argparse
import sys

from benchdoc.cli._common import load_project, open_ledger
from benchdoc.errors import EXIT_DOCUMENT, EXIT_FAILED, EXIT_OK

ORDER = 65


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="CI check: exit 1 if any document is stale or edited by hand",
        description="Check every document listed in benchdoc.toml (or DOC...): exit 1 if any managed region "
        "is out of date with the ledger or was edited by hand, listing each place; writes nothing.",
    )
    parser.add_argument("documents", nargs="*", metavar="DOC", help="documents to check (default: [documents] paths)")
    parser.add_argument("--diff", action="store_true", help="also print the diff sync would apply")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.cli.sync import report
    from benchdoc.docs.project import document_paths, plan_documents

    from benchdoc.cache import DerivedCache
    from benchdoc.results import build_results

    config = load_project(args)
    paths = document_paths(config, args.documents)
    with open_ledger(config, create=False) as ledger:
        syncs = plan_documents(
            config, lambda: build_results(config, ledger), paths, cache=DerivedCache.for_project(config, ledger)
        )
    problems = report(syncs, show_diffs=args.diff, check=True)
    stale = [s for s in syncs if s.changed]
    if problems or stale:
        print(
            f"benchdoc check: {len(stale)} stale document(s), {problems} problem(s); "
            "fix with `benchdoc sync --write`",
            file=sys.stderr,
        )
        return EXIT_FAILED
    print(f"benchdoc check: {len(syncs)} document(s) up to date")
    return EXIT_OK
