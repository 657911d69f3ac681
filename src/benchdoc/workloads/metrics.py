"""The names benchdoc gives what it measures, each with one definition, unit and direction.

These names are a contract: the load generator records them, importers translate other
tools' fields into them, and documents quote them. A latency metric ``L`` is recorded per
run as aggregates ``L_mean``, ``L_p50``, ``L_p90``, ``L_p99`` and any extra percentile
asked for (``L_p95``; a fractional percentile such as 99.9 is spelled ``L_p99_9`` because
a dot separates experiment and metric in document markers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower"]


@dataclass(frozen=True)
class MetricDefinition:
    """One metric: its name, a short label, unit, which direction is better, and meaning."""

    name: str
    label: str
    unit: str
    direction: Direction
    definition: str


# Per-request latency metrics; each is recorded per run as mean and percentiles.
LATENCY_METRICS: dict[str, MetricDefinition] = {
    m.name: m
    for m in (
        MetricDefinition(
            "ttft_ms",
            "TTFT",
            "ms",
            "lower",
            "Time to first token: from the moment the request is sent to the arrival of the "
            "first streamed chunk that carries non-empty output (chunks with only a role, "
            "an empty string or usage do not count).",
        ),
        MetricDefinition(
            "tpot_ms",
            "TPOT",
            "ms",
            "lower",
            "Time per output token after the first: (e2e_ms - ttft_ms) / (output tokens - 1), "
            "one value per request; requests with a single output token have none.",
        ),
        MetricDefinition(
            "itl_ms",
            "ITL",
            "ms",
            "lower",
            "Inter-token latency: the gaps between output tokens. A chunk that carries k tokens "
            "contributes k values of gap/k, where gap is the time since the previous "
            "output-carrying chunk; the first chunk contributes none. Values of all "
            "requests are pooled.",
        ),
        MetricDefinition(
            "e2e_ms",
            "E2E latency",
            "ms",
            "lower",
            "End-to-end latency: from the moment the request is sent to the end of its "
            "response stream (the terminating event received).",
        ),
        MetricDefinition(
            "queue_ms",
            "Client queue",
            "ms",
            "lower",
            "Time a request waited in the client between the moment it was due (its arrival "
            "time in an open loop, a free slot in a closed loop) and the moment it was sent. "
            "Kept apart from the latencies, which start at the send.",
        ),
        MetricDefinition(
            "send_delay_ms",
            "Send delay",
            "ms",
            "lower",
            "Time from the moment a request is sent (where its TTFT and E2E latency start) to "
            "the moment its bytes were handed to the socket: a new connection's handshake, or "
            "the client's own backlog when many requests leave at once. It is inside every "
            "latency of the request; a large one means the client, not the server, was slow.",
        ),
        MetricDefinition(
            "chunk_gap_ms",
            "Chunk gap",
            "ms",
            "lower",
            "Raw gaps between consecutive output-carrying chunks of a stream, one value per "
            "gap whatever the number of tokens in the chunk. Values of all requests are pooled.",
        ),
    )
}

# Run-level metrics recorded once per repetition.
RUN_METRICS: dict[str, MetricDefinition] = {
    m.name: m
    for m in (
        MetricDefinition(
            "output_tok_s",
            "Output tok/s",
            "tok/s",
            "higher",
            "Output throughput: the sum of output tokens of the successful requests of the "
            "measured phase divided by the measured phase's wall duration (first send to "
            "last response end; warm-up excluded).",
        ),
        MetricDefinition(
            "input_tok_s",
            "Input tok/s",
            "tok/s",
            "higher",
            "Input throughput: the sum of prompt tokens of the successful requests divided "
            "by the measured phase's wall duration.",
        ),
        MetricDefinition(
            "request_s",
            "Requests/s",
            "req/s",
            "higher",
            "Successful requests completed per second of the measured phase's wall duration.",
        ),
        MetricDefinition(
            "concurrency_mean",
            "Concurrency",
            "requests",
            "higher",
            "Achieved concurrency: the time-average number of successful requests in flight "
            "(each from its send to the end of its stream) over the measured phase's wall "
            "duration, i.e. the sum of their e2e latencies divided by the duration.",
        ),
        MetricDefinition(
            "concurrency_max",
            "Peak concurrency",
            "requests",
            "higher",
            "The most successful requests in flight at once during the measured phase (vLLM's "
            "max_concurrent_requests counts the same way).",
        ),
        MetricDefinition(
            "output_tok_s_peak",
            "Peak output tok/s",
            "tok/s",
            "higher",
            "The most output tokens of the successful requests that arrived within one second "
            "of the measured phase, its seconds counted from its start (vLLM's "
            "max_output_tokens_per_s).",
        ),
        MetricDefinition(
            "error_rate",
            "Error rate",
            "fraction",
            "lower",
            "Failed requests divided by all requests of the measured phase (0 to 1). Failed "
            "requests are excluded from every other metric.",
        ),
        MetricDefinition(
            "goodput_req_s",
            "Goodput",
            "req/s",
            "higher",
            "Requests that met every threshold of the run's SLO (for instance TTFT <= 200 ms "
            "and TPOT <= 50 ms), per second of the measured phase's wall duration. A failed "
            "request never meets it; a request with one output token has no TPOT and meets a "
            "TPOT bound. Recorded only when an SLO is given.",
        ),
        MetricDefinition(
            "slo_attainment",
            "SLO attainment",
            "fraction",
            "higher",
            "The fraction of all measured requests (failed ones included) that met every "
            "threshold of the run's SLO, 0 to 1. Recorded only when an SLO is given.",
        ),
        MetricDefinition(
            "capacity_req_s",
            "Capacity",
            "req/s",
            "higher",
            "From a capacity search: the highest request rate (open loop) seen to keep SLO "
            "attainment at or above the target (0.99 by default) while achieving at least 80% "
            "of the rate offered. The search doubles the rate until a level misses, then "
            "bisects; capacity_high_req_s is the lowest rate seen to miss, so the capacity lies "
            "between the two (the search's resolution). Not recorded when no level missed.",
        ),
        MetricDefinition(
            "capacity_high_req_s",
            "Capacity bound",
            "req/s",
            "higher",
            "From a capacity search: the lowest request rate seen to miss the SLO attainment "
            "target or its rate, the upper end of the search's resolution.",
        ),
        MetricDefinition(
            "send_delay_ms_max",
            "Send delay max",
            "ms",
            "lower",
            "The largest send delay (see send_delay_ms) of the run's successful requests.",
        ),
        MetricDefinition(
            "accept_length",
            "Accept length",
            "tok/step",
            "higher",
            "Speculative decoding: mean tokens produced per verify step, the bonus token "
            "included. From per-request server counts, sum(completion tokens) / "
            "sum(verify steps) over the successful requests, or from server counters "
            "differenced over the measured phase, 1 + accepted drafts / drafts.",
        ),
    )
}

DEFAULT_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0)

_AGGREGATE = re.compile(r"^(?P<base>[a-z0-9_]+?_ms)_(?P<agg>mean|std|p\d+(?:_\d+)?)$")


def percentile_suffix(percentile: float) -> str:
    """``p99`` for 99, ``p99_9`` for 99.9: the aggregate suffix of a percentile."""
    if not (0.0 < percentile < 100.0) or not math.isfinite(percentile):
        raise ValueError(f"a percentile must be strictly between 0 and 100 (got {percentile})")
    text = f"{percentile:.6f}".rstrip("0").rstrip(".")
    return "p" + text.replace(".", "_")


def parse_percentile_suffix(suffix: str) -> float:
    """Inverse of :func:`percentile_suffix`: ``p99_9`` -> 99.9."""
    if not re.fullmatch(r"p\d+(?:_\d+)?", suffix):
        raise ValueError(f"not a percentile suffix: {suffix!r}")
    return float(suffix[1:].replace("_", "."))


def latency_aggregate_names(metric: str, percentiles: Iterable[float] = ()) -> list[str]:
    """The run-level names recorded for one latency metric: mean, std, p50, p90, p99 and extras."""
    if metric not in LATENCY_METRICS:
        raise KeyError(f"not a latency metric: {metric!r}")
    wanted = sorted(set(DEFAULT_PERCENTILES) | {float(p) for p in percentiles})
    return [f"{metric}_mean", f"{metric}_std"] + [f"{metric}_{percentile_suffix(p)}" for p in wanted]


def run_metric_names(percentiles: Iterable[float] = ()) -> list[str]:
    """Every run-level metric name the load generator can record, in a stable order."""
    extra = list(percentiles)
    names = list(RUN_METRICS)
    for metric in LATENCY_METRICS:
        names.extend(latency_aggregate_names(metric, extra))
    return names


def describe(name: str) -> MetricDefinition:
    """The definition of a run-level metric name, aggregates included (``ttft_ms_p99``)."""
    if name in RUN_METRICS:
        return RUN_METRICS[name]
    if name in LATENCY_METRICS:
        return LATENCY_METRICS[name]
    match = _AGGREGATE.match(name)
    if match and match["base"] in LATENCY_METRICS:
        base = LATENCY_METRICS[match["base"]]
        agg = match["agg"]
        if agg == "mean":
            label, what = f"{base.label} mean", "Mean"
        elif agg == "std":
            label, what = f"{base.label} std", "Standard deviation (population, as numpy's default)"
        else:
            pct = parse_percentile_suffix(agg)
            pct_text = f"{pct:g}"
            label, what = f"{base.label} p{pct_text}", f"{pct_text}th percentile (linear interpolation)"
        return MetricDefinition(
            name=name,
            label=label,
            unit=base.unit,
            direction=base.direction,
            definition=f"{what} over the successful requests of the run of: {base.definition}",
        )
    raise KeyError(f"unknown metric name: {name!r}")
