"""`benchdoc bench`: measure a streaming LLM server once, print the result, optionally record it.

This module calls: its options and the spec they make are in ``_bench_args``, what one
measurement shows in ``_bench_summary``, sweeps and capacity searches in ``_bench_load``,
repetitions in ``_bench_reps``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from benchdoc.cli import _bench_args, _bench_extra, _bench_summary
from benchdoc.cli._common import unreliable_line
from benchdoc.errors import EXIT_FAILED, EXIT_OK, LedgerError
from benchdoc.outcome import Outcome

if TYPE_CHECKING:
    from benchdoc.runner.bench import BenchReport, BenchTarget
    from benchdoc.workloads import WorkloadSpec

ORDER = 55


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    _bench_args.add_parser(subparsers).set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchdoc.runner.bench import bench

    spec = _bench_args.build_spec(args)
    levels = _bench_args.load_levels(args)
    if spec.workers is not None:
        from benchdoc.workloads.workers import crowded

        why = crowded(spec.workers)
        if why:
            print(f"benchdoc bench: warning: {why}", file=sys.stderr)
    config = None
    if args.record:
        from benchdoc.cli._common import load_project

        config = load_project(args)
    with bench_target(args, spec, config) as target:
        if len(levels) > 1 or args.find_capacity:
            from benchdoc.cli import _bench_load

            if args.find_capacity:
                return _bench_load.capacity(args, spec, target)
            return _bench_load.sweep(args, spec, levels, target)
        if args.repetitions > 1:
            from benchdoc.cli import _bench_reps

            return _bench_reps.repeat(args, spec, target, config)

        if sys.stderr.isatty() and not args.json:
            report = _bench_with_progress(spec, target)
        else:
            # Not a terminal (CI, a log file): a line now and then instead of silence until the end.
            lines = _bench_summary.ProgressLines(sys.stderr.write)
            report = bench(spec, target=target, progress=lambda _: lines)
    result = report.done.results[0]
    _bench_extra.save(args, target.experiment if target else "bench", result)
    if args.json:
        from benchdoc.cli._common import print_json

        data = result.to_dict(include_requests=args.per_request)
        if report.run_id is not None:
            data["recorded"] = {"experiment": target.experiment if target else None, "run_id": report.run_id}
        print_json(data)
    else:
        _bench_summary.print_summary(result, args.verbose)
        warning = unreliable_line(config, len(result.records), len(result.records) - result.succeeded, result.cut_short)
        if warning:
            print(warning)
        if report.run_id is not None:
            outcome = Outcome.FAILED if report.failure else Outcome.OK
            print(f"recorded run {report.run_id}: {target.experiment if target else None} ({outcome}, "
                  f"{len(result.metrics)} metrics, one server start: the server was already running)")
    return EXIT_FAILED if result.failed else EXIT_OK


def _prove_recordable(config: Any, requests: int | None, repetitions: int) -> None:
    """The ledger takes a write now (and has room), or nothing is measured."""
    from benchdoc.cli._common import open_ledger
    from benchdoc.recording import prove_writable

    try:
        with open_ledger(config, write=True) as ledger:
            prove_writable(ledger, (requests or 0) * max(1, repetitions))
    except LedgerError as err:
        if "nothing was measured" in err.message:
            raise
        raise LedgerError(f"{err.message}; nothing was measured") from None


@contextmanager
def bench_target(args: argparse.Namespace, spec: WorkloadSpec, config: Any) -> Iterator[BenchTarget | None]:
    """With --record: the experiment resolved and the ledger opened before measuring (a typo
    or an unwritable ledger must not cost a benchmark run); else None."""
    if config is None:
        yield None
        return
    from benchdoc.cli._common import open_ledger, recording_experiment
    from benchdoc.runner.bench import BenchTarget

    experiment = recording_experiment(config, args.record, args.allow_new)
    _prove_recordable(config, spec.requests, args.repetitions)
    with open_ledger(config, write=True) as ledger:
        yield BenchTarget(ledger, experiment, config.root, keep_requests=config.keep_requests, note=args.note,
                          command=("benchdoc", *sys.argv[1:]))


def _bench_with_progress(spec: WorkloadSpec, target: BenchTarget | None) -> BenchReport:
    from rich.progress import TextColumn

    from benchdoc.cli._common import console, progress_bars
    from benchdoc.runner.bench import bench

    with progress_bars(console(stderr=True), TextColumn("requests")) as progress:
        task = progress.add_task("bench", total=spec.requests)

        def advance(completed: int, total: int | None) -> None:
            progress.update(task, completed=completed, total=total)

        return bench(spec, target=target, progress=lambda _: advance)


