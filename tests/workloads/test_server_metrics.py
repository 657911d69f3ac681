"""The server's /metrics over a run: scraped every second, parsed by prometheus_client's
parser, mapped from vLLM's or SGLang's names, kept with the result and in the ledger."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from benchdoc.workloads import WorkloadSpec, run_workload
from benchdoc.workloads.server_metrics import ServerSeries, dialect_of, parse_samples

VLLM_TEXT = """\
# HELP vllm:num_requests_running Running.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 2.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.3
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{model_name="m"} %(queries)s
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{model_name="m"} %(hits)s
"""

SGLANG_TEXT = """\
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m",dp="0"} 7.0
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m",dp="0"} 2.0
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m",dp="0"} 0.25
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="m",dp="0"} 0.75
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{model_name="m",dp="0"} 2.5
"""


def test_vllm_names_are_mapped_counts_summed_fractions_averaged_counters_differenced() -> None:
    first = parse_samples(VLLM_TEXT % {"queries": 100, "hits": 10})
    assert dialect_of(first) == "vllm"
    series = ServerSeries("vllm")
    series.add(0.0, first)
    series.add(1.0, parse_samples(VLLM_TEXT % {"queries": 300, "hits": 160}))
    assert series.values["running"] == [5.0, 5.0] and series.values["waiting"] == [1.0, 1.0]
    assert series.values["kv_cache_usage"] == pytest.approx([0.4, 0.4])
    # The hit rate between two scrapes: (160 - 10) / (300 - 100).
    assert series.values["prefix_cache_hit_rate"] == [None, pytest.approx(0.75)]
    assert series.present() == ["running", "waiting", "kv_cache_usage", "prefix_cache_hit_rate"]
    assert series.summary()["prefix_cache_hit_rate"] == {"mean": 0.75, "max": 0.75, "points": 1.0}


def test_sglang_names_are_mapped_and_a_bad_text_gives_nothing() -> None:
    samples = parse_samples(SGLANG_TEXT)
    assert dialect_of(samples) == "sglang" and dialect_of(samples, prefer="vllm") == "sglang"
    series = ServerSeries("sglang")
    series.add(0.5, samples)
    assert {k: v[0] for k, v in series.values.items()} == {
        "running": 7.0, "waiting": 2.0, "kv_cache_usage": 0.25, "prefix_cache_hit_rate": 0.75,
        "spec_accept_length": 2.5,
    }
    assert parse_samples("this is { not prometheus") == {}
    assert dialect_of(parse_samples("# TYPE other gauge\nother 1\n")) is None


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("api", "dialect"), [("openai-completions", "vllm"), ("sglang", "sglang")])
def test_a_run_keeps_the_servers_series_in_its_dialect(sim_subprocess, api: str, dialect: str) -> None:
    # Four batch slots, eight streams: four run and four wait while the run lasts (over 2 s).
    url = sim_subprocess("--ttft-ms", "20", "--step-ms", "25", "--max-running", "4")
    result = run_workload(WorkloadSpec(url=url, api=api, concurrency=8, requests=24, input_tokens=40,
                                       output_tokens=24, shared_prefix_groups=1, shared_prefix_tokens=64,
                                       warmup_requests=0))
    series = result.server_metrics
    assert series is not None and series.dialect == dialect
    assert len(series.times_s) >= 3 and series.times_s == sorted(series.times_s)
    assert max(v for v in series.values["running"] if v is not None) == 4.0
    assert max(v for v in series.values["waiting"] if v is not None) == 4.0
    assert max(v for v in series.values["kv_cache_usage"] if v is not None) > 0
    # Every prompt starts with the one shared prefix: most of each is found cached.
    assert series.summary()["prefix_cache_hit_rate"]["max"] > 0.5
    kept = result.to_dict()["server_metrics"]
    assert kept["dialect"] == dialect and kept["series"]["running"] == series.values["running"]
    from benchdoc.recording import summary
    from benchdoc.workloads.repeat import measured_repetition

    kept_by_the_recorder = summary([measured_repetition(0, 0, result)])["server_metrics"]
    assert kept_by_the_recorder.repetitions[0].times_s == tuple(series.times_s)


@pytest.mark.timeout(30)
def test_a_server_without_metrics_is_left_alone(canned_server) -> None:
    async def stream(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        event = {"choices": [{"text": " w", "finish_reason": "length"}], "usage": {"completion_tokens": 1}}
        await response.write(b"data: " + json.dumps(event).encode() + b"\n\ndata: [DONE]\n\n")
        return response

    server = canned_server({"POST /v1/completions": stream})
    result = run_workload(WorkloadSpec(url=server.url, model="m", requests=3, output_tokens=1))
    assert result.succeeded == 3 and result.server_metrics is None
    assert result.to_dict()["server_metrics"] is None


def test_only_the_wanted_lines_are_parsed_and_they_give_the_same_samples() -> None:
    from benchdoc.workloads.server_metrics import wanted_lines

    histogram = ["# HELP vllm:e2e_request_latency_seconds x", "# TYPE vllm:e2e_request_latency_seconds histogram"]
    histogram += [f'vllm:e2e_request_latency_seconds_bucket{{le="{le}",model_name="m"}} 1.0' for le in range(50)]
    text = "\n".join(histogram) + "\n" + VLLM_TEXT % {"queries": 10, "hits": 5}
    kept = wanted_lines(text)
    assert "e2e_request_latency" not in kept
    assert "# TYPE vllm:prefix_cache_hits counter" in kept and "vllm:prefix_cache_hits_total" in kept
    assert parse_samples(text) == parse_samples(VLLM_TEXT % {"queries": 10, "hits": 5})
    assert parse_samples(text)["vllm:num_requests_running"] == [3.0, 2.0]
