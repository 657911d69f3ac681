"""guidellm JSON reports (``--output`` ``*.json``): a list of benchmarks, one per strategy or rate.

Each benchmark becomes one run. Its ``metrics`` are distributions split by request status;
benchdoc reads the ``successful`` part: ``mean`` -> ``_mean``, ``median`` or
``percentiles.p50`` -> ``_p50``, ``percentiles.pNN`` -> ``_pNN`` (``p001`` is the 0.1th,
``p999`` the 99.9th percentile).

Where guidellm's definitions differ from benchdoc's (see docs/importers.md):

- ``inter_token_latency_ms`` is (last token - first token) / (output tokens - 1) per
  request: benchdoc's ``tpot_ms``, not its ``itl_ms``.
- ``time_per_output_token_ms`` *includes* the first token: (last token - request start)
  / output tokens. It is recorded as ``e2e_per_token_ms``, not ``tpot_ms``.
- ``request_latency`` is in seconds (converted to ``e2e_ms``) and measured with the wall
  clock (``time.time()``).
- ``requests_per_second``, ``output_tokens_per_second``, ``prompt_tokens_per_second``
  and ``tokens_per_second`` are distributions of rates over time, split by request
  status. guidellm's own report ("Server Throughput Statistics (All Requests)") shows
  the ``total`` mean, over all requests, failed ones included: that is what
  ``request_s``, ``output_tok_s``, ``input_tok_s`` and ``total_tok_s`` record. The
  successful requests' mean is kept beside each as ``request_s_successful``,
  ``output_tok_s_successful``, ``input_tok_s_successful`` and ``total_tok_s_successful``;
  the two differ when requests failed. A report without ``prompt_tokens_per_second``
  has ``input_tok_s`` derived: the successful requests' prompt tokens / the duration.
- Latency distributions are the successful requests', as the report's latency table
  ("Completed Requests") shows them.
- ``error_rate`` is derived from ``request_totals``: errored / (successful + errored);
  incomplete requests (cut off at the end) are left out.
- Token counts come from the server's usage when it sends one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdoc.importers.base import MS_PER_S, Field, ImportedRun, fingerprints, scaled
from benchdoc.importers.reading import (
    Where,
    as_object,
    load_json_document,
    number,
    object_or_empty,
    sub_object,
    utc_from_epoch,
    walk,
)
from benchdoc.ledger.models import Sample

FORMAT = "guidellm"
EXPECTED = "a guidellm JSON report, with a 'benchmarks' list"

# Per-request distributions: guidellm metric -> benchdoc metric, unit scale to ms.
DISTRIBUTIONS: tuple[Field, ...] = (
    Field("time_to_first_token_ms", "ttft_ms"),
    Field("inter_token_latency_ms", "tpot_ms"),
    Field("time_per_output_token_ms", "e2e_per_token_ms"),
    Field("request_latency", "e2e_ms", MS_PER_S),
)

# Run-level rates: guidellm metric -> benchdoc metric, from its total.mean (what the
# report shows); the successful.mean goes to the same name + SUCCESSFUL_SUFFIX.
RATES: tuple[Field, ...] = (
    Field("output_tokens_per_second", "output_tok_s"),
    Field("requests_per_second", "request_s"),
    Field("tokens_per_second", "total_tok_s"),
    Field("prompt_tokens_per_second", "input_tok_s"),
)
SUCCESSFUL_SUFFIX = "_successful"

# guidellm percentile key -> benchdoc aggregate suffix.
PERCENTILES: dict[str, str] = {
    "p001": "p0_1",
    "p01": "p1",
    "p05": "p5",
    "p10": "p10",
    "p25": "p25",
    "p50": "p50",
    "p75": "p75",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
    "p999": "p99_9",
}

REQUIRED_METRICS = ("requests_per_second", "request_latency")


def looks_like(value: Any) -> bool:
    benchmarks = value.get("benchmarks") if isinstance(value, dict) else None
    first = benchmarks[0] if isinstance(benchmarks, list) and benchmarks else None
    return isinstance(walk(first, "metrics", "requests_per_second"), dict)


def parse(path: Path) -> list[ImportedRun]:
    document = as_object(load_json_document(path, EXPECTED), Where(path, None, "", EXPECTED))
    where = Where(path, None, "", EXPECTED)
    benchmarks = document.get("benchmarks")
    if not isinstance(benchmarks, list):
        raise where.error("missing key 'benchmarks'")
    if not benchmarks:
        raise where.error("'benchmarks' is empty: the report holds no results")
    report = object_or_empty(document, "metadata")
    environment: dict[str, Any] = {"tool": "guidellm"}
    for source, key in (("guidellm_version", "tool_version"), ("python_version", "python_version"), ("platform", "platform")):
        if report.get(source) is not None:
            environment[key] = report[source]
    return [
        _run(path, index, as_object(entry, where.child("benchmarks").child(index)), environment, where)
        for index, entry in enumerate(benchmarks)
    ]


def _run(path: Path, index: int, bench: dict[str, Any], base_environment: dict[str, Any], top: Where) -> ImportedRun:
    where = top.child("benchmarks").child(index)
    metrics = sub_object(bench, "metrics", where, required=True) or {}
    metrics_where = where.child("metrics")
    for key in REQUIRED_METRICS:
        if key not in metrics:
            raise metrics_where.error(f"missing key '{key}'")
    samples: list[Sample] = []
    for row in DISTRIBUTIONS:
        successful = _successful(metrics, row.source, metrics_where)
        if successful is None:
            continue
        samples.extend(_distribution_samples(successful, row, metrics_where.child(row.source).child("successful")))
    for row in RATES:
        samples.extend(_rate_samples(metrics, row, metrics_where))

    start = _epoch(bench, ("start_time",), ("run_stats", "start_time"), ("scheduler_metrics", "measure_start_time"))
    end = _epoch(bench, ("end_time",), ("run_stats", "end_time"), ("scheduler_metrics", "measure_end_time"))
    duration = number(bench, "duration", where)
    if duration is None and start is not None and end is not None:
        duration = end - start
    prompt = _successful(metrics, "prompt_token_count", metrics_where)
    prompt_total = number(prompt, "total_sum", metrics_where.child("prompt_token_count")) if prompt else None
    if prompt_total is not None and duration and not any(s.metric == "input_tok_s" for s in samples):
        samples.append(Sample("input_tok_s", prompt_total / duration, 0))
    totals = metrics.get("request_totals")
    samples.extend(_error_rate(totals, metrics_where.child("request_totals")))

    config = object_or_empty(bench, "config")
    args = object_or_empty(bench, "args")  # reports before the "config" layout
    strategy = config.get("strategy") or args.get("strategy") or {}
    environment = _environment(base_environment, config.get("backend"))
    metadata: dict[str, Any] = {
        "strategy": strategy,
        "output_tokens_source": "server usage when reported, else the stream's iteration count",
    }
    for key in ("run_id", "run_index", "constraints", "warmup", "cooldown", "id_"):
        value = config.get(key, args.get(key))
        if value is not None:
            metadata[key] = value
    if isinstance(totals, dict):
        metadata["request_totals"] = totals
    if duration is not None:
        metadata["duration_s"] = duration
    return ImportedRun(
        format=FORMAT,
        file=str(path),
        entry=f"benchmarks[{index}]",
        line=None,
        label=_label(strategy) or f"benchmark {index}",
        samples=tuple(samples),
        **fingerprints(FORMAT, {k: v for k, v in bench.items() if k != "requests"}),
        started_at=utc_from_epoch(start),
        finished_at=utc_from_epoch(end),
        environment=environment,
        metadata=metadata,
    )


def _environment(base: dict[str, Any], backend: Any) -> dict[str, Any]:
    """The report's environment with the backend's plain fields, its model and target."""
    environment = dict(base)
    if isinstance(backend, dict):
        environment["backend"] = {k: v for k, v in backend.items() if not isinstance(v, (dict, list))}
        for key in ("model", "target"):
            if backend.get(key) is not None:
                environment[key] = backend[key]
    return environment


def _error_rate(totals: Any, where: Where) -> list[Sample]:
    """The share of requests that errored, from the request totals (none without them)."""
    if not isinstance(totals, dict):
        return []
    ok = number(totals, "successful", where) or 0.0
    errored = number(totals, "errored", where) or 0.0
    return [Sample("error_rate", errored / (ok + errored), 0)] if ok + errored > 0 else []


def _rate_samples(metrics: dict[str, Any], row: Field, where: Where) -> list[Sample]:
    """The rate over all requests (the report's figure) and over the successful ones."""
    summary = sub_object(metrics, row.source, where)
    if summary is None:
        return []
    samples = []
    for status, name in (("total", row.metric), ("successful", row.metric + SUCCESSFUL_SUFFIX)):
        part = sub_object(summary, status, where.child(row.source))
        value = number(part, "mean", where.child(row.source).child(status)) if part is not None else None
        if value is not None:
            samples.append(Sample(name, scaled(value, row.scale), 0))
    return samples


def _successful(metrics: dict[str, Any], key: str, where: Where) -> dict[str, Any] | None:
    summary = sub_object(metrics, key, where)
    if summary is None:
        return None
    return sub_object(summary, "successful", where.child(key))


def _distribution_samples(stats: dict[str, Any], row: Field, where: Where) -> list[Sample]:
    if number(stats, "count", where) == 0:
        # No successful request measured this (e.g. TTFT without streaming): guidellm
        # writes zeros, which are not measurements.
        return []
    samples: list[Sample] = []
    mean = number(stats, "mean", where)
    if mean is not None:
        samples.append(Sample(f"{row.metric}_mean", scaled(mean, row.scale), 0))
    percentiles = sub_object(stats, "percentiles", where) or {}
    if "p50" not in percentiles:
        median = number(stats, "median", where)
        if median is not None:
            samples.append(Sample(f"{row.metric}_p50", scaled(median, row.scale), 0))
    for key, suffix in PERCENTILES.items():
        value = number(percentiles, key, where.child("percentiles"))
        if value is not None:
            samples.append(Sample(f"{row.metric}_{suffix}", scaled(value, row.scale), 0))
    return samples


def _epoch(bench: dict[str, Any], *paths: tuple[str, ...]) -> float | None:
    for keys in paths:
        value = walk(bench, *keys)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


def _label(strategy: Any) -> str:
    if not isinstance(strategy, dict):
        return ""
    kind = strategy.get("type_") or strategy.get("type") or ""
    parts = [str(kind)] if kind else []
    for key in ("rate", "streams", "max_concurrency"):
        if strategy.get(key) is not None:
            value = strategy[key]
            parts.append(f"{key}={int(value) if isinstance(value, float) and value.is_integer() else value}")
    return " ".join(parts)
