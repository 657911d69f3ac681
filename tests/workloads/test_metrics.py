"""The catalogue of metric names: every name the generator records is defined."""

from __future__ import annotations

import pytest

from benchdoc.workloads.metrics import (
    describe,
    latency_aggregate_names,
    parse_percentile_suffix,
    percentile_suffix,
    run_metric_names,
)


def test_contract_names() -> None:
    names = run_metric_names()
    for name in ("output_tok_s", "input_tok_s", "request_s", "error_rate", "accept_length"):
        assert name in names
    for latency in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "queue_ms", "send_delay_ms", "chunk_gap_ms"):
        for agg in ("mean", "p50", "p90", "p99"):
            assert f"{latency}_{agg}" in names


def test_every_name_has_a_definition_unit_and_direction() -> None:
    for name in run_metric_names([95, 99.9]):
        definition = describe(name)
        assert definition.name == name
        assert definition.unit and definition.definition
        assert definition.direction in ("higher", "lower")
    assert describe("output_tok_s").direction == "higher"
    assert describe("ttft_ms_p99").direction == "lower"
    assert describe("ttft_ms_p99").label == "TTFT p99"


def test_percentile_suffixes_round_trip() -> None:
    assert percentile_suffix(99) == "p99"
    assert percentile_suffix(99.9) == "p99_9"
    assert parse_percentile_suffix("p99_9") == 99.9
    assert latency_aggregate_names("itl_ms", [95]) == ["itl_ms_mean", "itl_ms_std", "itl_ms_p50", "itl_ms_p90",
                                                       "itl_ms_p95", "itl_ms_p99"]
    assert describe("ttft_ms_std").label == "TTFT std"
    with pytest.raises(ValueError):
        percentile_suffix(100)


def test_unknown_names_are_refused() -> None:
    with pytest.raises(KeyError):
        describe("tok_s")
    with pytest.raises(KeyError):
        describe("latency_ms_p99")
