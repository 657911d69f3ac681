"""`benchdoc check`: one command for CI — fails when any document is stale or broken, or its prose is."""

from __future__ import annotations

import argparse
import sys

from benchdoc.cli._common import add_pooling_arguments, load_project, open_ledger, pooling_from_args

ORDER = 65


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="CI check: exit 1 if any document is stale, edited by hand, or its prose is stale",
        description="Check every document listed in benchdoc.toml (or DOC...): exit 1 if any managed region "
        "is out of date with the ledger or was edited by hand, or if the prose lint finds stale numbers, "
        "claims or verdicts, listing each place; writes nothing.",
    )
    parser.add_argument("documents", nargs="*", metavar="DOC", help="documents to check (default: [documents] paths)")
    parser.add_argument("--diff", action="store_true", help="also print the diff sync would apply")
    parser.add_argument("--no-lint", action="store_true", help="check the managed regions only, not the prose")
    add_pooling_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.check import check_project
    from benchdoc.cli._reports import print_lint, print_syncs
    from benchdoc.docs.project import document_paths

    config = load_project(args)
    paths = document_paths(config, args.documents, action="check")
    with open_ledger(config, create=False) as ledger:
        result = check_project(config, ledger, paths, lint=not args.no_lint, pooling=pooling_from_args(args))
    print_syncs(result.syncs, show_diffs=args.diff, check=True)
    if result.lint is not None:
        print_lint(result.lint, as_json=False, summary=False)
    print(f"benchdoc check: {result.summary(args.documents)}", file=sys.stdout if result.ok else sys.stderr)
    return result.exit_code
