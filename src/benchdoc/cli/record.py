"""`benchdoc record`: add one run, measured elsewhere, to the ledger."""

from __future__ import annotations

import argparse
import math
from datetime import datetime, timezone

from benchdoc.cli._common import load_project
from benchdoc.errors import UsageError

ORDER = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "record",
        help="record one run of an experiment (values measured elsewhere, or a failure)",
        description="Record one run of EXPERIMENT in the ledger, with the environment it ran in. "
        "Each --metric gives one metric's values; several comma-separated values are the run's repetitions, "
        "all of one server start unless --each-start says each value had its own (comparisons are made "
        "between server starts).",
        epilog="examples:\n"
        "  benchdoc record baseline --metric output_tok_s=92.6\n"
        "  benchdoc record eagle3 --metric output_tok_s=95.8,96.1,96.4 --metric ttft_ms_p50=41,40,42\n"
        "  benchdoc record eagle3 --each-start --metric output_tok_s=95.8,96.1,96.4   three server starts\n"
        '  benchdoc record nccl-tree --failed "CUDA graph incompatible"\n'
        "  benchdoc record baseline -m output_tok_s=92.6 --started 2026-12-01T10:00:00Z --finished 2026-12-01T10:20:00Z\n"
        "\nWithout --started/--finished the run is dated when it is recorded (it starts and ends then).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("experiment", help="experiment name (or alias) from benchdoc.toml")
    parser.add_argument(
        "--metric", "-m", action="append", default=[], metavar="NAME=V[,V...]",
        help="a metric's value(s); repeat for several metrics",
    )
    parser.add_argument("--failed", metavar="REASON", help="record a failed run with its reason (no values)")
    parser.add_argument("--note", help="free text kept with the run")
    parser.add_argument(
        "--each-start", action="store_true",
        help="each value was measured on a server start of its own (default: all on one start)",
    )
    parser.add_argument("--started", metavar="TIME", type=_moment,
                        help="when the measurement began (ISO 8601; without a zone, UTC)")
    parser.add_argument("--finished", metavar="TIME", type=_moment,
                        help="when it ended (ISO 8601; without a zone, UTC); one of the two alone dates both")
    parser.set_defaults(func=run)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date and time like 2026-12-01T10:00:00Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def parse_metric_args(items: list[str]) -> dict[str, list[float]]:
    """Parse `name=v1,v2` arguments into {name: [v1, v2]}, with a clear error for each mistake."""
    from benchdoc.limits import number as ascii_number

    values: dict[str, list[float]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise UsageError(f"--metric {item!r}: expected NAME=VALUE[,VALUE...], e.g. output_tok_s=96.1")
        numbers: list[float] = []
        for part in raw.split(","):
            try:
                number = ascii_number(part)
            except ValueError:
                raise UsageError(f"--metric {item!r}: {part.strip()!r} is not a number") from None
            if not math.isfinite(number):
                raise UsageError(f"--metric {item!r}: {part.strip()!r} is not a finite number")
            numbers.append(number)
        if name in values:
            raise UsageError(f"--metric {name} given twice; give all its values at once: {name}=V1,V2")
        values[name] = numbers
    return values


def run(args: argparse.Namespace) -> int:
    from benchdoc.measured import record_measured

    config = load_project(args)
    try:
        config.experiment(args.experiment)
    except UsageError as err:  # the fix, not only the fault (a likely typo is named already)
        if "did you mean" in err.message:
            raise
        raise UsageError(f"{err.message} in {config.path.name}; declare it there first ([experiments.{args.experiment}] "
                         "with a label)") from None
    recorded = record_measured(config, args.experiment, parse_metric_args(args.metric), failed=args.failed, note=args.note,
                               each_start=args.each_start, started_at=args.started, finished_at=args.finished)
    print(recorded.describe())
    return 0
