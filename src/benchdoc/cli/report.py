"""`benchdoc report`: one self-contained HTML page of every result, to open or to share."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchdoc.cli._common import add_pooling_arguments, load_project, open_ledger, pooling_from_args, write_output
from benchdoc.errors import UsageError

ORDER = 80
DEFAULT_OUTPUT = "report.html"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report (table, charts, histories, environments, failures)",
        description="Write one static HTML file with every result: the results table (sort by any column, "
        "filter by status), charts, each experiment's history, runs and environments, the environment "
        "differences behind each comparison, and failures with their reasons and log excerpts. CSS, script "
        "and charts are inlined; the page fetches nothing from the network.",
    )
    parser.add_argument("--output", "-o", default=DEFAULT_OUTPUT, metavar="FILE",
                        help=f"where to write the report (default: {DEFAULT_OUTPUT})")
    parser.add_argument("--history-charts", type=int, default=None, metavar="N",
                        help="draw the history chart of at most N experiments (default: 60)")
    add_pooling_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.ledger.store import display_url
    from benchdoc.report import DEFAULT_HISTORY_CHARTS, build_report
    from benchdoc.results import build_results
    target = Path(args.output)
    if target.is_dir():
        raise UsageError(f"{target} is a folder: name the report file, e.g. -o {target / DEFAULT_OUTPUT}")
    if not target.parent.is_dir():
        raise UsageError(f"cannot write {target}: no such folder {target.parent}")
    limit = DEFAULT_HISTORY_CHARTS if args.history_charts is None else args.history_charts
    if limit < 0:
        raise UsageError("--history-charts needs a number >= 0")
    config = load_project(args)
    with open_ledger(config) as ledger:  # open while building: the latency distribution reads kept requests
        results = build_results(config, ledger, pooling=pooling_from_args(args))
        page = build_report(results, source=display_url(config.ledger_url), max_history_charts=limit)
    data = page.encode("utf-8")
    write_output(target, data)
    runs = sum(len(result.runs) for result in results)
    print(f"wrote {target} ({len(data) / 1024:,.0f} KB): {len(results.experiments)} experiments, {runs} runs")
    return 0
