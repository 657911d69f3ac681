"""SGLang ``bench_serving`` results: a JSON Lines file, each line one benchmark run.

``python -m sglang.bench_serving --output-file F`` appends one JSON object per run.

Where SGLang's definitions differ from benchdoc's (see docs/importers.md):

- TTFT is taken at the first chunk with non-empty text, as in benchdoc.
- TPOT is (latency - ttft) / (output tokens - 1) per request, as in benchdoc.
- ITL: the native ``sglang`` backend splits each chunk gap by the number of tokens the
  chunk carried (benchdoc's ``itl_ms``); OpenAI-style backends with speculative decoding
  re-tokenize each chunk to split it. Other backends' gaps are per chunk.
- Output token counts come from the server's usage, but fall back to the *requested*
  length when the server did not report one; ``total_output_tokens_retokenized`` is the
  client's own count (both kept in metadata).
- ``accept_length`` is read by the tool from the server's ``/server_info``: it is the
  server's cumulative average since start (or the last cache flush), so it includes
  warm-up requests and earlier runs, not this run alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdoc.importers.base import (
    Field,
    ImportedRun,
    fingerprints,
    label_from,
    mapped_keys,
    samples_from_table,
)
from benchdoc.importers.reading import (
    Where,
    iter_objects,
    load_json_lines,
    object_or_empty,
    require,
    scalars,
)
from benchdoc.ledger.models import Sample

FORMAT = "sglang-serving"
EXPECTED = "an SGLang bench_serving result"

# SGLang key -> benchdoc metric (all latencies already in milliseconds).
FIELDS: tuple[Field, ...] = (
    Field("output_throughput", "output_tok_s"),
    Field("input_throughput", "input_tok_s"),
    Field("request_throughput", "request_s"),
    Field("total_throughput", "total_tok_s"),
    Field("accept_length", "accept_length"),
    Field("mean_ttft_ms", "ttft_ms_mean"),
    Field("median_ttft_ms", "ttft_ms_p50"),
    Field("p90_ttft_ms", "ttft_ms_p90"),
    Field("p95_ttft_ms", "ttft_ms_p95"),
    Field("p99_ttft_ms", "ttft_ms_p99"),
    Field("mean_tpot_ms", "tpot_ms_mean"),
    Field("median_tpot_ms", "tpot_ms_p50"),
    Field("p90_tpot_ms", "tpot_ms_p90"),
    Field("p95_tpot_ms", "tpot_ms_p95"),
    Field("p99_tpot_ms", "tpot_ms_p99"),
    Field("mean_itl_ms", "itl_ms_mean"),
    Field("median_itl_ms", "itl_ms_p50"),
    Field("p90_itl_ms", "itl_ms_p90"),
    Field("p95_itl_ms", "itl_ms_p95"),
    Field("p99_itl_ms", "itl_ms_p99"),
    Field("mean_e2e_latency_ms", "e2e_ms_mean"),
    Field("median_e2e_latency_ms", "e2e_ms_p50"),
    Field("p90_e2e_latency_ms", "e2e_ms_p90"),
    Field("p95_e2e_latency_ms", "e2e_ms_p95"),
    Field("p99_e2e_latency_ms", "e2e_ms_p99"),
)

REQUIRED = ("duration", "completed", "request_throughput", "output_throughput", "mean_ttft_ms", "mean_e2e_latency_ms")

# Per-request details written with --output-details: counted, not kept.
DETAIL_KEYS = frozenset({"input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"})

# The settings that tell one configuration from another within a file.
LABEL_KEYS = ("tag", "backend", "dataset_name", "request_rate", "max_concurrency", "random_input_len", "random_output_len")


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and "output_throughput" in value and "mean_e2e_latency_ms" in value


def parse(path: Path) -> list[ImportedRun]:
    runs: list[ImportedRun] = []
    for where, obj in iter_objects(load_json_lines(path, EXPECTED), path, EXPECTED):
        runs.append(_run(path, where, obj))
    return runs


def _run(path: Path, where: Where, obj: dict[str, Any]) -> ImportedRun:
    require(obj, REQUIRED, where)
    samples = samples_from_table(obj, FIELDS, where)
    errors = obj.get("errors")
    if isinstance(errors, list) and errors:
        # Only with --output-details: one entry per request, empty when it succeeded.
        failed = sum(1 for e in errors if e)
        samples.append(Sample("error_rate", failed / len(errors), 0))
    server_info = object_or_empty(obj, "server_info")
    environment: dict[str, Any] = {"tool": "sglang.bench_serving"}
    for source_key, key in (("model_path", "model"), ("version", "server_version"), ("tp_size", "tp_size")):
        if server_info.get(source_key) is not None:
            environment[key] = server_info[source_key]
    if server_info:
        environment["server_info"] = server_info
    metadata = scalars(obj, skip=mapped_keys(FIELDS) | DETAIL_KEYS | {"server_info"})
    metadata["output_tokens_source"] = "server usage, falling back to the requested length"
    if "accept_length" in obj and obj["accept_length"] is not None:
        metadata["accept_length_source"] = "server cumulative average (/server_info), not scoped to this run"
    details = sorted(k for k in DETAIL_KEYS if k in obj)
    if details:
        metadata["per_request_details_not_kept"] = details
    return ImportedRun(
        format=FORMAT,
        file=str(path),
        entry=f"line {where.line}",
        line=where.line,
        label=label_from(obj, LABEL_KEYS),
        samples=tuple(samples),
        **fingerprints(FORMAT, obj),
        environment=environment,
        metadata=metadata,
    )
