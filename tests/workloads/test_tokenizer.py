"""Exact token lengths with a tokenizer trained in the test."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchdoc.errors import UsageError
from benchdoc.workloads.tokenizer import load_tokenizer

from .tokenizer_fixture import build_tokenizer


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    build_tokenizer(folder)
    return folder


def test_a_folder_or_its_file_loads_with_its_digest(tokenizer_dir: Path) -> None:
    by_folder = load_tokenizer(tokenizer_dir)
    by_file = load_tokenizer(tokenizer_dir / "tokenizer.json")
    assert by_folder.info == by_file.info
    assert by_folder.info.vocab_size == 300 and len(by_folder.info.sha256) == 64


@pytest.mark.parametrize("tokens", [1, 7, 64, 500])
def test_random_text_encodes_back_to_exactly_n_tokens(tokenizer_dir: Path, tokens: int) -> None:
    tokenizer = load_tokenizer(tokenizer_dir)
    text, length = tokenizer.random_text(tokens, random.Random(tokens))
    assert length == tokens
    assert tokenizer.count(text) == tokens
    assert "<|endoftext|>" not in text  # special tokens are never drawn


def test_random_text_is_seeded(tokenizer_dir: Path) -> None:
    tokenizer = load_tokenizer(tokenizer_dir)
    assert tokenizer.random_text(20, random.Random(3)) == tokenizer.random_text(20, random.Random(3))
    assert tokenizer.random_text(20, random.Random(3)) != tokenizer.random_text(20, random.Random(4))


def test_truncate_cuts_to_n_tokens_or_says_too_short(tokenizer_dir: Path) -> None:
    tokenizer = load_tokenizer(tokenizer_dir)
    sentence = "prefix caching keeps the keys and values of a shared system prompt"
    cut = tokenizer.truncate(sentence, 3)
    assert cut is not None and cut[1] == 3 and tokenizer.count(cut[0]) == 3
    assert sentence.startswith(cut[0])
    assert tokenizer.truncate(sentence, tokenizer.count(sentence) + 1) is None


def test_missing_or_broken_tokenizer_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no tokenizer.json in this folder"):
        load_tokenizer(tmp_path)
    with pytest.raises(UsageError, match="tokenizer file not found"):
        load_tokenizer(tmp_path / "missing.json")
    broken = tmp_path / "tokenizer.json"
    broken.write_text('{"model": 1}', encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_tokenizer(broken)
    assert "not a tokenizer file" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.timeout(30)
def test_output_tokens_counted_from_the_text_when_the_server_sends_no_count(tokenizer_dir: Path,
                                                                           canned_server) -> None:
    from aiohttp import web

    from benchdoc.workloads import WorkloadSpec, run_workload

    pieces = ["the quick", " brown fox", " jumps over the lazy dog"]

    async def completions(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for i, piece in enumerate(pieces):
            reason = "stop" if i == len(pieces) - 1 else None
            event = {"choices": [{"text": piece, "finish_reason": reason}]}
            await response.write(b"data: " + json.dumps(event).encode() + b"\n\n")
        await response.write(b"data: [DONE]\n\n")
        return response

    server = canned_server({"POST /v1/completions": completions})
    spec = WorkloadSpec(url=server.url, model="m", requests=2, input_tokens=5, output_tokens=50, ignore_eos=False,
                        tokenizer=str(tokenizer_dir), metrics_url="")
    result = run_workload(spec)
    assert result.failures == []
    expected = load_tokenizer(tokenizer_dir).count("".join(pieces))
    assert expected != len(pieces)  # not the chunk count
    assert [r.output_tokens for r in result.records] == [expected, expected]
    assert result.provenance["output_tokens"] == {"tokenizer": 2}
    assert result.provenance["input_tokens"] == {"tokenizer": 2}
