"""Property tests of what comes from outside: the SSE parser and the usage blocks of the
stream decoders, the importers given deep, large and duplicated JSON, and the redaction
corpus wrapped in arbitrary text."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.hardening.test_redaction_corpus import CORPUS

from benchdoc.errors import BenchdocError
from benchdoc.importers import parse_file
from benchdoc.limits import MAX_SERVER_TOKENS
from benchdoc.untrusted import clean_text, safe_line
from benchdoc.workloads.protocols import ChatDecoder, CompletionsDecoder, SGLangDecoder, StreamError
from benchdoc.workloads.sse import SSEParser

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
SAMPLE = Path(__file__).parents[1] / "importers" / "data" / "sglang_serving.jsonl"


def _events(stream: bytes, cuts: list[int]) -> list[tuple[str, str]]:
    parser = SSEParser()
    events = []
    last = 0
    for cut in sorted({c % (len(stream) + 1) for c in cuts}):
        events += parser.feed(stream[last:cut])
        last = cut
    events += parser.feed(stream[last:])
    events += parser.close()
    return [(e.event, e.data) for e in events]


LINES = st.sampled_from([b"data: ", b"data:", b"event: x", b": comment", b"id: 1", b"retry: 5", b"", b"data: [DONE]",
                         b'data: {"choices": [{"text": "hi"}]}', b"\xef\xbb\xbf", b"data: \xff\xfe"])
ENDINGS = st.sampled_from([b"\n", b"\r\n", b"\r"])


@FUZZ
@given(lines=st.lists(st.tuples(LINES | st.binary(max_size=12), ENDINGS), max_size=12),
       cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_sse_events_do_not_depend_on_where_the_stream_was_cut(lines: list[tuple[bytes, bytes]], cuts: list[int]) -> None:
    stream = b"".join(line + end for line, end in lines)
    whole = _events(stream, [])
    assert _events(stream, cuts) == whole
    assert all(isinstance(data, str) for _, data in whole)


COUNTS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**40), max_value=10**40),
                   st.floats(allow_nan=True), st.text(max_size=5))


@FUZZ
@given(decoder=st.sampled_from([CompletionsDecoder, ChatDecoder, SGLangDecoder]),
       completion=COUNTS, prompt=COUNTS, verify=COUNTS, text=st.text(max_size=8))
def test_usage_blocks_are_counted_within_bounds_or_fail_the_request(decoder: Any, completion: Any, prompt: Any,
                                                                     verify: Any, text: str) -> None:
    usage = {"completion_tokens": completion, "prompt_tokens": prompt, "spec_verify_ct": verify}
    events = [
        {"choices": [{"text": text, "delta": {"content": text}, "index": 0}], "usage": usage},
        {"text": text, "meta_info": usage},
    ]
    reader = decoder()
    for event in events:
        try:
            got = reader.feed(json.dumps(event, allow_nan=True))
        except StreamError as err:
            assert str(err)
            continue
        assert got is None or isinstance(got, int)
    for count in (reader.completion_tokens, reader.prompt_tokens, reader.spec_verify_ct):
        assert count is None or 0 <= count <= MAX_SERVER_TOKENS


def _parse(text: str, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.jsonl"
        path.write_text(text)
        try:
            runs = parse_file(path, fmt)
        except BenchdocError as err:
            assert "\n" not in str(err)
            return
        assert runs


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(depth=st.integers(min_value=0, max_value=20_000), fmt=st.sampled_from(["auto", "sglang-serving"]),
       where=st.sampled_from(["around", "inside"]))
def test_importers_take_any_depth_as_runs_or_one_line(depth: int, fmt: str, where: str) -> None:
    first = SAMPLE.read_text().splitlines()[0]
    if where == "around":
        text = "[" * depth + first + "]" * depth
    else:
        obj = json.loads(first)
        text = json.dumps(obj)[:-1] + ', "extra": ' + "[" * depth + "]" * depth + "}"
    _parse(text + "\n", fmt)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(copies=st.integers(min_value=1, max_value=200), duplicate_key=st.booleans())
def test_importers_take_duplicated_entries_and_keys(copies: int, duplicate_key: bool) -> None:
    first = SAMPLE.read_text().splitlines()[0]
    if duplicate_key:
        first = first[:-1] + ', "output_throughput": -1}'
    _parse((first + "\n") * copies, "sglang-serving")


WRAP = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@FUZZ
@given(entry=st.sampled_from(CORPUS), before=WRAP, after=WRAP)
def test_the_redaction_corpus_survives_any_surrounding_text(entry: tuple[str, str], before: str, after: str) -> None:
    line, secret = entry
    cleaned = safe_line(f"{before} {line} {after}")
    assert secret not in cleaned
    assert clean_text(cleaned) == cleaned and "\n" not in cleaned
    assert safe_line(cleaned) == cleaned  # idempotent
