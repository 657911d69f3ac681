"""`benchdoc bench`'s request extras and arrival options (--header, --extra-body,
--ramp-up, --trace, --result-dir), and the server's own figures in its summary."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from benchdoc.errors import UsageError


def register(parser: argparse.ArgumentParser) -> None:
    extra = parser.add_argument_group("request extras")
    extra.add_argument("--header", action="append", default=[], metavar="NAME:VALUE",
                       help="an HTTP header sent with every request (repeatable); a value that looks like a "
                       "secret is recorded as *** (vLLM bench serve --header, AIPerf --header)")
    extra.add_argument("--extra-body", metavar="JSON",
                       help="a JSON object merged into every request body, e.g. '{\"top_p\": 0.9, "
                       "\"chat_template_kwargs\": {\"enable_thinking\": false}}' (vLLM --extra-body, "
                       "sglang --extra-request-body, AIPerf --extra-inputs)")
    extra.add_argument("--multi-turn", action="store_true",
                       help="chat on a ShareGPT --dataset: each stream holds a conversation and sends its turns "
                       "in order, each with the conversation so far and the server's own answers (vLLM's and "
                       "SGLang's multi-turn benchmarks); --requests counts turns")
    extra.add_argument("--result-dir", metavar="DIR",
                       help="also write each run's summary.json and requests.jsonl in a new folder under DIR "
                       "(vLLM --save-result --result-dir, AIPerf's artifacts folder)")
    filters = parser.add_argument_group(
        "dataset length filters",
        "None by default. vLLM's ShareGPT reader drops entries under 4 tokens, a prompt over 1024 or both over "
        "2048; SGLang's under 2, with the same bounds.")
    filters.add_argument("--dataset-min-tokens", type=int, default=0, metavar="N",
                         help="skip entries whose prompt or answer is shorter than N tokens (words without a tokenizer)")
    filters.add_argument("--dataset-max-input", type=int, metavar="N", help="skip entries whose prompt is longer than N")
    filters.add_argument("--dataset-max-total", type=int, metavar="N",
                         help="skip entries whose prompt and answer together are longer than N")
    arrivals = parser.add_argument_group("arrivals")
    arrivals.add_argument("--ramp-up", type=float, metavar="S",
                          help="open loop: the rate climbs linearly from 0 to --rate over the first S seconds "
                          "(vLLM --ramp-up-strategy linear)")
    arrivals.add_argument("--trace", metavar="FILE",
                          help="replay a JSONL trace: each line's timestamp (ms) and input_length and "
                          "output_length (Mooncake's layout, as sglang --dataset-name mooncake); instead of "
                          "--rate/--concurrency/--requests/--duration")


def spec_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The WorkloadSpec fields these options set (each checked, one clear line when wrong)."""
    from benchdoc.workloads.extras import parse_extra_body, parse_header

    headers = []
    for text in args.header:
        try:
            headers.append(parse_header(text))
        except ValueError as err:
            raise UsageError(f"--header: {err}") from None
    if args.extra_body is not None:
        try:
            parse_extra_body(args.extra_body)
        except ValueError as err:
            raise UsageError(f"--extra-body: {err}") from None
    if args.result_dir:
        from benchdoc.workloads.result_files import check_result_dir

        check_result_dir(args.result_dir)
    if args.trace is not None:
        given = [flag for flag, value in (("--rate", args.rate), ("--concurrency", args.concurrency),
                                          ("--requests", args.requests), ("--duration", args.duration),
                                          ("--ramp-up", args.ramp_up)) if value is not None]
        if given or args.find_capacity:
            raise UsageError(f"--trace sets the arrivals itself: give no {(given or ['--find-capacity'])[0]}")
    return {"headers": tuple(headers), "extra_body": args.extra_body, "ramp_up_s": args.ramp_up,
            "trace": args.trace, "multi_turn": args.multi_turn, "dataset_min_tokens": args.dataset_min_tokens,
            "dataset_max_input": args.dataset_max_input, "dataset_max_total": args.dataset_max_total}


def save(args: argparse.Namespace, name: str, result: Any) -> None:
    """With --result-dir, the run's files in their own folder (said on stderr)."""
    if not args.result_dir:
        return

    from benchdoc.workloads.result_files import check_result_dir, write_result_files

    folder = write_result_files(check_result_dir(args.result_dir), name, result)
    print(f"wrote {folder}/summary.json and requests.jsonl", file=sys.stderr)


def print_server_metrics(out: Any, series: Any) -> None:
    """The server's own figures over the run (its /metrics every second): mean and peak."""
    from rich.table import Table

    from benchdoc.cli._common import format_number
    from benchdoc.workloads.server_metrics import LABELS

    summary = series.summary()
    if not summary:
        return
    table = Table(show_edge=False, header_style="bold")
    table.add_column(f"server ({series.dialect} /metrics, {len(series.times_s)} scrapes)")
    table.add_column("mean", justify="right")
    table.add_column("max", justify="right")
    for name, figures in summary.items():
        digits = 1 if name in ("running", "waiting") else 3
        table.add_row(LABELS[name], format_number(figures["mean"], digits), format_number(figures["max"], digits))
    out.print(table)
