"""llmperf summaries (``{model}_{in}_{out}_summary.json``): one flat JSON object per run.

The summary flattens its statistics with ``_``: ``results_ttft_s_mean``,
``results_ttft_s_quantiles_p50`` and so on, all times in seconds.

Where llmperf's definitions differ from benchdoc's (see docs/importers.md):

- ``inter_token_latency_s`` is, per request, the *sum of all gaps including the time to
  the first token* divided by the number of output tokens: a per-request mean that folds
  TTFT in. It is neither benchdoc's ``tpot_ms`` nor its ``itl_ms`` and is recorded as
  ``e2e_per_token_ms``.
- TTFT is the first chunk with ``delta.content``.
- Its inter-token latency is per SSE chunk, not per token: llmperf counts every event of
  the stream, the chat stream's empty role chunk included, as one token, so a server
  that sends several tokens per chunk (speculative decoding) gets a larger value.
- Output tokens are re-counted with one fixed Llama tokenizer whatever the model, so
  token counts and rates differ from the server's own counts.
- ``request_output_throughput_token_per_s`` is each request's own rate:
  ``user_output_tok_s``.
- ``request_s`` is derived: ``results_num_completed_requests_per_min / 60``.
- Quantiles stop at p25..p99; there is no median key other than p50.
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
from benchdoc.importers.reading import (
    Where,
    as_object,
    load_json_document,
    number,
    require,
    scalars,
    utc_from_epoch,
)
from benchdoc.ledger.models import Sample

FORMAT = "llmperf"
EXPECTED = "an llmperf *_summary.json (results_* keys)"

# llmperf statistic stem -> (benchdoc metric, scale to benchdoc's unit).
DISTRIBUTIONS: dict[str, tuple[str, float]] = {
    "results_ttft_s": ("ttft_ms", MS_PER_S),
    "results_end_to_end_latency_s": ("e2e_ms", MS_PER_S),
    "results_inter_token_latency_s": ("e2e_per_token_ms", MS_PER_S),
    "results_request_output_throughput_token_per_s": ("user_output_tok_s", 1.0),
}
# Each stem has these statistics: llmperf suffix -> benchdoc aggregate suffix.
AGGREGATES: dict[str, str] = {
    "mean": "mean",
    "quantiles_p25": "p25",
    "quantiles_p50": "p50",
    "quantiles_p75": "p75",
    "quantiles_p90": "p90",
    "quantiles_p95": "p95",
    "quantiles_p99": "p99",
}

# The whole table, written out as rows.
FIELDS: tuple[Field, ...] = tuple(
    Field(f"{stem}_{suffix}", f"{metric}_{aggregate}", scale)
    for stem, (metric, scale) in DISTRIBUTIONS.items()
    for suffix, aggregate in AGGREGATES.items()
) + (
    Field("results_mean_output_throughput_token_per_s", "output_tok_s"),
    Field("results_num_completed_requests_per_min", "request_s", 1 / 60),
    Field("results_error_rate", "error_rate"),
)

REQUIRED = ("results_end_to_end_latency_s_mean", "results_mean_output_throughput_token_per_s", "results_num_completed_requests")
LABEL_KEYS = ("model", "num_concurrent_requests", "mean_input_tokens", "mean_output_tokens")


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and "results_end_to_end_latency_s_mean" in value


def parse(path: Path) -> list[ImportedRun]:
    where = Where(path, None, "", EXPECTED)
    obj = as_object(load_json_document(path, EXPECTED), where)
    require(obj, REQUIRED, where)
    samples: list[Sample] = samples_from_table(obj, FIELDS, where)
    environment: dict[str, Any] = {"tool": "llmperf"}
    for key in ("model", "llm_api"):
        if obj.get(key) is not None:
            environment[key] = obj[key]
    metadata = scalars(obj, skip=mapped_keys(FIELDS) | {"timestamp"})
    metadata["output_tokens_source"] = "re-counted by the client with a fixed Llama tokenizer"
    return [
        ImportedRun(
            format=FORMAT,
            file=str(path),
            entry="document",
            line=None,
            label=label_from(obj, LABEL_KEYS),
            samples=tuple(samples),
            **fingerprints(FORMAT, obj),
            finished_at=utc_from_epoch(number(obj, "timestamp", where)),
            environment=environment,
            metadata=metadata,
        )
    ]
