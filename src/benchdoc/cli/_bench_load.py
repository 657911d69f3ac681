"""`benchdoc bench` over several load levels: a sweep (--rate 1,2,4,8) or a capacity search."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from benchdoc.cli import _bench_extra
from benchdoc.cli._common import client_line
from benchdoc.errors import EXIT_FAILED, EXIT_OK
from benchdoc.naming import LoadLevel, level_experiment

if TYPE_CHECKING:
    from benchdoc.runner.bench import BenchTarget
    from benchdoc.workloads import WorkloadResult, WorkloadSpec
    from benchdoc.workloads.sweep import CapacityStep, SweepPoint


def sweep(args: argparse.Namespace, spec: WorkloadSpec, levels: tuple[LoadLevel, ...], target: BenchTarget | None) -> int:
    """Run each level in turn; with --record, each is a run of EXPERIMENT@rate=R."""
    from benchdoc.runner.bench import bench_sweep

    rows: list[dict[str, Any]] = []

    def on_level(point: SweepPoint, run_id: int | None) -> None:
        _bench_extra.save(args, f"{target.experiment if target else 'bench'}@{point.level.label}", point.result)
        row = _row(point.level.label, point.result, args.per_request)
        if target is not None and run_id is not None:
            row["recorded"] = {"experiment": level_experiment(target.experiment, point.level), "run_id": run_id}
        rows.append(row)
        if not args.json:
            print(f"{point.level.label}: {_progress_text(point.result, args.verbose)}", file=sys.stderr)

    points = bench_sweep(spec, levels, target=target, on_level=on_level)
    if args.json:
        from benchdoc.cli._common import print_json

        print_json({"sweep": rows})
    else:
        _print_rows(f"{levels[0].kind} sweep", rows, [p.result for p in points], args.verbose)
    return EXIT_FAILED if all(p.result.failed for p in points) else EXIT_OK


def capacity(args: argparse.Namespace, spec: WorkloadSpec, target: BenchTarget | None) -> int:
    """Search the capacity; with --record, each level tried is a run of EXPERIMENT@rate=R and the
    answer a run of EXPERIMENT with the metrics capacity_req_s and capacity_high_req_s."""
    from benchdoc.runner.bench import bench_capacity

    rows: list[dict[str, Any]] = []

    def on_step(step: CapacityStep, run_id: int | None) -> None:
        level = LoadLevel("rate", step.rate)
        _bench_extra.save(args, f"{target.experiment if target else 'bench'}@{level.label}", step.result)
        row = _row(level.label, step.result, args.per_request) | {"met_target": step.passed, "why": step.why or None}
        if target is not None and run_id is not None:
            row["recorded"] = {"experiment": level_experiment(target.experiment, level), "run_id": run_id}
        rows.append(row)
        if not args.json:
            verdict = "meets the target" if step.passed else f"misses: {step.why}"
            if not step.passed and step.client_bound:
                verdict = f"says nothing (the client was the bottleneck): {step.why}"
            print(f"{level.label}: SLO attainment {step.attainment:.3f}, {verdict}; "
                  f"{_progress_text(step.result, args.verbose)}", file=sys.stderr)

    found, run_id = bench_capacity(
        spec, target_attainment=args.target, start_rate=args.start_rate, precision=args.precision,
        budget_s=args.time_budget, target=target, on_step=on_step,
    )
    summary = found.to_dict()
    if args.json:
        from benchdoc.cli._common import print_json

        data: dict[str, Any] = {"capacity": summary, "levels": rows}
        if run_id is not None and target is not None:
            data["recorded"] = {"experiment": target.experiment, "run_id": run_id}
        print_json(data)
    else:
        _print_rows("capacity search: rate", rows, [s.result for s in found.steps], args.verbose)
        print(found.sentence())
        if run_id is not None and target is not None:
            print(f"recorded run {run_id}: {target.experiment}")
    return EXIT_OK if found.found else EXIT_FAILED


def _row(label: str, result: WorkloadResult, per_request: bool = False) -> dict[str, Any]:
    """One level as --json gives it: its figures, the client's verdict, and its requests when asked."""
    metrics = result.metrics
    names = ("request_s", "output_tok_s", "output_tok_s_peak", "concurrency_mean", "concurrency_max", "ttft_ms_p50",
             "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "goodput_req_s", "slo_attainment", "error_rate")
    row: dict[str, Any] = {"level": label, "value": float(label.split("=", 1)[1]), "requests": len(result.records),
                           **{n: metrics.get(n) for n in names}, "aborted": result.aborted,
                           "client": result.client.to_dict() if result.client is not None else None}
    if per_request:
        row["request_records"] = [r.to_dict() for r in result.records]
    return row


def _progress_text(result: WorkloadResult, verbose: bool = False) -> str:
    m = result.metrics
    ok = f"{result.succeeded}/{len(result.records)} ok"
    rate = f"{m['request_s']:.2f} req/s" if "request_s" in m else "no throughput"
    ttft = f", TTFT p50 {m['ttft_ms_p50']:.1f} ms" if "ttft_ms_p50" in m else ""
    client = f"; {client_line(result, verbose)}" if result.client is not None else ""
    return f"{ok}, {rate}{ttft}{client}"


def _print_rows(title: str, rows: list[dict[str, Any]], results: list[WorkloadResult], verbose: bool = False) -> None:
    from rich.table import Table

    from benchdoc.cli._common import console, format_number

    out = console()
    if not out.is_terminal:  # a file or a pipe has no width to keep to
        out.width = max(out.width, 120)
    if any(r.measured_simulator for r in results):
        out.print("server: the benchdoc simulator; its figures are simulated, not measured on hardware")
    table = Table(title=title, show_edge=False, header_style="bold")
    columns = [("level", None), ("req/s", ("request_s", 2)), ("tok/s", ("output_tok_s", 0)),
               ("in flight", ("concurrency_mean", 1)),
               ("TTFT p50", ("ttft_ms_p50", 1)), ("p99", ("ttft_ms_p99", 1)),
               ("TPOT p50", ("tpot_ms_p50", 2)), ("p99", ("tpot_ms_p99", 2))]
    if any(r.get("slo_attainment") is not None for r in rows):
        columns += [("goodput", ("goodput_req_s", 2)), ("SLO met", ("slo_attainment", 3))]
    if any(r.get("error_rate") for r in rows):
        columns += [("errors", ("error_rate", 3))]
    for header, _ in columns:
        table.add_column(header, justify="left" if header == "level" else "right", no_wrap=True)
    table.add_column("client", no_wrap=True)
    for row, result in zip(rows, results):
        cells = [f"{row['value']:g}"] + [format_number(row.get(key), digits) for _, (key, digits) in columns[1:]]  # type: ignore[misc]
        table.add_row(*cells, _verdict(result))
    out.print(table)
    # The table's client column gives each level's verdict; a bound level says why; -v every figure.
    for row, result in zip(rows, results):
        if result.client is not None and (verbose or result.client.bound):
            out.print(f"{row['level']}: {client_line(result, verbose)}", markup=False, soft_wrap=True)
    recorded = [row["recorded"] for row in rows if row.get("recorded")]
    if recorded:
        runs = ", ".join(f"{r['experiment']} (run {r['run_id']})" for r in recorded)
        out.print(f"recorded {len(recorded)} level{'s' if len(recorded) != 1 else ''}: {runs}", markup=False, soft_wrap=True)


def _verdict(result: WorkloadResult) -> str:
    """The client's verdict of one level in a word."""
    if result.client is None:
        return "—"
    return "CLIENT-BOUND" if result.client.bound else "kept up"
