"""`benchdoc record`: add one run, measured elsewhere, to the ledger."""

from __future__ import annotations

import argparse
import math

from benchdoc.cli._common import load_project, open_ledger
from benchdoc.errors import UsageError, ValidationError

ORDER = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "record",
        help="record one run of an experiment (values measured elsewhere, or a failure)",
        description="Record one run of EXPERIMENT in the ledger, with the environment it ran in. "
        "Each --metric gives one metric's values; several comma-separated values are the run's repetitions.",
        epilog="examples:\n"
        "  benchdoc record baseline --metric output_tok_s=92.6\n"
        "  benchdoc record eagle3 --metric output_tok_s=95.8,96.1,96.4 --metric ttft_ms_p50=41,40,42\n"
        '  benchdoc record nccl-tree --failed "CUDA graph incompatible"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("experiment", help="experiment name (or alias) from benchdoc.toml")
    parser.add_argument(
        "--metric", "-m", action="append", default=[], metavar="NAME=V[,V...]",
        help="a metric's value(s); repeat for several metrics",
    )
    parser.add_argument("--failed", metavar="REASON", help="record a failed run with its reason (no values)")
    parser.add_argument("--note", help="free text kept with the run")
    parser.set_defaults(func=run)


def parse_metric_args(items: list[str]) -> dict[str, list[float]]:
    """Parse `name=v1,v2` arguments into {name: [v1, v2]}, with a clear error for each mistake."""
    values: dict[str, list[float]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise UsageError(f"--metric {item!r}: expected NAME=VALUE[,VALUE...], e.g. output_tok_s=96.1")
        numbers: list[float] = []
        for part in raw.split(","):
            try:
                number = float(part)
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
    from benchdoc.config import did_you_mean
    from benchdoc.ledger import NewRun, Sample
    from benchdoc.provenance import provenance

    config = load_project(args)
    experiment = config.experiment(args.experiment).name
    metrics = parse_metric_args(args.metric)
    if args.failed is not None and metrics:
        raise UsageError("a failed run has no values: give --failed or --metric, not both")
    if args.failed is None and not metrics:
        raise UsageError("nothing to record: give --metric NAME=VALUE or --failed REASON")
    if args.failed is not None and not args.failed.strip():
        raise UsageError("--failed needs a reason, e.g. --failed \"CUDA out of memory\"")
    if config.metrics:
        for name in metrics:
            if name not in config.metrics:
                raise UsageError(
                    f"metric '{name}' is not declared in {config.path.name}{did_you_mean(name, config.metrics)}"
                )
    for name, values in metrics.items():
        problem = next(filter(None, (config.metric_or_default(name).value_problem(v) for v in values)), None)
        if problem:
            raise ValidationError(f"--metric {name}: {problem}; nothing was recorded")
    run = provenance(config.root).stamp(
        NewRun(
            experiment=experiment,
            outcome="failed" if args.failed is not None else "ok",
            samples=[Sample(name, value, index) for name, values in metrics.items() for index, value in enumerate(values)],
            failure_reason=args.failed,
            note=args.note,
            source="record",
        )
    )
    with open_ledger(config, write=True) as ledger:
        run_id = ledger.record_run(run)
    if args.failed is not None:
        print(f"recorded run {run_id}: {experiment} failed ({args.failed})")
    else:
        parts = ", ".join(f"{name} n={len(values)}" for name, values in metrics.items())
        print(f"recorded run {run_id}: {experiment} ({parts})")
    return 0
