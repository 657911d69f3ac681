"""`benchdoc history`: every run of one experiment, newest first."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from benchdoc.cli._common import (
    add_pooling_arguments,
    console,
    format_number,
    format_when,
    load_project,
    open_ledger,
    pooling_from_args,
    print_json,
)

if TYPE_CHECKING:
    from rich.console import Console

    from benchdoc.config import Config
    from benchdoc.ledger import RequestRow, RunRecord
    from benchdoc.results.reliability import Reliability

ORDER = 40


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "history",
        help="every run of an experiment, newest first",
        description="List every run of EXPERIMENT, newest first: outcome (marked unreliable when more of its "
        "requests failed than [stats] max_error_rate), its failed requests and their most frequent causes, "
        "reason (the cause read from the log first), values, commit and host. A retracted run is shown struck through, with why. "
        "A glob ('eagle3-*') lists each experiment it matches in turn. The runs the current result pools "
        "([stats] pool, or --all-runs/--runs/--since) are marked.",
    )
    parser.add_argument("experiment", help="experiment name, alias or glob (declared, or only recorded)")
    parser.add_argument("--all-metrics", action="store_true", help="every recorded metric, not only those declared")
    parser.add_argument("--requests", action="store_true",
                        help="also list each run's requests, repetition by repetition (as kept in the ledger)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_pooling_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.results import pooled_run_ids
    from benchdoc.results.catalog import select_recorded

    config = load_project(args)
    with open_ledger(config) as ledger:
        experiments = select_recorded(config, ledger, [args.experiment])
        runs = ledger.runs(experiments)
        kept = ledger.requests([r.id for r in runs]) if args.requests else {}
    pooled = pooled_run_ids(config, runs, pooling_from_args(args))
    if args.json:
        from benchdoc.serialize import history_to_list

        data = history_to_list(config, runs, pooled)
        if args.requests:
            for item, r in zip(data, runs):
                item["requests"] = [request_json(row) for row in kept[r.id]]
        print_json(data)
        return 0
    out = console()
    for experiment in experiments:  # a glob lists each experiment it matches in turn
        own = [r for r in runs if r.experiment == experiment]
        if not own:
            out.print(f"no runs of {experiment} yet")
            continue
        print_runs(out, config, experiment, own, all_metrics=args.all_metrics, pooled=pooled)
        if args.requests:
            for r in own:
                print_requests(out, r, kept[r.id])
    return 0


def print_runs(
    out: Console, config: Config, experiment: str, runs: list[RunRecord], *, all_metrics: bool, pooled: set[int]
) -> None:
    """The runs' table, ``pooled`` marked (●) as those its current result pools; at a terminal
    too narrow for every metric, the metrics follow in blocks (run repeated)."""
    from benchdoc.cli._tables import Column, TextTable, print_fitted

    recorded = {m for r in runs for m in r.metrics}
    # A load-generator run records dozens of metrics; the declared ones are what the user reads.
    declared = [m for m in config.metrics if m in recorded]
    metrics = sorted(recorded) if all_metrics or not declared else declared
    label = config.experiments[experiment].label if experiment in config.experiments else experiment  # or only recorded
    from benchdoc.results.reliability import run_reliability

    columns = [Column("run", right=True, role="key"), Column("pooled"), Column("when (UTC)"), Column("outcome"),
               Column("failed requests", right=True)]
    columns += [Column(metric, right=True, role="metric") for metric in metrics]
    columns += [Column("reason / note"), Column("commit"), Column("host")]
    rows = []
    for r in runs:
        cells = []
        for metric in metrics:
            values = r.values(metric)
            digits = config.metric_or_default(metric).digits
            cells.append(", ".join(f"{v:.{digits}f}" for v in values) if values else "—")
        commit = (r.git_commit or "—")[:10] + ("+" if r.git_dirty else "")
        reason = "; ".join(filter(None, [r.explanation or r.note, _causes(r)]))
        outcome = str(r.outcome)
        trust = run_reliability(r, config.stats.max_error_rate)
        if trust is not None and trust.unreliable:
            outcome += " (unreliable)"
        if r.retraction is not None:
            outcome += " (retracted)"
            reason = f"retracted {format_when(r.retraction.at)}: {r.retraction.reason}" + (f"; {reason}" if reason else "")
        rows.append((str(r.id), "●" if r.id in pooled else "", format_when(r.started_at), outcome, _failed_cell(trust),
                     *cells, reason,
                     commit, r.host or "—"))
    styles = tuple("strike" if r.retraction is not None else None for r in runs)
    notes: tuple[str, ...] = ("● pooled into the current result",) if any(r.id in pooled for r in runs) else ()
    if any("(unreliable)" in row[3] for row in rows):
        notes += (f"unreliable: more than {config.stats.max_error_rate * 100:g}% of its requests failed "
                  "([stats] max_error_rate)",)
    print_fitted(out, TextTable(f"{label} — {len(runs)} run(s)", tuple(columns), tuple(rows), styles, notes))


def _causes(run: RunRecord, shown: int = 2) -> str:
    """The failed requests' most frequent causes: '95 × stream ended after 0–12 of 16 tokens ...'."""
    failures = list(run.metadata.failures.items())
    if not failures:
        return ""
    text = "; ".join(f"{count} × {reason}" for reason, count in failures[:shown])
    return text + (f"; and {len(failures) - shown} more cause(s)" if len(failures) > shown else "")


def _failed_cell(trust: Reliability | None) -> str:
    """'95/100 (95.0%; 95 cut short)', or the error rate alone when no counts were recorded."""
    if trust is None:
        return "—"
    if trust.requests is None:
        return f"{trust.rate * 100:.1f}%"
    cut = f"; {trust.cut_short} cut short" if trust.cut_short else ""
    return f"{trust.failed}/{trust.requests} ({trust.rate * 100:.1f}%{cut})"


def request_json(row: RequestRow) -> dict[str, Any]:
    """One kept request as JSON: the whole record, with its repetition."""
    return {"repetition": row.repetition, **row.record, "index": row.index, "ok": row.ok, "error": row.error}


def print_requests(out: Console, run: RunRecord, rows: list[RequestRow]) -> None:
    from rich.table import Table
    from rich.text import Text

    if not rows:
        out.print(f"run {run.id}: no requests kept")
        return
    table = Table(title=f"run {run.id} — {len(rows)} request(s)", title_justify="left")
    for column in ("rep", "#", "outcome", "TTFT ms", "TPOT ms", "E2E ms", "out tokens (from)", "finish", "reason"):
        table.add_column(column, justify="right" if column in ("rep", "#", "TTFT ms", "TPOT ms", "E2E ms") else "left")
    for row in rows:
        record = row.record
        tokens = "—" if row.output_tokens is None else f"{row.output_tokens} ({record.get('output_token_source') or '?'})"
        table.add_row(
            str(row.repetition + 1), str(row.index), "ok" if row.ok else "failed",
            format_number(row.ttft_ms, 2), format_number(record.get("tpot_ms"), 2), format_number(row.e2e_ms, 2),
            tokens, str(record.get("finish_reason") or "—"), Text(row.error or ""),
        )
    out.print(table)
