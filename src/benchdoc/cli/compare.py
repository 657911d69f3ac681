"""`benchdoc compare`: one experiment against another, benchstat-style."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from benchdoc.cli._common import add_pooling_arguments, console, load_project, open_ledger, pooling_from_args, print_json, styled
from benchdoc.errors import UsageError
from benchdoc.results import TEST_NAME, environment_differences

if TYPE_CHECKING:
    from benchdoc.envdiff import EnvDifference
    from benchdoc.results import ExperimentResult, PairComparison, ResultSet, Summary

ORDER = 35


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare an experiment against another (delta, interval, p-value, verdict)",
        description="Compare CANDIDATE against BASELINE (default: the candidate's compare_to) for each "
        "metric both have: both medians with their 95% intervals, the shift % (median of the pairwise ratios) with "
        "the interval that inverts the rank test, "
        "the two-sided Mann-Whitney U p-value and the verdict (~ when the difference is noise). "
        "An experiment against its compare_to reads exactly as in `show`, documents and the lint: its p is "
        "corrected across the project's comparisons (the uncorrected p is shown beside it). Any other pair is "
        "computed with the same settings but is not part of that family, and says so.",
    )
    parser.add_argument("candidate", help="experiment to judge")
    parser.add_argument("baseline", nargs="?", help="experiment to judge against (default: its compare_to)")
    parser.add_argument("--metric", "-m", action="append", help="metric(s) to compare, by name or label (default: all shared)")
    add_pooling_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.results import build_results
    from benchdoc.serialize import comparison_to_dict

    config = load_project(args)
    with open_ledger(config) as ledger:
        results = build_results(config, ledger, pooling=pooling_from_args(args))
    a = results[args.candidate]
    if not args.baseline and not a.compare_to:
        raise UsageError(f"{a.name} has no compare_to; name the baseline: benchdoc compare {a.name} BASELINE")
    b = results[args.baseline or a.compare_to or ""]
    if args.metric:
        metrics = list(dict.fromkeys(results.metric(m).name for m in args.metric))
    else:
        metrics = results.shared_metrics(a.name, b.name)
    pairs = [results.compare(a.name, b.name, metric) for metric in metrics]
    env = environment_differences(a.pooled, b.pooled)
    if args.json:
        print_json({
            "candidate": a.name,
            "baseline": b.name,
            "pooling": results.pooling.describe(),
            "comparisons": {
                pair.metric: {
                    **comparison_to_dict(pair.comparison, config.metric_or_default(pair.metric)),
                    "corrected": pair.corrected,
                    "correction_note": pair.note,
                }
                for pair in pairs
            },
            "environment_diff": [d.text() for d in env],
        })
        return 0
    present(results, a, b, pairs, env)
    return 0


def present(
    results: ResultSet, a: ExperimentResult, b: ExperimentResult, pairs: list[PairComparison], env: list[EnvDifference]
) -> None:
    from rich.table import Table

    from benchdoc.results.words import delta_text, format_p, verdict_text

    config = results.config
    out = console()
    adjusted = any(pair.comparison.p_used != pair.comparison.p_value for pair in pairs)
    table = Table(title_justify="left", title=f"{a.label}  vs  {b.label}")
    table.add_column("metric")
    table.add_column(b.name, justify="right")
    table.add_column(a.name, justify="right")
    table.add_column("delta", justify="right")
    table.add_column(f"{int(config.stats.confidence * 100)}% interval", justify="right")
    table.add_column("p", justify="right")
    if adjusted:
        table.add_column("p uncorrected", justify="right")
    table.add_column("verdict")
    for pair in pairs:
        c = pair.comparison
        spec = config.metric_or_default(pair.metric)
        if c.verdict == "undecided":
            interval = "—"  # a sequential test that stopped undecided shows no direction
        elif c.delta_ci_low is not None and c.delta_ci_high is not None:
            interval = f"[{c.delta_ci_low:+.1f}%, {c.delta_ci_high:+.1f}%]"
        else:
            interval = c.delta_ci_reason or "—"
        cells = [
            f"{spec.label} ({'higher' if spec.direction == 'higher' else 'lower'} is better)",
            _cell(c.baseline, spec.digits),
            _cell(c.candidate, spec.digits),
            delta_text(c),
            interval,
            f"{format_p(c.p_used)}{c.p_label} (n={c.candidate.n}+{c.baseline.n})",
        ]
        if adjusted:
            cells.append(format_p(c.p_value) if c.p_used != c.p_value else "—")
        table.add_row(*cells, verdict_text(c, spec))
    out.print(table)
    if env:
        out.print("environment: " + "; ".join(d.text() for d in env[:8]) + (" …" if len(env) > 8 else ""))
    for warning in (*a.warnings, *b.warnings):
        out.print(styled(("warning:", "yellow"), " ", warning))
    for note in dict.fromkeys(f"{pair.metric}: {pair.note}" if len(pairs) > 1 else pair.note for pair in pairs):
        out.print(f"p: {note}", style="dim")
    out.print(f"test: {TEST_NAME}; delta: median of the pairwise ratios, with the interval that inverts the test", style="dim")


def _cell(summary: Summary, digits: int) -> str:
    from benchdoc.cli._common import format_summary

    return f"{format_summary(summary, digits)} (n={summary.n})"
