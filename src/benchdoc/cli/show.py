"""`benchdoc show`: every experiment's current result, status and comparison."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from benchdoc.cli._common import (
    add_pooling_arguments,
    console,
    load_project,
    metric_name,
    open_ledger,
    pooling_from_args,
    print_json,
)

if TYPE_CHECKING:
    from benchdoc.results import ExperimentResult, ResultSet

ORDER = 30


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="current results: status, n, medians, comparison against compare_to",
        description="Show each experiment's current result: its status, how many runs are pooled, "
        "the median of each metric with its 95% interval (± its half-width when both sides round alike, "
        "else the interval itself, [-2.5%, +4.0%]; † marks a median whose values include outliers, listed "
        "under the table), and its comparison against its compare_to (delta %, verdict, and the p-value "
        "corrected across the project, as `compare` and the documents give it). By default each "
        "experiment's latest run is used. At a terminal too narrow for every metric, the metrics are "
        "shown in further blocks, the experiment repeated.",
    )
    parser.add_argument(
        "experiments", nargs="*", metavar="EXPERIMENT", help="only these: names, aliases or globs like 'eagle3-*' (default: all)"
    )
    parser.add_argument("--metric", "-m", action="append", help="metric(s) to show, by name or label (default: those declared)")
    parser.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                        help="only experiments whose variable KEY (a sweep's matrix keys among them; or server, "
                        "workload, role, sweep, status, rate, concurrency) is VALUE, a glob allowed; repeatable: all must hold")
    parser.add_argument("--all-metrics", action="store_true", help="every recorded metric, not only those declared")
    add_pooling_arguments(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON instead of a table")
    output.add_argument("--markdown", action="store_true",
                        help="print a GitHub-flavoured Markdown table to paste in a pull request")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.results import build_results

    config = load_project(args)
    metrics = [metric_name(config, m) for m in args.metric] if args.metric else None
    with open_ledger(config) as ledger:
        results = build_results(
            config, ledger, pooling=pooling_from_args(args), metrics=metrics, all_metrics=args.all_metrics
        )
    if metrics is not None:
        metrics = list(dict.fromkeys(results.metric(m).name for m in metrics))  # each one known, declared or measured
    chosen = results.select(args.experiments) if args.experiments else list(results)
    if args.where:
        chosen = results.where(chosen, args.where)
    from benchdoc.cli._common import warn

    for result in chosen:  # one line each, on stderr: the table or the JSON stays clean
        if result.mixed_workloads is not None:
            warn(result.mixed_workloads.sentence())
    if args.json:
        from benchdoc.serialize import show_to_dict

        print_json(show_to_dict(results, chosen))
        return 0
    present(results, chosen, metrics, markdown=args.markdown)
    return 0


def present(results: ResultSet, chosen: list[ExperimentResult], metrics: list[str] | None, *, markdown: bool = False) -> None:
    from benchdoc.cli._showtable import show_table
    from benchdoc.cli._tables import markdown as markdown_text
    from benchdoc.cli._tables import print_fitted

    config = results.config
    shown_metrics = metrics or sorted(
        {m for r in chosen for m in r.summaries}, key=lambda m: (m != config.primary_metric, m not in config.metrics, m)
    )
    table = show_table(results, chosen, shown_metrics)
    if markdown:
        sys.stdout.write(markdown_text(table))
    else:
        print_fitted(console(), table)
