"""Prompt datasets from local files: the three layouts and their bad inputs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchdoc.errors import UsageError
from benchdoc.workloads.datasets import guess_format, load_dataset


def sharegpt(path: Path, records: object) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def conversation(prompt: str, answer: str) -> dict[str, object]:
    return {"id": "x", "conversations": [{"from": "human", "value": prompt}, {"from": "gpt", "value": answer}]}


def test_sharegpt_takes_first_turn_as_prompt_and_skips_single_turns(tmp_path: Path) -> None:
    path = sharegpt(tmp_path / "sg.json", [
        conversation("what is a kv cache", "a store of keys and values"),
        {"conversations": [{"from": "human", "value": "a lone question"}]},
        conversation("why batch requests", "throughput"),
    ])
    dataset = load_dataset(path)
    assert dataset.format == "sharegpt"
    assert [e.prompt for e in dataset.entries] == ["what is a kv cache", "why batch requests"]
    assert dataset.entries[0].answer == "a store of keys and values"
    assert dataset.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert dataset.provenance() == {
        "path": str(path), "format": "sharegpt", "size_bytes": path.stat().st_size,
        "sha256": dataset.sha256, "entries": 2,
    }


def test_jsonl_reads_prompt_and_optional_output_len(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"prompt": "hello there", "output_len": 12}\n\n{"prompt": "second"}\n', encoding="utf-8")
    dataset = load_dataset(path)
    assert [(e.prompt, e.output_len) for e in dataset.entries] == [("hello there", 12), ("second", None)]


def test_text_corpus_is_kept_whole(tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("one two three four five\nsix seven\n", encoding="utf-8")
    dataset = load_dataset(path)
    assert dataset.format == "text" and dataset.provenance()["words"] == 7


def test_format_follows_the_extension_unless_given() -> None:
    assert guess_format("a/b.json") == "sharegpt"
    assert guess_format("a/b.JSONL") == "jsonl"
    assert guess_format("a/b.txt") == "text"


@pytest.mark.parametrize(
    ("name", "content", "fmt", "expected"),
    [
        ("empty.json", "  \n", None, "empty.json: the dataset is empty"),
        ("dict.json", '{"prompt": "x"}', None, "found an object (a JSONL file?"),
        ("bad.json", '[{"conversations": [}]', None, "bad.json:1: not valid JSON"),
        ("nolist.json", '[{"text": "x"}]', None, "record 0: expected an object with a 'conversations' list"),
        ("short.json", '[{"conversations": [{"from": "human", "value": "x"}]}]', None, "no usable conversation"),
        ("noprompt.jsonl", '{"prompt": "ok"}\n{"text": "x"}\n', None, "noprompt.jsonl:2: expected a non-empty string 'prompt'"),
        ("badlen.jsonl", '{"prompt": "ok", "output_len": 0}\n', None, "badlen.jsonl:1: 'output_len' must be"),
        ("broken.jsonl", '{"prompt": "ok"}\n{"prompt": \n', None, "broken.jsonl:2: not valid JSON"),
        ("list.jsonl", '["x"]\n', None, "expected a JSON object with a 'prompt', found a list"),
        ("any.txt", "words", "csv", "unknown dataset format 'csv'"),
    ],
)
def test_bad_inputs_name_the_file_and_line(tmp_path: Path, name: str, content: str, fmt: str | None,
                                           expected: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_dataset(path, fmt)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="dataset file not found"):
        load_dataset(tmp_path / "nope.json")
    with pytest.raises(UsageError, match="found a folder"):
        load_dataset(tmp_path)


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(b"ok \xff\xfe")
    with pytest.raises(UsageError, match="not UTF-8"):
        load_dataset(path)
