"""The registry: every format parses its sample into runs that keep benchdoc's contract."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError, UsageError
from benchdoc.importers import FORMATS, detect_format, parse_file, resolve_format
from benchdoc.ledger import RunMetadata

from .conftest import Truncate, sample

SAMPLES = {
    "sglang_serving.jsonl": "sglang-serving",
    "sglang_one_batch.jsonl": "sglang-one-batch",
    "sglang_one_batch_server.jsonl": "sglang-one-batch",
    "vllm_serve.json": "vllm-serve",
    "vllm_serve_append.json": "vllm-serve",
    "genai_perf.json": "genai-perf",
    "profile_export_aiperf.json": "aiperf",
    "guidellm.json": "guidellm",
    "llmperf_summary.json": "llmperf",
    "hyperfine.json": "hyperfine",
    "pytest_benchmark.json": "pytest-benchmark",
}

# Names documents can quote: lowercase words and underscores, no dots.
METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def test_every_format_has_a_sample() -> None:
    assert set(SAMPLES.values()) == set(FORMATS)


@pytest.mark.parametrize(("name", "fmt"), SAMPLES.items())
def test_the_format_is_told_from_the_content(name: str, fmt: str) -> None:
    assert detect_format(sample(name)) == fmt


@pytest.mark.parametrize(("name", "fmt"), SAMPLES.items())
def test_every_run_keeps_the_metric_contract(name: str, fmt: str) -> None:
    runs = parse_file(sample(name), fmt)
    assert runs
    for run in runs:
        assert run.format == fmt and run.samples
        keys = [(s.metric, s.repetition) for s in run.samples]
        assert len(keys) == len(set(keys)), f"{run.location}: a metric has two values for one repetition"
        for s in run.samples:
            assert METRIC_NAME.match(s.metric), s.metric
            assert isinstance(s.value, float) and math.isfinite(s.value)
        for metric, values in run.metrics().items():
            if metric.endswith("_ms") or "_ms_" in metric:
                assert all(v >= 0 for v in values), metric
        new = run.to_new_run("eagle3", note="from the GPU box")
        assert new.experiment == "eagle3" and new.source == f"import:{fmt}" and new.note == "from the GPU box"
        assert new.metadata.imported.fingerprint == run.fingerprint
        assert new.metadata.imported.entry == run.entry
        assert RunMetadata.from_json(json.loads(json.dumps(new.metadata.to_json()))) == new.metadata
        json.dumps(new.environment)


def test_to_new_run_carries_times_host_and_repetitions() -> None:
    run = parse_file(sample("pytest_benchmark.json"), "pytest-benchmark")[0]
    new = run.to_new_run("tokenizer")
    assert new.finished_at == datetime(2025, 11, 2, 16, 45, 12, 401873, tzinfo=timezone.utc)
    assert new.host == "bench-runner-2" and new.git_dirty is False
    assert [s.repetition for s in new.samples] == list(range(8))
    assert new.metadata.imported.label == "tests/test_bench.py::test_encode[short]"


def test_fingerprints_follow_content_not_key_order(tmp_path: Path) -> None:
    lines = sample("sglang_serving.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    reordered = tmp_path / "reordered.jsonl"
    reordered.write_text(json.dumps(dict(reversed(list(first.items())))) + "\n" + lines[1] + "\n")
    original = parse_file(sample("sglang_serving.jsonl"), "sglang")
    again = parse_file(reordered, "sglang")
    assert again[0].fingerprint == original[0].fingerprint
    assert again[1].fingerprint == original[1].fingerprint != original[0].fingerprint


def test_aliases_and_did_you_mean() -> None:
    assert resolve_format("vllm") == "vllm-serve" and resolve_format("SGLang") == "sglang-serving"
    with pytest.raises(UsageError, match="unknown format 'hyperfin' \\(did you mean 'hyperfine'\\?\\)"):
        resolve_format("hyperfin")


def test_the_wrong_format_says_what_the_file_looks_like() -> None:
    with pytest.raises(ImportFormatError) as info:
        parse_file(sample("guidellm.json"), "hyperfine")
    assert "missing key 'results'" in info.value.message
    assert "the file looks like 'guidellm' output" in info.value.message


def test_an_unknown_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "numbers.json"
    path.write_text('{"speed": 3}')
    with pytest.raises(ImportFormatError, match="cannot tell the format from its content"):
        parse_file(path, "auto")


def test_a_file_with_one_moment_gives_it_as_start_and_finish() -> None:
    (run,) = parse_file(sample("llmperf_summary.json"), "llmperf")
    new = run.to_new_run("baseline")
    assert new.started_at == new.finished_at == datetime(2024, 11, 4, 10, 10, 2, tzinfo=timezone.utc)
    (undated,) = parse_file(sample("sglang_one_batch.jsonl"), "sglang-one-batch")[:1]
    before = datetime.now(timezone.utc)
    dated = undated.to_new_run("x")  # a file that tells no time is dated when it is imported
    assert dated.started_at is not None and before <= dated.started_at == dated.finished_at


def test_a_truncated_json_lines_file_is_detected_and_refused_by_its_parser(truncated: Truncate) -> None:
    path, line = truncated("sglang_serving.jsonl", 0.6)
    assert detect_format(path) == "sglang-serving"
    with pytest.raises(ImportFormatError) as info:
        parse_file(path, "auto")
    assert info.value.line == line and "expected an SGLang bench_serving result" in info.value.message


def test_an_entry_without_any_value_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"results": [{"command": "true", "times": []}]}))
    with pytest.raises(ImportFormatError, match=r"results\[0\]: no timings: 'times' .* is missing or empty"):
        parse_file(path, "hyperfine")
    document = json.loads(sample("genai_perf.json").read_text())
    for key in list(document):
        if isinstance(document[key], dict) and "unit" in document[key]:
            document[key] = {"unit": document[key]["unit"], "avg": None}
    path.write_text(json.dumps(document))
    with pytest.raises(ImportFormatError, match="document has no values"):
        parse_file(path, "genai-perf")


def test_a_negative_throughput_is_refused_by_every_importer_door(tmp_path: Path) -> None:
    data = json.loads(sample("vllm_serve.json").read_text())
    data["output_throughput"] = -5.0
    path = tmp_path / "neg.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ImportFormatError, match=r"output_tok_s = -5 is negative"):
        parse_file(path, "vllm-serve")


@pytest.mark.parametrize("key", ["mean_ttft_ms", "duration", "completed"])
def test_vllm_importer_refuses_a_number_too_large_for_a_float(tmp_path: Path, key: str) -> None:
    data = json.loads(sample("vllm_serve.json").read_text())
    data[key] = 10**400
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ImportFormatError, match=rf"key '{key}' holds a number too large"):
        parse_file(path, "vllm-serve")


def test_an_sglang_file_is_not_accepted_as_vllm_serve() -> None:
    with pytest.raises(ImportFormatError, match=r"this is 'sglang-serving' output, not 'vllm-serve'; import it with --format sglang-serving"):
        parse_file(sample("sglang_serving.jsonl"), "vllm-serve")
    with pytest.raises(ImportFormatError, match=r"the file looks like 'vllm-serve' output"):
        parse_file(sample("vllm_serve.json"), "sglang-serving")


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf", b"\xef\xbb\xbf  \n"])
def test_a_file_holding_only_a_byte_order_mark_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(data)
    for fmt in ("auto", "aiperf", "vllm-serve"):
        with pytest.raises(ImportFormatError):
            parse_file(path, fmt)
