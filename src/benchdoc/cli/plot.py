"""`benchdoc plot`: write one chart to a file, for slides and chats, without a document."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchdoc.cli._common import add_pooling_arguments, load_project, open_ledger, pooling_from_args, write_output
from benchdoc.errors import UsageError

ORDER = 75
# As benchdoc.plots.CHART_KINDS; kept here so --help imports nothing heavy.
KINDS = ("bar", "before-after", "history", "latency-throughput", "latency-cdf")
FORMATS = ("svg", "png")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plot",
        help="write a chart (SVG or PNG) of the results to a file",
        description="Draw one chart from the ledger: 'bar' (a metric across experiments: medians of the pooled runs "
        "with 95% intervals, the reference as a line, failed and untested experiments as labelled gaps), "
        "'before-after' (superseded experiments next to what replaced them), 'history' (one experiment's runs "
        "over time), 'latency-throughput' (TTFT and TPOT against throughput over load sweeps) or 'latency-cdf' "
        "(the distribution of TTFT and TPOT per request, from the requests kept with the pooled runs; "
        "--metric ttft_ms or tpot_ms draws one). The format follows the file's extension. The same ledger "
        "always gives the same bytes.",
    )
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT",
                        help="experiment names, aliases or glob patterns such as 'eagle3-*' (bar default: every "
                        "experiment not superseded; history: exactly one)")
    parser.add_argument("--kind", "-k", choices=KINDS, default="bar", help="chart kind (default: bar)")
    parser.add_argument("--metric", "-m", help="metric to chart (default: the primary metric)")
    parser.add_argument("--output", "-o", required=True, metavar="FILE",
                        help="where to write the chart: FILE.svg or FILE.png ('-' for SVG on standard output)")
    parser.add_argument("--levels", action="store_true",
                        help="bar: draw each load level of a sweep (EXP@rate=R) as a bar too (default: left out; "
                        "--kind latency-throughput draws them)")
    parser.add_argument("--format", choices=FORMATS, help="format when FILE has no telling extension (default: svg)")
    add_pooling_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.plots import chart
    from benchdoc.results import build_results

    fmt = output_format(args.output, args.format)
    config = load_project(args)
    with open_ledger(config) as ledger:  # open while charting: a latency-cdf chart reads kept requests
        results = build_results(config, ledger, pooling=pooling_from_args(args))
        data, image = chart(args.kind, results, args.metric, args.experiments, fmt=fmt, levels=args.levels)
    if args.output == "-":
        sys.stdout.buffer.write(image)
        sys.stdout.flush()
        return 0
    write_output(Path(args.output), image)
    target = Path(args.output)
    print(f"wrote {target} ({len(image):,} bytes): {data.title}")
    if data.simulated:
        print("note: these numbers were measured against the built-in simulator, not real hardware")
    return 0


def output_format(output: str, given: str | None) -> str:
    """The chart format: --format, else the output file's extension; they must agree."""
    suffix = Path(output).suffix.lower().lstrip(".") if output != "-" else ""
    if given and suffix in FORMATS and suffix != given:
        raise UsageError(f"--format {given} does not match the extension of {output}")
    if given:
        return given
    if suffix in FORMATS:
        return suffix
    if output == "-" or not suffix:
        return "svg"
    raise UsageError(f"cannot tell the chart format from '{output}': use a .svg or .png file, or --format")
