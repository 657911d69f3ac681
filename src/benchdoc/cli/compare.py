"""`benchdoc compare`: one experiment against another, benchstat-style."""

from __future__ import annotations

import argparse

from benchdoc.cli._common import add_pooling_arguments, console, load_project, open_ledger, pooling_from_args, print_json
from benchdoc.errors import UsageError

ORDER = 35


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare an experiment against another (delta, interval, p-value, verdict)",
        description="Compare CANDIDATE against BASELINE (default: the candidate's compare_to) for each "
        "metric both have: both medians with their 95% intervals, the shift % (median of the pairwise ratios) with "
        "the interval that inverts the rank test, "
        "the two-sided Mann-Whitney U p-value and the verdict (~ when the difference is noise). "
        "A single comparison is not corrected for multiple comparisons; `show` corrects across the project.",
    )
    parser.add_argument("candidate", help="experiment to judge")
    parser.add_argument("baseline", nargs="?", help="experiment to judge against (default: its compare_to)")
    parser.add_argument("--metric", "-m", action="append", help="metric(s) to compare (default: all shared)")
    add_pooling_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.results import build_results, environment_differences
    from benchdoc.serialize import comparison_to_dict
    from benchdoc.stats import compare

    config = load_project(args)
    candidate = config.experiment(args.candidate).name
    baseline_name = args.baseline or config.experiments[candidate].compare_to
    if not baseline_name:
        raise UsageError(f"{candidate} has no compare_to; name the baseline: benchdoc compare {candidate} BASELINE")
    baseline = config.experiment(baseline_name).name
    with open_ledger(config) as ledger:
        results = build_results(config, ledger, pooling=pooling_from_args(args))
    a, b = results.experiments[candidate], results.experiments[baseline]
    for side in (a, b):
        if not side.summaries:
            why = f"its latest run failed: {side.reason}" if side.status == "Failed" else "it has no successful runs"
            raise UsageError(f"cannot compare: {side.name} has no results to compare ({why})")
    if args.metric:
        metrics = [config.metric(m).name for m in args.metric]
    else:
        # Every shared metric a ratio can be taken of (an error rate of 0 cannot).
        metrics = [m for m in a.summaries if m in b.summaries and b.summaries[m].median > 0]
        declared = [m for m in metrics if m in config.metrics]
        metrics = declared or metrics
    if not metrics:
        raise UsageError(f"{candidate} and {baseline} share no metric")
    comparisons = {}
    for metric in metrics:
        if metric not in a.summaries or metric not in b.summaries:
            raise UsageError(f"metric '{metric}' is not recorded for both {candidate} and {baseline}")
        if b.summaries[metric].median <= 0:
            raise UsageError(f"cannot compare {metric}: {baseline}'s median is {b.summaries[metric].median:g}, and a ratio needs a positive baseline")
        spec = config.metric_or_default(metric)
        comparisons[metric] = compare(
            a.summaries[metric].values,
            b.summaries[metric].values,
            direction=spec.direction,
            alpha=config.stats.alpha,
            confidence=config.stats.confidence,
            equivalence_margin=spec.equivalence_margin,
        )
    env = environment_differences(a.pooled, b.pooled)
    if args.json:
        print_json({
            "candidate": candidate,
            "baseline": baseline,
            "pooling": results.pooling.describe(),
            "comparisons": {
                m: comparison_to_dict(c, config.metric_or_default(m).better_word, config.metric_or_default(m).worse_word)
                for m, c in comparisons.items()
            },
            "environment_diff": [d.text() for d in env],
        })
        return 0
    present(config, a, b, comparisons, env)
    return 0


def present(config, a, b, comparisons, env) -> None:  # type: ignore[no-untyped-def]
    from rich.table import Table

    out = console()
    table = Table(title_justify="left", title=f"{a.label}  vs  {b.label}")
    table.add_column("metric")
    table.add_column(b.name, justify="right")
    table.add_column(a.name, justify="right")
    table.add_column("delta", justify="right")
    table.add_column(f"{int(config.stats.confidence * 100)}% interval", justify="right")
    table.add_column("p", justify="right")
    table.add_column("verdict")
    from benchdoc.stats import format_p

    for metric, c in comparisons.items():
        spec = config.metric_or_default(metric)
        interval = (
            f"[{c.delta_ci_low:+.1f}%, {c.delta_ci_high:+.1f}%]" if c.delta_ci_low is not None and c.delta_ci_high is not None else "—"
        )
        table.add_row(
            f"{spec.label} ({'higher' if spec.direction == 'higher' else 'lower'} is better)",
            _cell(c.baseline, spec.digits),
            _cell(c.candidate, spec.digits),
            "~" if c.verdict == "same" else f"{c.delta_pct:+.1f}%",
            interval,
            f"{format_p(c.p_value)} (n={c.candidate.n}+{c.baseline.n})",
            c.verdict_text(spec.better_word, spec.worse_word),
        )
    out.print(table)
    if env:
        out.print("environment: " + "; ".join(d.text() for d in env[:8]) + (" …" if len(env) > 8 else ""))
    for warning in (*a.warnings, *b.warnings):
        out.print(f"[yellow]warning:[/yellow] {warning}")
    out.print("[dim]test: Mann-Whitney U, two-sided; delta: median of the pairwise ratios, with the interval that inverts the test[/dim]")


def _cell(summary, digits: int) -> str:  # type: ignore[no-untyped-def]
    from benchdoc.cli._common import format_summary

    return f"{format_summary(summary, digits)} (n={summary.n})"
