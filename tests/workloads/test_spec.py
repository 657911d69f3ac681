"""Workload specs: validation names every problem; settings record all but secrets."""

from __future__ import annotations

import json

import pytest

from benchdoc.errors import UsageError
from benchdoc.workloads import Timeouts, WorkloadSpec


def test_defaults_resolve_to_a_closed_loop_of_100_requests() -> None:
    spec = WorkloadSpec(url="http://127.0.0.1:1").resolved()
    assert spec.concurrency == 1 and spec.requests == 100 and not spec.open_loop


def test_open_loop_keeps_concurrency_unset() -> None:
    spec = WorkloadSpec(url="http://127.0.0.1:1", rate=5, duration_s=3).resolved()
    assert spec.open_loop and spec.concurrency is None and spec.requests is None


def test_every_problem_is_named() -> None:
    spec = WorkloadSpec(url="ftp://x", api="grpc", concurrency=0, rate=-1, requests=0, duration_s=1,
                        output_tokens=0, timeouts=Timeouts(idle_s=0), percentiles=(100,))
    with pytest.raises(UsageError) as caught:
        spec.resolved()
    message = str(caught.value)
    for part in ("url must be", "api must be one of", "not both", "concurrency must be >= 1",
                 "rate must be > 0", "requests must be >= 1", "output_tokens must be >= 1",
                 "timeout idle_s", "percentiles must be"):
        assert part in message


def test_endpoint_is_derived_and_a_full_endpoint_url_accepted() -> None:
    assert WorkloadSpec(url="http://h:1/").endpoint_url == "http://h:1/v1/completions"
    assert WorkloadSpec(url="http://h:1/v1/chat/completions", api="openai-chat").base_url == "http://h:1"
    assert WorkloadSpec(url="http://h:1", api="sglang").endpoint_url == "http://h:1/generate"


def test_settings_never_hold_the_key_or_url_credentials() -> None:
    spec = WorkloadSpec(url="http://user:hunter2@127.0.0.1:9/", api_key="sk-secret-value", rate=2.0, burstiness=0.5)
    settings = spec.settings()
    text = json.dumps(settings)
    assert "sk-secret-value" not in text and "hunter2" not in text
    assert "sk-secret-value" not in repr(spec)
    assert settings["authenticated"] is True
    assert settings["load"] == "open" and settings["arrivals"] == "gamma(shape=0.5)"
    assert settings["forced_length_fields"] == ["max_tokens", "min_tokens", "ignore_eos"]
    assert settings["temperature"] == 0.0 and settings["seed"] == 0
