"""What `sync`, `lint` and `check` print about documents: diffs, stale regions, findings, errors."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchdoc.cli._common import print_json
from benchdoc.errors import EXIT_DOCUMENT, EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from benchdoc.docs.project import DocumentSync
    from benchdoc.lint import DocumentLint


def print_syncs(syncs: Sequence[DocumentSync], *, show_diffs: bool, check: bool) -> int:
    """Print diffs, stale regions with how to fix them, and errors; return the number of problems."""
    from benchdoc.docs.diff import colorize_diff

    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    problems = 0
    for sync in syncs:
        plan = sync.plan
        if show_diffs and plan.diff:
            sys.stdout.write(colorize_diff(plan.diff) if colour else plan.diff)
        for region_plan in plan.regions:
            if region_plan.status.value == "stale" and check:
                print(region_plan.summary())
            if region_plan.hand_edit_diff and region_plan.status.value == "hand-edited":
                if show_diffs:
                    sys.stdout.write(region_plan.hand_edit_diff)
                elif region_plan.error is None:  # --force --quiet: one line, not the diff
                    print(f"{region_plan.region.location}: overwriting a {region_plan.region.kind} region edited by hand")
        for path in sync.stale_files:
            if check:
                print(f"{path}: chart file is out of date: regenerate it with `benchdoc sync --write`")
        for error in plan.errors:
            print(f"benchdoc: error: {error}", file=sys.stderr)
            problems += 1
        if not plan.regions and not plan.errors:
            from benchdoc.docs.project import region_hint

            print(f"benchdoc: {plan.path} has no managed region: add {region_hint(plan.path)}", file=sys.stderr)
    return problems


def print_lint(results: Sequence[DocumentLint], *, as_json: bool, summary: bool = True) -> int:
    """Print findings (text or JSON), document errors and (with ``summary``) a closing line; return the exit code."""
    findings = [f for result in results for f in result.findings]
    errors = [e for result in results for e in result.errors]
    if as_json:
        print_json([f.to_json() for f in findings])
    else:
        for finding in findings:
            section = f" [{finding.section}]" if finding.section else ""
            print(f"{finding.location}: {finding.kind}{section}: \"{finding.text}\" {finding.message}")
            print(f"    fix: {finding.fix}")
    for error in errors:
        print(f"benchdoc: error: {error}", file=sys.stderr)
    if errors:
        return EXIT_DOCUMENT
    if findings:
        documents = len({f.file for f in findings})
        if summary:
            print(f"benchdoc lint: {len(findings)} stale statement(s) in {documents} document(s)", file=sys.stderr)
        return EXIT_FAILED
    if not as_json and summary:
        print(f"benchdoc lint: no stale prose in {len(results)} document(s)")
    return EXIT_OK
