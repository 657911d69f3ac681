"""`benchdoc show`: every experiment's current result, status and comparison."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from benchdoc.cli._common import (
    add_pooling_arguments,
    console,
    format_summary,
    format_when,
    load_project,
    open_ledger,
    pooling_from_args,
    print_json,
)

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.results import ExperimentResult, ResultSet

ORDER = 30


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="current results: status, n, medians, comparison against compare_to",
        description="Show each experiment's current result: its status, how many runs and samples, "
        "the median of each metric (± the half-width of its 95% interval), and its comparison against "
        "its compare_to (delta %, its interval, p-value and verdict). By default each experiment's "
        "latest run is used.",
    )
    parser.add_argument(
        "experiments", nargs="*", metavar="EXPERIMENT", help="only these: names, aliases or globs like 'eagle3-*' (default: all)"
    )
    parser.add_argument("--metric", "-m", action="append", help="metric(s) to show, by name or label (default: those declared)")
    parser.add_argument("--all-metrics", action="store_true", help="every recorded metric, not only those declared")
    add_pooling_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.results import build_results

    config = load_project(args)
    metrics = [_metric_name(config, m) for m in args.metric] if args.metric else None
    with open_ledger(config) as ledger:
        results = build_results(
            config, ledger, pooling=pooling_from_args(args), metrics=metrics, all_metrics=args.all_metrics
        )
    if metrics is not None:
        metrics = list(dict.fromkeys(results.metric(m).name for m in metrics))  # each one known, declared or measured
    chosen = results.select(args.experiments) if args.experiments else list(results)
    if args.json:
        from benchdoc.serialize import result_to_dict

        print_json({
            "pooling": results.pooling.describe(),
            "correction": results.correction,
            "experiments": [result_to_dict(r, config) for r in chosen],
        })
        return 0
    present(results, chosen, metrics)
    return 0


def _metric_name(config: Config, name: str) -> str:
    """A declared metric's name for a name or label; any other name as given, checked once measured."""
    from benchdoc.selection import SelectionError, find_metric

    try:
        return find_metric(name, config.metrics).name
    except SelectionError:
        return name


def present(results: ResultSet, chosen: list[ExperimentResult], metrics: list[str] | None) -> None:
    from rich.table import Table

    from benchdoc.results.words import vs_line

    config = results.config
    out = console()
    shown_metrics = metrics or sorted(
        {m for r in chosen for m in r.summaries}, key=lambda m: (m != config.primary_metric, m not in config.metrics, m)
    )
    table = Table(title_justify="left", title=f"{len(chosen)} experiment(s) — {results.pooling.describe()}")
    table.add_column("experiment")
    table.add_column("status")
    table.add_column("runs", justify="right")
    for metric in shown_metrics:
        spec = config.metric_or_default(metric)
        table.add_column(f"{spec.label}" + (f" [{spec.unit}]" if spec.unit and spec.unit != spec.label else ""), justify="right")
    primary = config.primary_metric if config.primary_metric in shown_metrics else (shown_metrics[0] if shown_metrics else None)
    table.add_column("vs compare_to" + (f" ({config.metric_or_default(primary).label})" if primary else ""))
    table.add_column("measured (UTC)")
    for result in chosen:
        cells = [format_summary(result.summaries.get(m), config.metric_or_default(m).digits) for m in shown_metrics]
        vs = "—"
        comparison = result.comparisons.get(primary) if primary else None
        if primary and comparison is not None:
            spec = config.metric_or_default(primary)
            vs = vs_line(comparison, spec, result.compare_to or "")
        elif result.compare_to:
            vs = f"vs {result.compare_to}: no data"
        status = f"{result.status}" + (f" ({result.reason})" if result.reason else "")
        if result.config_changed:
            status += " (config changed since)"
        n = f"{len(result.pooled)}/{len(result.runs)}" if result.runs else "0"
        table.add_row(result.label, status, n, *cells, vs, format_when(result.measured_at))
    out.print(table)
    notes = []
    if primary and results.correction_note(primary):
        notes.append(f"p-values use the {results.correction_note(primary)}")
    notes.append("runs = pooled/recorded; ± is the half-width of the 95% interval of the median")
    if any(r.config_changed for r in chosen):
        notes.append("config changed since: benchdoc.toml now runs these differently than their latest run did; "
                     "rerun them with: benchdoc run --missing")
    for result in chosen:
        notes.extend(result.warnings)
    for note in notes:
        out.print(note, style="dim")
