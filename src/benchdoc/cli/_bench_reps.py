"""`benchdoc bench --repetitions N`: one workload measured N times, recorded as one run."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from benchdoc.cli import _bench_extra
from benchdoc.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from benchdoc.outcome import Outcome

if TYPE_CHECKING:
    from benchdoc.runner.bench import BenchTarget
    from benchdoc.workloads import WorkloadResult, WorkloadSpec
    from benchdoc.workloads.repeat import Progress, Repetitions

# The headline figures a line per repetition and the closing medians show.
HEADLINE = (("output_tok_s", "output tok/s", 1), ("request_s", "req/s", 2), ("ttft_ms_p50", "TTFT p50 ms", 1),
            ("tpot_ms_p50", "TPOT p50 ms", 2))


def repeat(args: argparse.Namespace, spec: WorkloadSpec, target: BenchTarget | None, config: Any) -> int:
    """Measure ``spec`` --repetitions times (seed + i each); with --record, one run of them all."""
    from benchdoc.runner.bench import bench

    count = args.repetitions
    at_terminal = sys.stderr.isatty() and not args.json
    bar = _ProgressBar(count) if at_terminal else None

    def on_repetition(index: int, result: WorkloadResult) -> None:
        _bench_extra.save(args, f"{target.experiment if target else 'bench'}-rep{index + 1}", result)
        if not args.json:
            line = f"repetition {index + 1}/{count} (seed {spec.seed + index}): {_headline(result)}"
            (bar.log if bar else _stderr)(line)

    try:
        report = bench(spec, count, target=target, progress=bar.callback if bar else None, on_repetition=on_repetition)
    finally:
        if bar:
            bar.stop()
    done = report.done
    if args.json:
        from benchdoc.cli._common import print_json

        data: dict[str, Any] = {
            "repetitions": [r.to_dict(include_requests=args.per_request) for r in done.results],
            "failure": done.failure,
        }
        if report.run_id is not None and target is not None:
            data["recorded"] = {"experiment": target.experiment, "run_id": report.run_id}
        print_json(data)
    else:
        from benchdoc.cli._common import unreliable_line

        _print_summary(done)
        measured = done.results[: done.completed]
        warning = unreliable_line(config, sum(len(r.records) for r in measured),
                                  sum(len(r.records) - r.succeeded for r in measured), sum(r.cut_short for r in measured))
        if warning:
            print(warning)
        if report.run_id is not None and target is not None:
            outcome = Outcome.FAILED if done.failure else Outcome.OK
            metrics = len({m for r in done.results[: done.completed] for m in r.metrics})
            print(f"recorded run {report.run_id}: {target.experiment} ({outcome}, {done.completed} repetition(s) × "
                  f"{metrics} metrics, one server start: the server was already running)")
    if done.interrupted:
        _stderr(_interrupted_message(done, target.experiment if target else None, report.run_id))
        return EXIT_INTERRUPTED
    return EXIT_FAILED if done.failure else EXIT_OK


def _interrupted_message(done: Repetitions, experiment: str | None, run_id: int | None) -> str:
    """Exactly what Ctrl-C kept and what it dropped."""
    under_way = (f"benchdoc: interrupted during repetition {len(done.results) + 1} of {done.planned}"
                 if len(done.results) < done.planned else "benchdoc: interrupted after the last repetition")
    if not done.results:
        return f"{under_way}: no repetition had finished; nothing recorded"
    finished = f"{len(done.results)} finished repetition{'s' if len(done.results) != 1 else ''}"
    if run_id is None:
        return f"{under_way}: the pass under way was dropped; the {finished} are shown above (not recorded: no --record)"
    return (f"{under_way}: recorded run {run_id} of {experiment} with the {finished} (marked interrupted); "
            "the pass under way was dropped")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _headline(result: WorkloadResult) -> str:
    from benchdoc.workloads.repeat import failure_of

    why = failure_of(result)
    if why:
        return f"failed: {why}"
    m = result.metrics
    figures = [f"{label} {m[name]:.{digits}f}" for name, label, digits in HEADLINE if name in m]
    return f"{result.succeeded}/{len(result.records)} ok, " + ", ".join(figures)


def _print_summary(done: Repetitions) -> None:
    from benchdoc.cli._common import console

    out = console()
    for line, style in summary_lines(done):
        out.print(line, markup=False, soft_wrap=True, style=style)


def summary_lines(done: Repetitions) -> list[tuple[str, str | None]]:
    """The median of each headline figure over the repetitions that measured, with its range;
    then what a single pass says too: requests cut short, failures by reason, a busy
    machine and a client-bound load generator (summed as the recorded run sums them).
    Each line with its style."""
    from benchdoc.machineload import busy_warning, environment_entry
    from benchdoc.recording import summary
    from benchdoc.results.model import median_of

    lines: list[tuple[str, str | None]] = []
    usable = done.results[: done.completed]
    if any(r.measured_simulator for r in done.results):
        lines.append(("server: the benchdoc simulator; its figures are simulated, not measured on hardware", None))
    lines.append((f"{done.completed} of {done.planned} repetitions measured "
                  f"(seeds {done.seed}..{done.seed + done.planned - 1})", None))
    for name, label, digits in HEADLINE:
        values = [r.metrics[name] for r in usable if name in r.metrics]
        if values:
            lines.append((f"  {label}: median {median_of(values):.{digits}f} "
                          f"(min {min(values):.{digits}f}, max {max(values):.{digits}f})", None))
    if not done.results:
        return lines + ([(f"stopped: {done.failure}", None)] if done.failure else [])
    totals = summary(done.measured())
    failed = sum(totals["failures"].values())
    lines.append((f"{totals['requests']} requests, {failed} failed"
                  + (f", {totals['cut_short']} of them cut short" if totals["cut_short"] else ""), None))
    loads = [r.load for r in done.results if r.load is not None]
    warning = busy_warning(environment_entry(loads)) if loads else None
    if warning:
        lines.append((f"warning: {warning}", "bold"))
    client = totals.get("client")
    if client is not None and client.bound:
        reasons = "; ".join(client.reasons) or "no reason given"
        lines.append((f"CLIENT-BOUND in {client.repetitions} of {client.of} repetitions: {reasons} — "
                      "latencies include the client's own delay", "bold"))
    elif client is not None:
        lines.append((f"client kept up in all {client.of} repetitions", None))
    if totals["failures"]:
        lines.append(("failures", "bold"))
        lines.extend((f"  {count} × {reason}", None) for reason, count in totals["failures"].items())
    if done.failure:
        lines.append((f"stopped: {done.failure}", None))
    return lines


class _ProgressBar:
    """At a terminal: one bar of requests for the repetition under way, and a line as each ends."""

    def __init__(self, count: int) -> None:
        from rich.progress import TextColumn

        from benchdoc.cli._common import console, progress_bars

        self.count = count
        self.progress = progress_bars(console(stderr=True), TextColumn("{task.description}"))
        self.task = self.progress.add_task("", total=None)
        self.progress.start()

    def callback(self, index: int) -> Progress:
        self.progress.reset(self.task, description=f"repetition {index + 1}/{self.count}", total=None)

        def advance(completed: int, total: int | None) -> None:
            self.progress.update(self.task, completed=completed, total=total)

        return advance

    def log(self, line: str) -> None:
        self.progress.console.print(line)

    def stop(self) -> None:
        self.progress.stop()
