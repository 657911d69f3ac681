"""`benchdoc sync`: regenerate the managed regions of the experiment logs, showing the diff."""

from __future__ import annotations

import argparse
import shlex
import sys

from benchdoc.cli._common import add_pooling_arguments, load_project, open_ledger, pooling_from_args
from benchdoc.errors import EXIT_DOCUMENT, EXIT_FAILED, EXIT_OK

ORDER = 60

EPILOG = """\
Managed regions sit between HTML comments that Markdown renderers hide:

  <!-- benchdoc:table experiments="baseline eagle3-*" metric=output_tok_s -->
  ...generated...
  <!-- benchdoc:end -->

  EAGLE-3 reaches <!-- benchdoc:value eagle3.output_tok_s -->96.1<!-- benchdoc:end --> tok/s.

Everything outside the regions is left byte for byte as it is. A region edited by
hand since benchdoc wrote it is never overwritten without --force.

Each region pools the runs [stats] pool names, or those --runs N, --since DATE or
--all-runs name; a region with its own runs=N or pool=... keeps that, and says so.

exit codes:
  0  up to date, or written
  1  stale (with --check): something would change
  2  usage error
  3  a document is broken, or a region was edited by hand
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sync",
        help="regenerate managed tables and values in the documents (shows a diff)",
        description="Regenerate every managed region of the documents listed in benchdoc.toml (or DOC...) "
        "from the ledger, and show the diff. Writes only with --write (or after a yes at the prompt).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("documents", nargs="*", metavar="DOC", help="documents to sync (default: [documents] paths)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", "-w", action="store_true", help="write the changes")
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything would change")
    parser.add_argument("--force", action="store_true", help="overwrite regions edited by hand")
    parser.add_argument("--quiet", "-q", action="store_true", help="no diff, only the summary lines")
    add_pooling_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.cache import DerivedCache
    from benchdoc.cli._reports import print_syncs
    from benchdoc.docs.project import document_paths, plan_documents, write_sync
    from benchdoc.results import LazyResults

    config = load_project(args)
    paths = document_paths(config, args.documents)
    pooling = pooling_from_args(args)  # regions without runs=/pool= of their own pool this
    with open_ledger(config) as ledger:
        syncs = plan_documents(
            config, LazyResults.from_ledger(config, ledger, pooling), paths, force=args.force,
            cache=DerivedCache.for_project(config, ledger, pooling),
        )
    show_diffs = not args.quiet
    problems = print_syncs(syncs, show_diffs=show_diffs, check=args.check)
    changed = [s for s in syncs if s.changed]
    if problems:
        return EXIT_DOCUMENT
    if args.check:
        if changed:
            print(f"benchdoc: {len(changed)} document(s) out of date with the ledger", file=sys.stderr)
            return EXIT_FAILED
        print(f"{len(syncs)} document(s) up to date")
        return EXIT_OK
    if not changed:
        print(f"{len(syncs)} document(s) up to date")
        return EXIT_OK
    write = args.write
    if not write:
        if sys.stdin.isatty() and sys.stdout.isatty():
            answer = input(f"Write these changes to {len(changed)} document(s)? [y/N] ").strip().lower()
            write = answer in ("y", "yes")
        else:
            named = "".join(f" {shlex.quote(d)}" for d in args.documents)  # as given: the advice runs as printed
            print(f"not written: run `benchdoc sync --write{named}` to apply", file=sys.stderr)
            return EXIT_OK
    if not write:
        print("nothing written")
        return EXIT_OK
    for sync in changed:
        written = write_sync(sync)
        for leftover in written.removed_temporaries:
            print(f"removed {leftover}: a temporary file left by a write that was interrupted")
        wrote = [str(sync.plan.path)] if written.document else []
        if written.charts:
            wrote.append(f"{written.charts} chart file(s)")
        print("wrote " + " and ".join(wrote))
    from benchdoc.lint.state import record_sync_quietly

    record_sync_quietly(config)  # where the ledger stood, for `benchdoc lint --changed`
    return EXIT_OK
