"""Prometheus rendering of the counters, in the text exposition format with vLLM's names."""

from __future__ import annotations

import re

from benchdoc.sim.metrics import Counters, render

SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)\{(?P<labels>[^}]*)\} (?P<value>\S+)$')


def _samples(text: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        assert match, f"not a Prometheus sample line: {line!r}"
        found[f"{match['name']}{{{match['labels']}}}"] = float(match["value"])
    return found


def test_every_metric_has_help_and_type_and_well_formed_samples() -> None:
    counters = Counters(spec_accepted_per_position=[0, 0])
    text = render(counters, 'my "model"', speculative=True)
    names = {m.group(1) for m in re.finditer(r"^# TYPE (\S+) (counter|gauge|summary)$", text, re.MULTILINE)}
    helped = {m.group(1) for m in re.finditer(r"^# HELP (\S+) ", text, re.MULTILINE)}
    assert names == helped
    assert {
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:prompt_tokens_total",
        "vllm:generation_tokens_total",
        "vllm:spec_decode_num_drafts_total",
        "vllm:spec_decode_num_draft_tokens_total",
        "vllm:spec_decode_num_accepted_tokens_total",
    } <= names
    samples = _samples(text)
    assert samples['vllm:prompt_tokens_total{model_name="my \\"model\\""}'] == 0.0
    assert "simulated" in text


def test_speculative_counters_follow_recorded_steps() -> None:
    counters = Counters(spec_accepted_per_position=[0, 0, 0])
    for accepted in (3, 0, 1, 2):
        counters.record_step(drafted=3, accepted=accepted)
    samples = _samples(render(counters, "m", speculative=True))
    label = 'model_name="m"'
    assert samples[f"vllm:spec_decode_num_drafts_total{{{label}}}"] == 4
    assert samples[f"vllm:spec_decode_num_draft_tokens_total{{{label}}}"] == 12
    assert samples[f"vllm:spec_decode_num_accepted_tokens_total{{{label}}}"] == 6
    per_position = [samples[f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{label},position="{p}"}}']
                    for p in range(3)]
    assert per_position == [3, 2, 1]
    assert counters.mean_accept_length() == 1 + 6 / 4


def test_without_speculation_no_spec_counters_are_exposed() -> None:
    text = render(Counters(), "m", speculative=False)
    assert "spec_decode" not in text
    assert Counters().mean_accept_length() is None
