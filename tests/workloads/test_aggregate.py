"""Run-level metrics from hand-built records: the definitions, computed exactly."""

from __future__ import annotations

import pytest

from benchdoc.workloads.aggregate import (
    accept_length_from_meta_info,
    percentile,
    run_metrics,
    summarise,
)
from benchdoc.workloads.records import RequestRecord


def record(index: int, chunk_ms: list[float], tokens: list[int], end_ms: float, **kw: object) -> RequestRecord:
    r = RequestRecord(index=index, due_s=kw.pop("due_s", 0.0), requested_input_tokens=10,  # type: ignore[arg-type]
                      requested_output_tokens=sum(tokens))
    r.sent_s = kw.pop("sent_s", r.due_s)  # type: ignore[assignment]
    r.chunk_ms = chunk_ms
    r.chunk_tokens = tokens
    r.end_ms = end_ms
    r.output_tokens = kw.pop("output_tokens", sum(tokens))  # type: ignore[assignment]
    r.input_tokens = 10
    r.ok = kw.pop("ok", True)  # type: ignore[assignment]
    for key, value in kw.items():
        setattr(r, key, value)
    return r


def test_percentile_interpolates_between_ranks() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 50) == 2.5
    assert percentile(values, 90) == pytest.approx(3.7)
    assert percentile([5.0], 99) == 5.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_summarise_includes_default_and_extra_percentiles() -> None:
    summary = summarise(range(1, 101), [99.9, 95])
    assert set(summary) == {"mean", "std", "p50", "p90", "p95", "p99", "p99_9"}
    assert summary["mean"] == 50.5
    # The population standard deviation, as numpy's np.std (vLLM's std_ttft_ms): of 1..100.
    assert summary["std"] == pytest.approx(28.86607004772212)
    assert summarise([]) == {}


def test_per_request_definitions() -> None:
    # TTFT 100; chunks of 1, 3 and 2 tokens; end at 160.
    r = record(0, [100.0, 130.0, 150.0], [1, 3, 2], 160.0)
    assert r.ttft_ms == 100.0
    assert r.e2e_ms == 160.0
    assert r.tpot_ms == pytest.approx((160.0 - 100.0) / 5)
    assert r.chunk_gaps_ms() == [30.0, 20.0]
    assert r.itl_ms() == [10.0, 10.0, 10.0, 10.0, 10.0]


def test_text_without_tokens_passes_its_gap_on() -> None:
    r = record(0, [100.0, 110.0, 130.0], [1, 0, 2], 130.0)
    assert r.itl_ms() == [15.0, 15.0]
    assert r.chunk_gaps_ms() == [10.0, 20.0]


def test_single_token_has_no_tpot() -> None:
    assert record(0, [50.0], [1], 51.0).tpot_ms is None


def test_run_metrics_exclude_failures_from_latency_and_count_them_as_errors() -> None:
    good = record(0, [100.0, 110.0], [1, 1], 110.0)
    slow_failure = record(1, [5000.0], [1], 9000.0, ok=False, error="stalled")
    metrics = run_metrics([good, slow_failure], duration_s=2.0)
    assert metrics["error_rate"] == 0.5
    assert metrics["ttft_ms_mean"] == 100.0
    assert metrics["e2e_ms_p99"] == 110.0
    assert metrics["output_tok_s"] == 1.0  # 2 tokens / 2 s
    assert metrics["input_tok_s"] == 5.0
    assert metrics["request_s"] == 0.5
    assert "accept_length" not in metrics


def test_queue_time_is_kept_apart_from_latency() -> None:
    r = record(0, [100.0], [1], 100.0, due_s=1.0, sent_s=1.25)
    metrics = run_metrics([r], duration_s=1.0)
    assert metrics["queue_ms_mean"] == pytest.approx(250.0)
    assert metrics["ttft_ms_mean"] == 100.0
    assert metrics["e2e_ms_mean"] == 100.0


def test_no_success_leaves_latency_out_rather_than_zero() -> None:
    metrics = run_metrics([record(0, [], [], 0.0, ok=False)], duration_s=1.0)
    assert metrics["error_rate"] == 1.0
    assert metrics["output_tok_s"] == 0.0
    assert not any(name.startswith("ttft_ms") for name in metrics)


def test_accept_length_weighs_requests_by_verify_steps() -> None:
    # 100 tokens in 50 steps and 10 tokens in 10 steps: 110 / 60, not mean(2, 1).
    a = record(0, [1.0], [100], 2.0, spec_verify_ct=50)
    b = record(1, [1.0], [10], 2.0, spec_verify_ct=10)
    failed = record(2, [1.0], [99], 2.0, spec_verify_ct=1, ok=False)
    assert accept_length_from_meta_info([a, b, failed]) == pytest.approx(110 / 60)
    assert accept_length_from_meta_info([record(3, [1.0], [5], 2.0)]) is None


def test_achieved_concurrency_and_the_peak_output_rate() -> None:
    from array import array

    from benchdoc.workloads.aggregate import flight_metrics
    from benchdoc.workloads.records import RequestRecord

    def record(sent: float, end_ms: float, chunks: list[tuple[float, int]]) -> RequestRecord:
        return RequestRecord(index=0, due_s=sent, requested_input_tokens=1, requested_output_tokens=1, sent_s=sent,
                             ok=True, end_ms=end_ms, chunk_ms=array("d", [c for c, _ in chunks]),
                             chunk_tokens=array("q", [t for _, t in chunks]))

    # In flight: [0, 1.5], [0.5, 1.0], [2.0, 3.0]: 3 s of flight over 4 s; at most two at once.
    ok = [record(0.0, 1500.0, [(100.0, 4), (1200.0, 4)]), record(0.5, 500.0, [(100.0, 10)]),
          record(2.0, 1000.0, [(500.0, 3)])]
    figures = flight_metrics(ok, 4.0)
    assert figures["concurrency_mean"] == pytest.approx(3.0 / 4.0)
    assert figures["concurrency_max"] == 2.0
    # Second 0 holds 4 + 10 tokens, second 1 holds 4, second 2 holds 3.
    assert figures["output_tok_s_peak"] == 14.0
    assert flight_metrics([], 1.0) == {}
