"""SGLang ``bench_one_batch`` and ``bench_one_batch_server`` results (JSON Lines).

Both append one JSON object per (batch size, input length, output length) case. They
time a *single batch* of requests sent together, not a serving load, so they get their
own metric names rather than the per-request latency aggregates:

- ``bench_one_batch`` runs the model in-process (no HTTP, no tokenizer):
  ``prefill_latency`` is the batch's prefill, ``median_decode_latency`` the median time
  of one decode step (each step yields one token per request, so it stands for TPOT),
  ``total_latency`` the whole batch.
- ``bench_one_batch_server`` goes through a running server: ``last_ttft`` is the time to
  the batch's first output, ``input_throughput`` is batch x input length / TTFT (a
  prefill rate, not benchdoc's ``input_tok_s``), ``output_throughput`` is batch x output
  length / (latency - TTFT) (a decode rate, not benchdoc's ``output_tok_s``).

benchdoc's ``output_tok_s`` (output tokens over the wall duration) is derived as
output tokens / whole-batch latency. All times are seconds in the source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdoc.importers.base import (
    MS_PER_S,
    Field,
    ImportedRun,
    fingerprints,
    label_from,
    mapped_keys,
    samples_from_table,
)
from benchdoc.importers.reading import Where, iter_objects, load_json_lines, number, require, scalars
from benchdoc.ledger.models import Sample

FORMAT = "sglang-one-batch"
EXPECTED = (
    "an SGLang bench_one_batch result (prefill_latency, median_decode_latency, total_latency) "
    "or bench_one_batch_server result (latency, last_ttft, output_throughput)"
)

# bench_one_batch (in-process) key -> benchdoc metric.
IN_PROCESS_FIELDS: tuple[Field, ...] = (
    Field("prefill_latency", "batch_ttft_ms", MS_PER_S),
    Field("prefill_throughput", "prefill_tok_s"),
    Field("median_decode_latency", "decode_step_ms_p50", MS_PER_S),
    Field("median_decode_throughput", "decode_tok_s"),
    Field("total_latency", "batch_latency_ms", MS_PER_S),
    Field("overall_throughput", "total_tok_s"),
)

# bench_one_batch_server key -> benchdoc metric.
SERVER_FIELDS: tuple[Field, ...] = (
    Field("last_ttft", "batch_ttft_ms", MS_PER_S),
    Field("input_throughput", "prefill_tok_s"),
    Field("output_throughput", "decode_tok_s"),
    Field("latency", "batch_latency_ms", MS_PER_S),
    Field("overall_throughput", "total_tok_s"),
    Field("acc_length", "accept_length"),  # -1 or null without speculative decoding: skipped
)

CASE_KEYS = ("batch_size", "input_len", "output_len")
LABEL_KEYS = ("run_name", "batch_size", "input_len", "output_len")


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and "batch_size" in value and ("prefill_latency" in value or "last_ttft" in value)


def parse(path: Path) -> list[ImportedRun]:
    return [_run(path, where, obj) for where, obj in iter_objects(load_json_lines(path, EXPECTED), path, EXPECTED)]


def _run(path: Path, where: Where, obj: dict[str, Any]) -> ImportedRun:
    if "prefill_latency" in obj:
        tool, table, latency_key = "sglang.bench_one_batch", IN_PROCESS_FIELDS, "total_latency"
        require(obj, (*CASE_KEYS, "prefill_latency", "median_decode_latency", "total_latency"), where)
    elif "last_ttft" in obj or "latency" in obj:
        tool, table, latency_key = "sglang.bench_one_batch_server", SERVER_FIELDS, "latency"
        require(obj, (*CASE_KEYS, "latency", "last_ttft", "output_throughput"), where)
    else:
        raise where.error("missing key 'prefill_latency' (bench_one_batch) or 'latency' (bench_one_batch_server)")
    samples = [s for s in samples_from_table(obj, table, where) if not (s.metric == "accept_length" and s.value <= 0)]
    latency = number(obj, latency_key, where, required=True)
    output_tokens = number(obj, "total_output_tokens", where)
    if output_tokens is None:
        batch = number(obj, "batch_size", where, required=True)
        length = number(obj, "output_len", where, required=True)
        output_tokens = (batch or 0) * (length or 0)
    if latency:
        samples.append(Sample("output_tok_s", output_tokens / latency, 0))
    return ImportedRun(
        format=FORMAT,
        file=str(path),
        entry=f"line {where.line}",
        line=where.line,
        label=label_from(obj, LABEL_KEYS),
        samples=tuple(samples),
        **fingerprints(FORMAT, obj),
        environment={"tool": tool},
        metadata=scalars(obj, skip=mapped_keys(table)),
    )
