"""``vllm bench serve`` results: one JSON object per run (``--save-result``), or several
written one after the other (``--append-result``).

Where vLLM's definitions differ from benchdoc's (see docs/importers.md):

- TTFT is taken at the first chunk that carries ``choices``, even when its text is empty
  (benchdoc waits for non-empty output), so it can read slightly lower.
- TPOT is (latency - ttft) / (output tokens - 1) per request, as in benchdoc.
- vLLM's ITL is the raw gap between chunks, one value per chunk whatever the number of
  tokens it carried: that is benchdoc's ``chunk_gap_ms``, not ``itl_ms``. The two agree
  only when every chunk carries one token (no speculative decoding, no batching of the
  stream); with multi-token chunks vLLM's "ITL" is larger.
- E2E (``e2el``) ends at the last chunk carrying ``choices``. By default vLLM writes no
  ``*_e2el_ms`` keys and only the 99th percentile (``--percentile-metrics``,
  ``--metric-percentiles``): benchdoc records what is there.
- ``input_tok_s`` is derived: ``total_input_tokens / duration``.
- ``error_rate`` is derived: ``failed / (completed + failed)``.
- ``accept_length`` is ``spec_decode_acceptance_length``: 1 + accepted / drafts from the
  server's Prometheus counters differenced over the run (any concurrent traffic counts).
- ``date`` is the local time the result was saved (the end of the run), without a zone;
  it is taken as UTC.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchdoc.importers.base import Field, ImportedRun, fingerprints, label_from, samples_from_table
from benchdoc.importers.reading import (
    Where,
    iter_objects,
    load_json_values,
    number,
    require,
    scalars,
    utc_from_text,
)
from benchdoc.ledger.models import Sample
from benchdoc.workloads.metrics import percentile_suffix

FORMAT = "vllm-serve"
EXPECTED = "a 'vllm bench serve' result"

# Run-level keys -> benchdoc metrics.
FIELDS: tuple[Field, ...] = (
    Field("output_throughput", "output_tok_s"),
    Field("request_throughput", "request_s"),
    Field("total_token_throughput", "total_tok_s"),
    Field("spec_decode_acceptance_length", "accept_length"),
)

# Latency keys are spelled {aggregate}_{stem}_ms: the stem names the metric...
LATENCY_STEMS: dict[str, str] = {
    "ttft": "ttft_ms",
    "tpot": "tpot_ms",
    "itl": "chunk_gap_ms",  # per-chunk gaps, see above
    "e2el": "e2e_ms",
}
# ...and the aggregate is mean, median or p{P} (any P, e.g. p99 or p99.9); std is kept in metadata.
AGGREGATES: dict[str, str] = {"mean": "mean", "median": "p50"}

_LATENCY_KEY = re.compile(r"^(?P<agg>mean|median|std|p\d+(?:\.\d+)?)_(?P<stem>ttft|tpot|itl|e2el)_ms$")

REQUIRED = ("duration", "completed", "request_throughput", "output_throughput", "mean_ttft_ms")

# Per-request arrays: counted, not kept.
DETAIL_KEYS = frozenset(
    {
        "latencies", "queue_times", "input_lens", "output_lens", "ttfts", "itls", "start_times",
        "generated_texts", "errors", "server_queue_times", "server_ttfts", "e2el_including_client_queue",
    }
)
ENVIRONMENT_KEYS = ("model_id", "tokenizer_id", "backend", "endpoint_type")
LABEL_KEYS = ("label", "model_id", "request_rate", "burstiness", "max_concurrency")


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and "output_throughput" in value and "mean_ttft_ms" in value and (
        "model_id" in value or "total_token_throughput" in value
    )


def parse(path: Path) -> list[ImportedRun]:
    return [_run(path, where, obj) for where, obj in iter_objects(load_json_values(path, EXPECTED), path, EXPECTED)]


def latency_metric(key: str) -> str | None:
    """benchdoc's name for a vLLM latency key (``p99.9_ttft_ms`` -> ``ttft_ms_p99_9``), or None."""
    match = _LATENCY_KEY.match(key)
    if not match or match["agg"] == "std":
        return None
    agg = match["agg"]
    suffix = AGGREGATES.get(agg) or percentile_suffix(float(agg[1:]))
    return f"{LATENCY_STEMS[match['stem']]}_{suffix}"


def _median_first(key: str) -> int:
    return 0 if key.startswith(("mean_", "median_")) else 1


def _run(path: Path, where: Where, obj: dict[str, Any]) -> ImportedRun:
    require(obj, REQUIRED, where)
    samples = samples_from_table(obj, FIELDS, where)
    # "median_ttft_ms" and "p50_ttft_ms" can both be present: the first seen is kept.
    latency_keys = {key: latency_metric(key) for key in sorted(obj, key=_median_first) if _LATENCY_KEY.match(key)}
    seen: set[str] = set()
    for key, metric in latency_keys.items():
        value = number(obj, key, where)
        if metric is not None and value is not None and metric not in seen:
            seen.add(metric)
            samples.append(Sample(metric, value, 0))
    duration = number(obj, "duration", where, required=True)
    input_tokens = number(obj, "total_input_tokens", where)
    if duration and input_tokens is not None:
        samples.append(Sample("input_tok_s", input_tokens / duration, 0))
    completed = number(obj, "completed", where, required=True) or 0.0
    failed = number(obj, "failed", where)
    if failed is not None and completed + failed > 0:
        samples.append(Sample("error_rate", failed / (completed + failed), 0))

    finished_at = utc_from_text(obj.get("date"), where, "date", ("%Y%m%d-%H%M%S",))
    started_at = finished_at - timedelta(seconds=duration) if finished_at and duration else None
    environment: dict[str, Any] = {"tool": "vllm bench serve"}
    environment.update({k: obj[k] for k in ENVIRONMENT_KEYS if obj.get(k) is not None})
    mapped = {row.source for row in FIELDS} | {k for k, m in latency_keys.items() if m is not None}
    spec = {k: v for k, v in obj.items() if k.startswith("spec_decode_")}
    metadata = scalars(obj, skip=frozenset(mapped) | DETAIL_KEYS | set(ENVIRONMENT_KEYS) | set(spec))
    metadata["output_tokens_source"] = "server usage, falling back to the client tokenizer"
    if spec:
        metadata["spec_decode"] = spec
        metadata["accept_length_source"] = "server Prometheus counters differenced over the run"
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
        started_at=started_at,
        finished_at=finished_at,
        environment=environment,
        metadata=metadata,
    )
