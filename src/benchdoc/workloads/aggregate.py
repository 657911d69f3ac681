"""Run-level metrics from per-request records: means, percentiles and rates.

Pure functions: the same records always give the same numbers. Failed requests are
counted in ``error_rate`` and excluded from everything else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from benchdoc.workloads.metrics import DEFAULT_PERCENTILES, percentile_suffix
from benchdoc.workloads.records import RequestRecord


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """The ``pct`` percentile of already sorted values, interpolating linearly between
    the closest ranks (the usual definition, as numpy's default computes it)."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    if not 0.0 <= pct <= 100.0:
        raise ValueError(f"percentile must be within [0, 100] (got {pct})")
    position = (len(sorted_values) - 1) * pct / 100.0
    lower = math.floor(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    fraction = position - lower
    low_value = sorted_values[lower]
    return low_value + (sorted_values[upper] - low_value) * fraction


def summarise(values: Iterable[float], percentiles: Iterable[float] = ()) -> dict[str, float]:
    """``{"mean": .., "std": .., "p50": .., "p90": .., "p99": .., extras}``; empty when there
    are no values. The standard deviation is the population one (numpy's default, as vLLM
    and SGLang report it)."""
    ordered = sorted(values)
    if not ordered:
        return {}
    wanted = sorted(set(DEFAULT_PERCENTILES) | {float(p) for p in percentiles})
    mean = math.fsum(ordered) / len(ordered)
    result = {"mean": mean, "std": math.sqrt(math.fsum((v - mean) ** 2 for v in ordered) / len(ordered))}
    for pct in wanted:
        result[percentile_suffix(pct)] = percentile(ordered, pct)
    return result


def latency_values(records: Iterable[RequestRecord]) -> dict[str, list[float]]:
    """The per-request (or, for itl and chunk gaps, pooled per-token) values of each
    latency metric over the successful requests."""
    values: dict[str, list[float]] = {
        "ttft_ms": [],
        "tpot_ms": [],
        "itl_ms": [],
        "e2e_ms": [],
        "queue_ms": [],
        "send_delay_ms": [],
        "chunk_gap_ms": [],
    }
    for record in records:
        if not record.ok:
            continue
        for name, value in (
            ("ttft_ms", record.ttft_ms),
            ("tpot_ms", record.tpot_ms),
            ("e2e_ms", record.e2e_ms),
            ("queue_ms", record.queue_ms),
            ("send_delay_ms", record.send_delay_ms),
        ):
            if value is not None:
                values[name].append(value)
        values["itl_ms"].extend(record.itl_ms())
        values["chunk_gap_ms"].extend(record.chunk_gaps_ms())
    return values


def run_metrics(
    records: Sequence[RequestRecord],
    duration_s: float,
    percentiles: Iterable[float] = (),
    accept_length: float | None = None,
    slo: Sequence[tuple[str, float]] = (),
) -> dict[str, float]:
    """Every run-level metric the records support, by its catalogue name.

    ``duration_s`` is the measured phase's wall duration. A latency metric with no values
    (no successful request) is left out rather than reported as zero. With an ``slo``,
    goodput and SLO attainment are added.
    """
    extra = list(percentiles)
    ok = [r for r in records if r.ok]
    metrics: dict[str, float] = {}
    total = len(records)
    metrics["error_rate"] = (total - len(ok)) / total if total else 0.0
    if duration_s > 0:
        metrics["output_tok_s"] = sum(r.output_tokens or 0 for r in ok) / duration_s
        metrics["input_tok_s"] = sum(r.input_tokens or 0 for r in ok) / duration_s
        metrics["request_s"] = len(ok) / duration_s
        metrics.update(flight_metrics(ok, duration_s))
    if accept_length is not None:
        metrics["accept_length"] = accept_length
    if slo:
        good = sum(1 for r in ok if meets_slo(r, slo))
        metrics["slo_attainment"] = good / total if total else 0.0
        if duration_s > 0:
            metrics["goodput_req_s"] = good / duration_s
    for name, values in latency_values(ok).items():
        for suffix, value in summarise(values, extra).items():
            metrics[f"{name}_{suffix}"] = value
        if name == "send_delay_ms" and values:
            metrics["send_delay_ms_max"] = max(values)
    return metrics


def flight_metrics(ok: Sequence[RequestRecord], duration_s: float) -> dict[str, float]:
    """Achieved concurrency (the mean and the peak of the successful requests in flight,
    each from its send to the end of its stream) and the peak output rate (the most output
    tokens arriving within one second of the phase, its seconds counted from its start)."""
    spans = [(r.sent_s, r.sent_s + r.end_ms / 1000.0) for r in ok if r.sent_s is not None and r.end_ms is not None]
    if not spans:
        return {}
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    peak = running = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    buckets: dict[int, int] = {}
    for record in ok:
        if record.sent_s is None:
            continue
        for at_ms, tokens in zip(record.chunk_ms, record.chunk_tokens):
            second = int(record.sent_s + at_ms / 1000.0)
            buckets[second] = buckets.get(second, 0) + tokens
    result = {"concurrency_mean": math.fsum(end - start for start, end in spans) / duration_s,
              "concurrency_max": float(peak)}
    if buckets:
        result["output_tok_s_peak"] = float(max(buckets.values()))
    return result


def meets_slo(record: RequestRecord, slo: Iterable[tuple[str, float]]) -> bool:
    """Whether a request met every threshold (vLLM's goodput rule). A failed request never
    does; a missing TPOT (one output token) meets a TPOT bound."""
    if not record.ok:
        return False
    for name, limit in slo:
        value = getattr(record, name)
        if value is None:
            if name == "tpot_ms":
                continue
            return False
        if value > limit:
            return False
    return True


def accept_length_from_meta_info(records: Iterable[RequestRecord]) -> float | None:
    """Sum of completion tokens over sum of verify steps, over the successful requests
    that report verify steps (weights each request by its steps, not equally)."""
    tokens = 0
    steps = 0
    for record in records:
        if record.ok and record.spec_verify_ct and record.output_tokens is not None:
            tokens += record.output_tokens
            steps += record.spec_verify_ct
    if steps <= 0:
        return None
    return tokens / steps
