"""genai-perf and AIPerf summary exports (``*_genai_perf.json``, ``profile_export_aiperf.json``).

Both write one JSON object for the whole benchmark: each metric is an object
``{unit, avg, p1 ... p99, min, max, std}`` (AIPerf copies genai-perf's layout and adds
``schema_version``, ``aiperf_version``, ``start_time``, ``end_time``, ``error_summary``).

Where their definitions differ from benchdoc's (see docs/importers.md):

- ``inter_token_latency`` is (request latency - TTFT) / (output length - 1) per request:
  benchdoc's ``tpot_ms``, not its ``itl_ms``.
- AIPerf's ``inter_chunk_latency`` is the raw gap between chunks: ``chunk_gap_ms``.
- ``time_to_first_token`` is the first response chunk (genai-perf: the first
  non-reasoning token).
- Output lengths come from the client's tokenizer by default, not the server's usage.
- ``output_token_throughput_per_user`` is each request's own rate: ``user_output_tok_s``.
- AIPerf's ``error_rate`` is derived: errors / (requests + errors), where
  ``request_count`` counts the successful requests; genai-perf reports no errors.
- ``input_tok_s`` is AIPerf's ``input_token_throughput``; only a file without it (older
  AIPerf, genai-perf) has it derived from ``total_isl / benchmark_duration``, which
  differs when requests failed. ``total_token_throughput`` is ``total_tok_s``.
- AIPerf 0.13 keeps its settings in ``input_config.models.items[].name`` and
  ``input_config.phases`` (the profiling phase's ``concurrency`` or ``rate``); earlier
  layouts (``model_names``, ``loadgen``) are read too.
- genai-perf and AIPerf files look alike; each format refuses the other's file (AIPerf's
  carry ``aiperf_version`` or ``schema_version``).

Units are read from each metric's ``unit`` and converted (s, ms, us, ns to ms).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdoc.errors import ImportFormatError
from benchdoc.importers.base import ImportedRun, fingerprints, scaled
from benchdoc.importers.reading import (
    Where,
    as_object,
    load_json_document,
    number,
    utc_from_text,
    walk,
)
from benchdoc.ledger.models import Sample
from benchdoc.workloads.metrics import percentile_suffix

EXPECTED = "a genai-perf or AIPerf JSON export (metric objects with unit, avg and percentiles)"
WRITTEN_BY = {
    "genai-perf": "a genai-perf *_genai_perf.json export",
    "aiperf": "an AIPerf profile_export_aiperf.json, with aiperf_version",
}

# Per-request distributions -> (benchdoc metric, kind of unit); avg -> _mean, pNN -> _pNN.
DISTRIBUTIONS: dict[str, tuple[str, str]] = {
    "time_to_first_token": ("ttft_ms", "time"),
    "inter_token_latency": ("tpot_ms", "time"),
    "request_latency": ("e2e_ms", "time"),
    "inter_chunk_latency": ("chunk_gap_ms", "time"),
    "output_token_throughput_per_user": ("user_output_tok_s", "rate"),
}

# Run-level values (their "avg") -> (benchdoc metric, kind of unit).
RUN_VALUES: dict[str, tuple[str, str]] = {
    "output_token_throughput": ("output_tok_s", "rate"),
    "input_token_throughput": ("input_tok_s", "rate"),
    "total_token_throughput": ("total_tok_s", "rate"),
    "request_throughput": ("request_s", "rate"),
    "spec_decode_acceptance_length": ("accept_length", "count"),
}

PERCENTILE_KEYS = ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99")

# Time units -> factor to milliseconds.
TIME_UNITS: dict[str, float] = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "us": 1e-3, "ns": 1e-6}

REQUIRED = ("request_throughput", "request_latency")


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("request_latency"), dict) and "unit" in value["request_latency"]


def parse_genai_perf(path: Path) -> list[ImportedRun]:
    return [_run(path, "genai-perf")]


def parse_aiperf(path: Path) -> list[ImportedRun]:
    return [_run(path, "aiperf")]


def is_aiperf(obj: dict[str, Any]) -> bool:
    """AIPerf writes its version (and a schema version); genai-perf writes neither."""
    return "aiperf_version" in obj or "schema_version" in obj


def _run(path: Path, fmt: str) -> ImportedRun:
    document = load_json_document(path, EXPECTED)
    where = Where(path, None, "", EXPECTED)
    obj = as_object(document, where)
    for key in REQUIRED:
        if key not in obj:
            raise where.error(f"missing metric '{key}'")
    tool = "aiperf" if is_aiperf(obj) else "genai-perf"
    if tool != fmt:
        writer = f"AIPerf {obj.get('aiperf_version') or ''}".strip() if tool == "aiperf" else "genai-perf"
        raise ImportFormatError(f"written by {writer}, not {fmt} (expected {WRITTEN_BY[fmt]})", path)
    return ImportedRun(
        format=fmt,
        file=str(path),
        entry="document",
        line=None,
        label=_label(tool, obj.get("input_config")),
        samples=tuple(_samples(obj, tool, where)),
        **fingerprints(fmt, obj),
        started_at=utc_from_text(obj.get("start_time"), where, "start_time"),
        finished_at=utc_from_text(obj.get("end_time"), where, "end_time"),
        environment=_environment(obj, tool),
        metadata=_metadata(obj, where),
    )


def _samples(obj: dict[str, Any], tool: str, where: Where) -> list[Sample]:
    """The document's figures as benchdoc's metrics (one repetition)."""
    samples: list[Sample] = []
    for source, (metric, kind) in DISTRIBUTIONS.items():
        if obj.get(source) is None:
            continue
        stats = as_object(obj[source], where.child(source))
        factor = _factor(stats, kind, where.child(source))
        mean = number(stats, "avg", where.child(source))
        if mean is not None:
            samples.append(Sample(f"{metric}_mean", scaled(mean, factor), 0))
        for key in PERCENTILE_KEYS:
            value = number(stats, key, where.child(source))
            if value is not None:
                samples.append(Sample(f"{metric}_{percentile_suffix(float(key[1:]))}", scaled(value, factor), 0))
    for source, (metric, kind) in RUN_VALUES.items():
        value = _avg(obj, source, where)
        if value is not None:
            samples.append(Sample(metric, scaled(value, _factor(obj[source], kind, where.child(source))), 0))
    isl, duration = _avg(obj, "total_isl", where), _avg(obj, "benchmark_duration", where)
    if isl is not None and duration and not any(s.metric == "input_tok_s" for s in samples):
        duration_ms = duration * _factor(obj["benchmark_duration"], "time", where.child("benchmark_duration"))
        samples.append(Sample("input_tok_s", isl / (duration_ms / 1000.0), 0))
    error_rate = _error_rate(obj, where) if tool == "aiperf" else None
    if error_rate is not None:
        samples.append(Sample("error_rate", error_rate, 0))
    return samples


def _environment(obj: dict[str, Any], tool: str) -> dict[str, Any]:
    environment: dict[str, Any] = {"tool": tool}
    if obj.get("aiperf_version"):
        environment["tool_version"] = obj["aiperf_version"]
    model = _model(obj.get("input_config"))
    if model:
        environment["model"] = model
    gpus = _gpus(obj.get("telemetry_data"))
    if gpus:
        environment["gpus"] = gpus
    return environment


def _metadata(obj: dict[str, Any], where: Where) -> dict[str, Any]:
    """The tool's own fields kept with the run, and the metrics benchdoc does not map."""
    metadata: dict[str, Any] = {
        "output_tokens_source": "client tokenizer (unless the server's count was asked for)",
    }
    for key in ("schema_version", "benchmark_id", "was_cancelled", "error_summary", "input_config"):
        if obj.get(key) is not None:
            metadata[key] = obj[key]
    for key in ("request_count", "error_request_count", "total_isl", "total_osl", "benchmark_duration"):
        value = _avg(obj, key, where)
        if value is not None:
            metadata[key] = value
    known = set(DISTRIBUTIONS) | set(RUN_VALUES)
    unmapped = sorted(k for k, v in obj.items() if isinstance(v, dict) and "unit" in v and k not in known)
    if unmapped:
        metadata["metrics_not_mapped"] = unmapped
    return metadata


def _avg(obj: dict[str, Any], key: str, where: Where) -> float | None:
    if obj.get(key) is None:
        return None
    return number(as_object(obj[key], where.child(key)), "avg", where.child(key))


def _factor(stats: Any, kind: str, where: Where) -> float:
    """The factor from the metric's unit to benchdoc's: ms for times, per second for rates."""
    unit = stats.get("unit") if isinstance(stats, dict) else None
    if kind == "count":
        return 1.0
    if not isinstance(unit, str):
        raise where.error("missing key 'unit'")
    cleaned = unit.replace(" ", "").lower()
    if kind == "rate":
        if not cleaned.removesuffix("/user").endswith(("/sec", "/s", "/second")):
            raise where.error(f"unit {unit!r} is not per second")
        return 1.0
    if cleaned not in TIME_UNITS:
        raise where.error(f"unit {unit!r} is not a time unit ({', '.join(TIME_UNITS)})")
    return TIME_UNITS[cleaned]


def _error_rate(obj: dict[str, Any], where: Where) -> float | None:
    """errors / (successful requests + errors); AIPerf writes null counts when there were no errors."""
    requests = _avg(obj, "request_count", where)
    if requests is None:
        return None
    errors = _avg(obj, "error_request_count", where)
    if errors is None:
        summary = obj.get("error_summary")
        counts = [e.get("count") for e in summary if isinstance(e, dict)] if isinstance(summary, list) else []
        errors = float(sum(c for c in counts if isinstance(c, (int, float)) and not isinstance(c, bool)))
    total = requests + errors
    return errors / total if total > 0 else None


def _model(config: Any) -> str | None:
    items = walk(config, "models", "items")  # AIPerf 0.13
    if isinstance(items, list):
        names = [str(i["name"]) for i in items if isinstance(i, dict) and i.get("name")]
        if names:
            return ", ".join(names)
    for keys in (("model_names",), ("endpoint", "model_names"), ("model",)):
        value = walk(config, *keys)
        if isinstance(value, list) and value:
            return ", ".join(str(v) for v in value)
        if isinstance(value, str) and value:
            return value
    return None


def _profiling_phase(config: Any) -> dict[str, Any] | None:
    """AIPerf 0.13's measured phase: ``input_config.phases[]`` of kind ``profiling``."""
    phases = walk(config, "phases")
    if not isinstance(phases, list):
        return None
    for phase in phases:
        if isinstance(phase, dict) and phase.get("kind", "profiling") == "profiling":
            return phase
    return None


def _label(tool: str, config: Any) -> str:
    parts = [tool]
    phase = _profiling_phase(config)
    if phase is not None:
        if phase.get("concurrency") is not None:
            parts.append(f"concurrency={phase['concurrency']}")
        if phase.get("rate") is not None:
            parts.append(f"request_rate={phase['rate']}")
        if len(parts) > 1:
            return " ".join(parts)
    for name, paths in (
        ("concurrency", (("loadgen", "concurrency"), ("concurrency",), ("perf_analyzer", "stimulus", "concurrency"))),
        ("request_rate", (("loadgen", "request_rate"), ("request_rate",), ("perf_analyzer", "stimulus", "request_rate"))),
    ):
        for keys in paths:
            value = walk(config, *keys)
            if value is not None and not isinstance(value, (dict, list)):
                parts.append(f"{name}={value}")
                break
    return " ".join(parts)


def _gpus(telemetry: Any) -> list[str]:
    names: list[str] = []
    endpoints = walk(telemetry, "endpoints")
    if isinstance(endpoints, dict):
        for endpoint in endpoints.values():
            gpus = walk(endpoint, "gpus")
            if isinstance(gpus, dict):
                names.extend(str(g.get("gpu_name")) for g in gpus.values() if isinstance(g, dict) and g.get("gpu_name"))
    return names
