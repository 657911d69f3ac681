"""`benchdoc history`: every run of one experiment, newest first."""

from __future__ import annotations

import argparse

from benchdoc.cli._common import console, format_when, load_project, open_ledger, print_json

ORDER = 40


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "history",
        help="every run of an experiment, newest first",
        description="List every run of EXPERIMENT, newest first: outcome, reason, values, commit and host.",
    )
    parser.add_argument("experiment", help="experiment name (or alias)")
    parser.add_argument("--all-metrics", action="store_true", help="every recorded metric, not only those declared")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.table import Table

    config = load_project(args)
    experiment = config.experiment(args.experiment).name
    with open_ledger(config) as ledger:
        runs = ledger.runs(experiment)
    if args.json:
        print_json([r.to_json() for r in runs])
        return 0
    out = console()
    if not runs:
        out.print(f"no runs of {experiment} yet")
        return 0
    recorded = {m for r in runs for m in r.metrics}
    # A load-generator run records dozens of metrics; the declared ones are what the user reads.
    declared = [m for m in config.metrics if m in recorded]
    metrics = sorted(recorded) if args.all_metrics or not declared else declared
    table = Table(title=f"{config.experiments[experiment].label} — {len(runs)} run(s)", title_justify="left")
    for column in ("run", "when (UTC)", "outcome", *metrics, "reason / note", "commit", "host"):
        table.add_column(column, justify="right" if column in metrics or column == "run" else "left")
    for r in runs:
        cells = []
        for metric in metrics:
            values = r.values(metric)
            digits = config.metric_or_default(metric).digits
            cells.append(", ".join(f"{v:.{digits}f}" for v in values) if values else "—")
        commit = (r.git_commit or "—")[:10] + ("+" if r.git_dirty else "")
        reason = r.failure_reason or r.note or ""
        table.add_row(str(r.id), format_when(r.started_at), r.outcome, *cells, reason, commit, r.host or "—")
    out.print(table)
    return 0
