"""`benchdoc check`: one command for CI — fails when any document is stale or broken, or its prose is."""

from __future__ import annotations

import argparse
import sys

from benchdoc.cli._common import load_project, open_ledger
from benchdoc.errors import EXIT_FAILED, EXIT_OK

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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.cache import DerivedCache
    from benchdoc.cli.lint import project_facts
    from benchdoc.cli.lint import report as report_lint
    from benchdoc.cli.sync import report
    from benchdoc.docs.project import document_paths, plan_documents
    from benchdoc.results import LazyResults

    config = load_project(args)
    paths = document_paths(config, args.documents, action="check")
    with open_ledger(config, create=False) as ledger:
        # One computation for both the regions and the lint, and none when the cache is warm.
        results = LazyResults.from_ledger(config, ledger)
        cache = DerivedCache.for_project(config, ledger)
        syncs = plan_documents(config, results, paths, cache=cache)
        facts = None if args.no_lint else project_facts(config, ledger, cache, results)
    problems = report(syncs, show_diffs=args.diff, check=True)
    stale = [s for s in syncs if s.changed]
    statements = 0
    if facts is not None:
        from pathlib import Path

        from benchdoc.lint import lint_parsed

        # Broken documents were reported above; the lint reads the others, as the plans parsed them.
        parsed = [(Path(s.plan.path), s.plan.parsed) for s in syncs if not s.plan.parsed.errors]
        linted = lint_parsed(facts, parsed)
        statements = sum(len(r.findings) for r in linted)
        report_lint(linted, as_json=False, summary=False)
    if problems or stale or statements:
        parts = [f"{len(stale)} stale document(s)", f"{problems} problem(s)"]
        if facts is not None:
            parts.append(f"{statements} stale statement(s) in prose")
        fixes = ["regenerate the regions with `benchdoc sync --write`"] if stale or problems else []
        if statements:
            fixes.append("reword the prose or bind its numbers with <!-- benchdoc:value --> (see each fix:)")
        print(f"benchdoc check: {', '.join(parts)}; {'; '.join(fixes)}", file=sys.stderr)
        return EXIT_FAILED
    print(f"benchdoc check: {len(syncs)} document(s) up to date")
    return EXIT_OK
