"""`benchdoc compare`: one experiment against another, benchstat-style."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from benchdoc.cli._common import add_pooling_arguments, console, load_project, open_ledger, pooling_from_args, print_json, styled
from benchdoc.errors import UsageError
from benchdoc.mdtable import escape_cell

if TYPE_CHECKING:
    from benchdoc.envdiff import EnvDifference
    from benchdoc.results import ExperimentResult, PairComparison, ResultSet

ORDER = 35


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare an experiment against another (delta, interval, p-value, verdict)",
        description="Compare CANDIDATE against BASELINE (default: the candidate's compare_to) for each "
        "metric both have: both medians with their 95% intervals, the shift % (the ratio of the geometric means of "
        "the server starts' means) with its interval at the level the verdict is decided at, Welch's two-sided "
        "p-value on the per-start means and the verdict (~ inconclusive; one server start a side cannot be told "
        "from its start and says so). "
        "An experiment against its compare_to reads exactly as in `show`, documents and the lint: its p is "
        "corrected across the project's comparisons (the uncorrected p is shown beside it). Any other pair is "
        "computed with the same settings but is not part of that family, and says so.",
    )
    parser.add_argument("candidate", help="experiment to judge, or a run id (41 or #41: that run's repetitions)")
    parser.add_argument("baseline", nargs="?", help="experiment to judge against (default: its compare_to), or a "
                        "run id when CANDIDATE is one")
    parser.add_argument("--metric", "-m", action="append", help="metric(s) to compare, by name or label (default: all shared)")
    add_pooling_arguments(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--markdown", action="store_true",
                        help="print a GitHub-flavoured Markdown table to paste in a pull request")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.cli._common import metric_name
    from benchdoc.results import build_results

    config = load_project(args)
    # A metric asked for by name is summarised even when benchdoc.toml does not declare it.
    asked = [metric_name(config, m) for m in args.metric] if args.metric else None
    with open_ledger(config) as ledger:
        results = build_results(config, ledger, pooling=pooling_from_args(args), metrics=asked)
        runs = _run_ids(results, args.candidate, args.baseline)
        if runs is not None:
            from benchdoc.results.runpairs import compare_runs

            a, b, pairs = compare_runs(results, ledger.run(runs[0]), ledger.run(runs[1]), args.metric or ())
    if runs is not None:
        return _show(args, results, a, b, pairs)
    a = results[args.candidate]
    if not args.baseline and not a.compare_to:
        raise UsageError(f"{a.name} has no compare_to; name the baseline: benchdoc compare {a.name} BASELINE")
    b = results[args.baseline or a.compare_to or ""]
    if args.metric:
        metrics = list(dict.fromkeys(results.metric(m).name for m in args.metric))
    else:
        metrics = results.shared_metrics(a.name, b.name)
    pairs = [results.compare(a.name, b.name, metric) for metric in metrics]
    return _show(args, results, a, b, pairs)


def _run_ids(results: ResultSet, candidate: str, baseline: str | None) -> tuple[int, int] | None:
    """Two run ids (41, #41) where neither names an experiment; None for experiments."""
    ids = []
    for text in (candidate, baseline):
        if text is None:
            return None
        bare = text.removeprefix("#")
        if not bare.isdigit():
            return None
        try:
            results[text]
        except UsageError:
            ids.append(int(bare))
        else:
            return None  # an experiment named by digits stays an experiment
    return ids[0], ids[1]


def _show(args: argparse.Namespace, results: ResultSet, a: ExperimentResult, b: ExperimentResult,
          pairs: list[PairComparison]) -> int:
    from benchdoc.results import environment_differences
    from benchdoc.serialize import pairs_to_dict

    env = environment_differences(a.pooled, b.pooled)
    if args.json:
        print_json(pairs_to_dict(results, a, b, pairs, env))
        return 0
    present(results, a, b, pairs, env, markdown=args.markdown)
    return 0


def present(
    results: ResultSet, a: ExperimentResult, b: ExperimentResult, pairs: list[PairComparison], env: list[EnvDifference],
    *, markdown: bool = False,
) -> None:
    from benchdoc.cli._comparetable import compare_table
    from benchdoc.cli._tables import markdown as markdown_text
    from benchdoc.cli._tables import print_fitted

    table = compare_table(results, a, b, pairs)
    environment = "environment: " + "; ".join(d.text() for d in env[:8]) + (
        f"; and {len(env) - 8} more" if len(env) > 8 else "")
    warnings = [*a.warnings, *b.warnings]
    if markdown:
        sys.stdout.write(markdown_text(table))
        for line in ([environment] if env else []) + [f"warning: {w}" for w in warnings]:
            sys.stdout.write(f"\n{escape_cell(line)}\n")
        return
    out = console()
    print_fitted(out, replace(table, notes=()))
    if env:
        out.print(environment)
    for warning in warnings:
        out.print(styled(("warning:", "yellow"), " ", warning))
    for note in table.notes:
        out.print(note, style="dim")
