"""Counters from a Prometheus exposition and the accept length of their difference."""

from __future__ import annotations

from benchdoc.workloads.prometheus import ACCEPTED_TOKENS, DRAFTS, accept_length_from_counters, parse_counters

TEXT = """\
# HELP vllm:spec_decode_num_drafts_total Drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{model_name="a",engine="0"} 100.0
vllm:spec_decode_num_drafts_total{model_name="a",engine="1"} 50
vllm:spec_decode_num_accepted_tokens_total{model_name="a"} 180 1712345678
vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="a",position="0"} 99
vllm:other 3
"""


def test_sums_label_sets_and_ignores_others() -> None:
    counters = parse_counters(TEXT, [DRAFTS, ACCEPTED_TOKENS])
    assert counters == {DRAFTS: 150.0, ACCEPTED_TOKENS: 180.0}


def test_accept_length_from_the_difference_only() -> None:
    before = {DRAFTS: 1000.0, ACCEPTED_TOKENS: 5000.0}  # earlier traffic: 6 tok/step
    after = {DRAFTS: 1100.0, ACCEPTED_TOKENS: 5120.0}
    assert accept_length_from_counters(before, after) == 2.2


def test_missing_counters_or_no_drafts_give_none() -> None:
    assert accept_length_from_counters({}, {DRAFTS: 1.0, ACCEPTED_TOKENS: 1.0}) is None
    same = {DRAFTS: 10.0, ACCEPTED_TOKENS: 10.0}
    assert accept_length_from_counters(same, same) is None
    restarted = {DRAFTS: 1.0, ACCEPTED_TOKENS: 0.0}
    assert accept_length_from_counters({DRAFTS: 10.0, ACCEPTED_TOKENS: 10.0}, restarted) is None
