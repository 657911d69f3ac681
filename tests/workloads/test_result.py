"""workloads.result: several repetitions' provenance as one."""

from __future__ import annotations

from benchdoc.recording import merge_provenance


def test_counts_add_up_and_differing_values_are_each_listed_once() -> None:
    first = {"output_tokens": {"usage": 5}, "accept_length": "sglang meta_info", "clock": "time.perf_counter"}
    second = {"output_tokens": {"usage": 3, "chunks": 1}, "accept_length": None, "clock": "time.perf_counter"}
    third = {"output_tokens": {"usage": 2}, "accept_length": "sglang meta_info", "clock": "time.perf_counter"}
    assert merge_provenance([first, second, third]) == {
        "output_tokens": {"usage": 10, "chunks": 1},
        "accept_length": ["sglang meta_info", None],
        "clock": "time.perf_counter",
    }
    assert merge_provenance([]) == {}


def test_a_dataset_or_tokenizer_description_is_kept_once_not_added_up() -> None:
    dataset = {"path": "prompts.jsonl", "format": "jsonl", "size_bytes": 120, "sha256": "ab" * 32, "entries": 3}
    parts = [{"output_tokens": {"usage": 4}, "dataset": dict(dataset)}, {"output_tokens": {"usage": 6}, "dataset": dict(dataset)}]
    assert merge_provenance(parts) == {"output_tokens": {"usage": 10}, "dataset": dataset}
    other = {**dataset, "sha256": "cd" * 32}
    assert merge_provenance([*parts, {"dataset": other}])["dataset"] == [dataset, other]
