"""`benchdoc lint`: find stale numbers, claims and verdicts in the prose of the experiment logs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from benchdoc.cli._common import load_project, open_ledger, print_json
from benchdoc.errors import EXIT_DOCUMENT, EXIT_OK, UsageError

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.lint import LintFacts

ORDER = 70

EPILOG = """\
What it reports (outside managed regions, code, and link targets):
  stale-value    a number with a metric's unit, in a sentence or table row naming an
                 experiment, that is not that experiment's current result
  stale-claim    "40% slower than baseline", "+5.1% over Ring", "1.5x faster" that the
                 current comparison contradicts
  stale-verdict  "fails", "net-negative", "works"... contradicting the computed status

A name stands for the experiment's current result (the end of its supersedes chain).
Past-tense sentences quoting an older result of the experiment are history, not stale.

Silence a finding:
  <!-- benchdoc:ignore -->          on its own line: the next paragraph, table or list
  text <!-- benchdoc:ignore -->     inside a line: that line
  [documents] historical_sections   headings whose sections keep old numbers (default
                                    "History", "Changelog")

Where to update after new results:
  benchdoc lint --changed-since 2026-11-02 notes/    every place naming an experiment
  benchdoc lint --changed-since 41                   with a run after that date or run
  benchdoc lint --changed                            ... since the last `sync --write`

exit codes:
  0  no finding (or the list of places printed)
  1  findings
  2  usage error
  3  a document is broken
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lint",
        help="find stale numbers, claims and verdicts in the documents' prose",
        description="Check the prose of every document listed in benchdoc.toml (or DOC..., files or folders) "
        "against the ledger: numbers, relative claims and verdicts that no longer hold, each with where it is, "
        "what the ledger says now, and a fix.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "documents", nargs="*", metavar="DOC",
        help="documents or folders of Markdown files (default: [documents] paths; with --changed*, added to them)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON array (findings, or places with --changed*)")
    since = parser.add_mutually_exclusive_group()
    since.add_argument(
        "--changed-since", metavar="DATE|RUN",
        help="list every place naming an experiment with a run since DATE (2026-11-02[T14:30]) or after run id RUN",
    )
    since.add_argument(
        "--changed", action="store_true",
        help="list every place naming an experiment whose result changed in the last `benchdoc sync --write`",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.cache import DerivedCache
    from benchdoc.check import project_facts
    from benchdoc.cli._reports import print_lint

    config = load_project(args)
    with open_ledger(config, create=False) as ledger:
        cache = DerivedCache.for_project(config, ledger)
        facts = project_facts(config, ledger, cache)
    if args.changed or args.changed_since:
        return list_changed(args, config, facts)
    from benchdoc.lint import lint_documents, lint_paths

    paths = lint_documents(config, args.documents)
    results = lint_paths(facts, paths)
    return print_lint(results, as_json=args.json)


def list_changed(args: argparse.Namespace, config: Config, facts: LintFacts) -> int:
    from benchdoc.lint.changed import Since, changed_experiments, changed_places, parse_since
    from benchdoc.lint.project import markdown_files, read_documents
    from benchdoc.lint.state import read_sync_point, state_path

    if args.changed:
        point = read_sync_point(config)
        if point is None:
            raise UsageError(
                f"no sync recorded yet ({state_path(config).relative_to(config.root)} is written by "
                "`benchdoc sync --write`); use --changed-since DATE|RUN"
            )
        since = Since(after_run=point.previous_run_id)
    else:
        since = parse_since(args.changed_since)
    paths = markdown_files([*config.documents.paths, *args.documents])
    if not paths:
        raise UsageError("no documents: list them in benchdoc.toml ([documents] paths) or name files or folders")
    changed = changed_experiments(facts, since)
    read = read_documents(facts, paths)
    documents = [document for _, document, _ in read if document is not None]
    errors = [e for _, _, errs in read for e in errs]
    places = changed_places(facts, documents, changed)
    if args.json:
        print_json([p.to_json() for p in places])
    else:
        if not changed:
            print(f"no experiment has a new run {since.describe()}")
        for item in changed.values():
            print(f"changed: {item.label} ({item.name}): {item.why}")
        for place in places:
            notes = [n for n, on in (("historical section", place.historical), ("ignored", place.ignored)) if on]
            flag = f" ({', '.join(notes)})" if notes else ""
            section = f" [{place.section}]" if place.section else ""
            print(f"{place.file}:{place.line}:{place.column}:{section} {', '.join(place.experiments)}{flag}: {place.text}")
        if changed:
            print(f"benchdoc lint: {len(places)} place(s) to review in {len(documents)} document(s)", file=sys.stderr)
    for error in errors:
        print(f"benchdoc: error: {error}", file=sys.stderr)
    return EXIT_DOCUMENT if errors else EXIT_OK
