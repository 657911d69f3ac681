"""Each request's prompt and lengths: synthetic, tokenizer, dataset, corpus, shared prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdoc.errors import UsageError
from benchdoc.workloads import WorkloadSpec
from benchdoc.workloads.prompt_source import prompt_source

from .tokenizer_fixture import CORPUS, build_tokenizer

URL = "http://127.0.0.1:1"


@pytest.fixture(scope="module")
def tokenizer_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(build_tokenizer(tmp_path_factory.mktemp("tok")))


def jsonl(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_without_a_tokenizer_prompts_are_words_and_say_so() -> None:
    source = prompt_source(WorkloadSpec(url=URL, input_tokens=12, output_tokens=5))
    plan = source.plan(0)
    assert len(plan.text.split()) == 12 and plan.input_tokens == 12 and plan.output_tokens == 5
    assert source.plan(0) == plan and source.plan(1) != plan
    provenance = source.provenance()
    assert provenance["prompts"] == "synthetic words" and provenance["input_length"] == "prompt-words"
    assert provenance["tokenizer"] is None and "about one token each" in provenance["note"]


def test_with_a_tokenizer_input_tokens_are_exact(tokenizer_path: str) -> None:
    source = prompt_source(WorkloadSpec(url=URL, input_tokens=40, input_tokens_max=90, tokenizer=tokenizer_path))
    assert source.tokenizer is not None
    for number in range(10):
        plan = source.plan(number)
        assert 40 <= plan.input_tokens <= 90
        assert source.tokenizer.count(plan.text) == plan.input_tokens
    assert source.provenance()["prompts"] == "random token ids decoded"
    assert source.provenance()["tokenizer"]["vocab_size"] == 300


def test_dataset_prompts_as_written_with_their_output_lengths(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "d.jsonl", [{"prompt": f"question number {i}", "output_len": 10 + i} for i in range(5)])
    source = prompt_source(WorkloadSpec(url=URL, dataset=path, seed=1))
    plans = [source.plan(n) for n in range(10)]
    assert {p.text for p in plans} == {f"question number {i}" for i in range(5)}
    assert all(p.output_tokens == 10 + int(p.text.split()[-1]) for p in plans)
    assert all(p.input_tokens == 3 for p in plans)
    # Seeded sampling: every entry once before any repeats, in a seed-dependent order.
    assert [p.text for p in plans[:5]] == [p.text for p in plans[5:]]
    other = prompt_source(WorkloadSpec(url=URL, dataset=path, seed=2))
    assert [other.plan(n).text for n in range(5)] != [p.text for p in plans[:5]]
    fixed = prompt_source(WorkloadSpec(url=URL, dataset=path, dataset_output_len=False, output_tokens=7))
    assert fixed.plan(0).output_tokens == 7
    assert source.provenance()["dataset"]["entries"] == 5


def test_sharegpt_answers_give_output_lengths(tmp_path: Path, tokenizer_path: str) -> None:
    path = tmp_path / "sg.json"
    answer = "throughput grows with the batch"
    path.write_text(json.dumps([{"conversations": [{"from": "human", "value": "why batch"},
                                                    {"from": "gpt", "value": answer}]}]), encoding="utf-8")
    assert prompt_source(WorkloadSpec(url=URL, dataset=str(path))).plan(0).output_tokens == 5
    with_tokenizer = prompt_source(WorkloadSpec(url=URL, dataset=str(path), tokenizer=tokenizer_path))
    assert with_tokenizer.tokenizer is not None
    assert with_tokenizer.plan(0).output_tokens == with_tokenizer.tokenizer.count(answer)


def test_truncated_prompts_drop_the_short_ones_and_fail_when_none_is_long_enough(
    tmp_path: Path, tokenizer_path: str
) -> None:
    path = jsonl(tmp_path / "d.jsonl", [{"prompt": "the dog"}, {"prompt": CORPUS[2]}])
    source = prompt_source(WorkloadSpec(url=URL, dataset=path, truncate_prompts=True, input_tokens=6,
                                        tokenizer=tokenizer_path))
    assert source.tokenizer is not None
    for number in range(4):
        plan = source.plan(number)
        assert plan.input_tokens == 6 and source.tokenizer.count(plan.text) == 6
        assert CORPUS[2].startswith(plan.text)
    assert source.provenance()["dataset"]["used_entries"] == 1
    with pytest.raises(UsageError) as caught:
        prompt_source(WorkloadSpec(url=URL, dataset=path, truncate_prompts=True, input_tokens=500))
    assert "no prompt in the dataset is as long as the requested 500 words" in str(caught.value)
    assert str(caught.value).startswith(path)


def test_text_corpus_is_sliced_to_the_requested_length(tmp_path: Path, tokenizer_path: str) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS), encoding="utf-8")
    words = prompt_source(WorkloadSpec(url=URL, dataset=str(path), input_tokens=25))
    assert len(words.plan(3).text.split()) == 25 and " ".join(CORPUS).find(words.plan(3).text) >= 0
    tokens = prompt_source(WorkloadSpec(url=URL, dataset=str(path), input_tokens=33, tokenizer=tokenizer_path))
    assert tokens.tokenizer is not None and tokens.tokenizer.count(tokens.plan(0).text) == 33
    short = tmp_path / "short.txt"
    short.write_text("only four words here", encoding="utf-8")
    with pytest.raises(UsageError, match="the corpus has 4 words, too short for prompts of 25 words"):
        prompt_source(WorkloadSpec(url=URL, dataset=str(short), input_tokens=25))


def test_shared_prefix_groups_share_one_system_prompt_each() -> None:
    source = prompt_source(WorkloadSpec(url=URL, input_tokens=8, shared_prefix_groups=3, shared_prefix_tokens=50))
    plans = [source.plan(n) for n in range(9)]
    systems = [p.system for p in plans]
    assert len(set(systems)) == 3 and systems[0] == systems[3] == systems[6]
    assert all(p.system is not None and len(p.system.split()) == 50 for p in plans)
    # Sent as prefix, blank line, prompt: the blank line counts as one token in words.
    assert all(p.input_tokens == 59 for p in plans)
    assert len({p.text for p in plans}) == 9  # the questions differ
    # On the chat API the prefix is a system message of its own: no separator.
    chat = prompt_source(WorkloadSpec(url=URL, api="openai-chat", input_tokens=8, shared_prefix_groups=3,
                                      shared_prefix_tokens=50))
    assert chat.plan(0).input_tokens == 58
    assert "3 shared prefixes of 50 tokens" in source.provenance()["prompts"]


def test_the_prefix_separator_is_counted_with_the_tokenizer(tokenizer_path: str) -> None:
    from benchdoc.workloads.protocols import GenerationRequest

    source = prompt_source(WorkloadSpec(url=URL, input_tokens=8, shared_prefix_groups=2, shared_prefix_tokens=20,
                                        tokenizer=tokenizer_path))
    assert source.tokenizer is not None
    for number in range(4):
        plan = source.plan(number)
        sent = GenerationRequest(prompt=plan.text, system=plan.system, output_tokens=4).full_prompt
        assert plan.input_tokens == source.tokenizer.count(sent)


def test_spec_checks_the_prompt_settings() -> None:
    problems = WorkloadSpec(url=URL, dataset_format="csv", truncate_prompts=True, shared_prefix_tokens=5).problems()
    text = "; ".join(problems)
    assert "dataset_format must be one of" in text
    assert "truncate_prompts applies to a dataset" in text
    assert "shared_prefix_tokens needs shared_prefix_groups" in text


@pytest.mark.timing
@pytest.mark.timeout(120)
def test_long_tokenized_prompts_are_built_before_timing_starts(sim_subprocess, tokenizer_path: str) -> None:
    # An 8,192-token prompt takes tens of milliseconds to make with a tokenizer: made as each
    # request fell due, 30 of them a second would hold the event loop for most of each second.
    from benchdoc.workloads import run_workload

    url = sim_subprocess("--ttft-ms", "5", "--step-ms", "1")
    result = run_workload(WorkloadSpec(url=url, rate=30.0, requests=45, input_tokens=8192, output_tokens=4,
                                       tokenizer=tokenizer_path, burstiness=100.0, warmup_requests=1,
                                       metrics_url="", workers=1))
    assert result.failures == [] and result.aborted is None
    assert result.metrics["queue_ms_p50"] < 5.0, result.metrics["queue_ms_p50"]
    assert result.client is not None and not result.client.bound, result.client.reasons
    assert {r.requested_input_tokens for r in result.records} == {8192}


def test_dataset_length_filters_keep_entries_within_their_bounds(tmp_path: Path) -> None:
    rows = [{"prompt": "a b", "output_len": 8}, {"prompt": "a b c d e", "output_len": 2},
            {"prompt": " ".join(["w"] * 12), "output_len": 8}, {"prompt": "a b c d e f", "output_len": 9},
            {"prompt": "a b c d", "output_len": 5}]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    source = prompt_source(WorkloadSpec(url=URL, dataset=str(path), dataset_min_tokens=4, dataset_max_input=10,
                                        dataset_max_total=15))
    # Kept: 6 + 9 words and 4 + 5; dropped: a 2-word prompt, a 2-token answer, a 12-word prompt.
    kept = {source.plan(n).text for n in range(6)}
    assert kept == {"a b c d e f", "a b c d"}
    assert source.provenance()["dataset"]["filtered_out"] == 3
    with pytest.raises(UsageError, match=r"no entry of the dataset is within the length filters \(5 dropped\)"):
        prompt_source(WorkloadSpec(url=URL, dataset=str(path), dataset_max_input=1))
    with pytest.raises(UsageError, match="the dataset length filters apply to a dataset"):
        WorkloadSpec(url=URL, dataset_max_total=10).resolved()
