"""What one `benchdoc bench` measurement shows: progress lines for a log, and the summary
(latency table, throughput, the server's own figures, provenance, failures)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from benchdoc.cli import _bench_extra
from benchdoc.cli._common import client_line

if TYPE_CHECKING:
    from benchdoc.workloads import WorkloadResult


class ProgressLines:
    """Progress as plain lines for a log: one line at every further tenth of the requests,
    or after `every_s` seconds without one, each with the elapsed time and an estimate of
    what remains (from the pace so far; none while the total is open, as with --duration)."""

    def __init__(self, write: Callable[[str], object], every_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.write = write
        self.every_s = every_s
        self.clock = clock
        self.start = clock()
        self.last_line = self.start
        self.last_tenth = 0

    def __call__(self, completed: int, total: int | None) -> None:
        now = self.clock()
        tenth = completed * 10 // total if total else 0
        if tenth <= self.last_tenth and now - self.last_line < self.every_s:
            return
        self.last_tenth = max(tenth, self.last_tenth)
        self.last_line = now
        self.write(self.line(completed, total, now - self.start) + "\n")

    @staticmethod
    def line(completed: int, total: int | None, elapsed_s: float) -> str:
        if not total:
            return f"bench: {completed} requests done, {elapsed_s:.0f} s elapsed"
        text = f"bench: {completed}/{total} requests ({100 * completed / total:.0f}%), {elapsed_s:.0f} s elapsed"
        if 0 < completed < total:
            text += f", about {elapsed_s * (total - completed) / completed:.0f} s left"
        return text


def print_summary(result: WorkloadResult, verbose: bool = False) -> None:
    from rich.table import Table

    from benchdoc.cli._common import console, format_number, styled
    from benchdoc.workloads.metrics import DEFAULT_PERCENTILES, LATENCY_METRICS, percentile_suffix

    out = console()
    server = result.server
    title = f"{server.get('url')}  ·  {server.get('api')}  ·  model {server.get('model') or '(server default)'}"
    metrics = result.metrics
    settings = result.settings
    load = (
        f"closed loop, concurrency {settings['concurrency']}"
        if settings["load"] == "closed"
        else f"open loop, {settings['rate']:g} req/s {settings['arrivals']}"
        + (f", at most {settings['max_concurrency']} in flight" if settings.get("max_concurrency") else "")
    )
    out.print(styled(("benchdoc bench", "bold"), f"  {title}"))
    if "benchdoc-simulator" in server.get("owned_by", []):
        out.print("server: the benchdoc simulator; its figures are simulated, not measured on hardware")
    out.print(
        f"{load}; {len(result.records)} requests in {result.duration_s:.2f} s "
        f"({result.succeeded} ok, {len(result.records) - result.succeeded} failed"
        + (f", {result.cut_short} of them cut short" if result.cut_short else "")
        + f"; {len(result.warmup_records)} warm-up excluded)"
    )

    percentiles = sorted(set(DEFAULT_PERCENTILES) | set(result.percentiles))
    suffixes = [percentile_suffix(p) for p in percentiles]
    table = Table(show_edge=False, header_style="bold")
    table.add_column("latency (ms)")
    table.add_column("mean", justify="right")
    table.add_column("std", justify="right")
    for suffix in suffixes:
        table.add_column(suffix, justify="right")
    for name, definition in LATENCY_METRICS.items():
        if f"{name}_mean" not in metrics:
            continue
        label = definition.label
        if name == "itl_ms" and result.itl_assumed:
            label += " (spread*)"
        row = [label, format_number(metrics[f"{name}_mean"], 2), format_number(metrics.get(f"{name}_std"), 2)]
        row += [format_number(metrics.get(f"{name}_{suffix}"), 2) for suffix in suffixes]
        table.add_row(*row)
    if table.row_count:
        out.print(table)
    if result.itl_assumed and "itl_ms_mean" in metrics:
        out.print(f"* ITL of {result.itl_assumed} request(s) rests on an assumption: the server sent no per-chunk "
                  "counts and no --tokenizer was given, so each stream's tokens were spread over its chunks "
                  "(chunk gaps are measured; pass --tokenizer to count each chunk)", markup=False, soft_wrap=True)

    rates = Table(show_edge=False, header_style="bold")
    rates.add_column("throughput")
    rates.add_column("value", justify="right")
    rates.add_column("unit")
    for name, label, unit, digits in (
        ("output_tok_s", "output", "tok/s", 1),
        ("input_tok_s", "input", "tok/s", 1),
        ("request_s", "requests", "req/s", 2),
        ("output_tok_s_peak", "output, peak second", "tok/s", 0),
        ("concurrency_mean", "concurrency achieved, mean", "requests", 2),
        ("concurrency_max", "concurrency achieved, peak", "requests", 0),
    ):
        if name in metrics:
            rates.add_row(label, format_number(metrics[name], digits), unit)
    rates.add_row("error rate", f"{metrics['error_rate'] * 100:.1f}", "%")
    if "slo_attainment" in metrics:
        slo = ", ".join(f"{name} <= {value:g}" for name, value in settings.get("slo", {}).items())
        rates.add_row(f"goodput ({slo})", format_number(metrics.get("goodput_req_s"), 2), "req/s")
        rates.add_row("SLO attainment", f"{metrics['slo_attainment'] * 100:.1f}", "%")
    if "accept_length" in metrics:
        rates.add_row("accept length", format_number(metrics["accept_length"], 3), "tok/step")
    out.print(rates)
    if result.server_metrics is not None:
        _bench_extra.print_server_metrics(out, result.server_metrics)

    _print_provenance_and_failures(out, result, verbose)


def _print_provenance_and_failures(out: Any, result: WorkloadResult, verbose: bool = False) -> None:
    """Where the counts came from, the client's own load, and why requests failed."""
    from benchdoc.cli._common import styled

    provenance = result.provenance
    counts = ", ".join(f"{source} ({n})" for source, n in provenance["output_tokens"].items()) or "none"
    out.print(f"output tokens counted from: {counts}")
    prompts = provenance.get("prompts")
    if prompts:
        dataset = provenance.get("dataset") or {}
        where = f" from {dataset['path']} (sha256 {dataset['sha256'][:12]})" if dataset else ""
        out.print(f"prompts: {prompts}{where}; input lengths counted by {provenance.get('input_length')}", markup=False)
    if provenance.get("accept_length"):
        out.print(f"accept length from: {provenance['accept_length']}")
    if result.load is not None:
        from benchdoc.machineload import busy_warning, environment_entry

        warning = busy_warning(environment_entry([result.load]))
        if warning:
            out.print(styled(("warning:", "bold"), f" {warning}"))
    if result.client is not None:
        out.print(client_line(result, verbose), markup=False, soft_wrap=True, style="bold" if result.client.bound else None)
    if result.over_length:
        out.print(styled(("warning:", "bold"), f" {result.over_length} complete output(s) longer than their "
                         "max_tokens: the server did not hold to the limit"))
    reasons = result.failure_reasons()
    if reasons:
        out.print("failures", style="bold")
        for reason, count in reasons.items():
            out.print(f"  {count} × {reason}")
    if result.aborted:
        out.print(styled(("run aborted:", "bold"), f" {result.aborted}"))
