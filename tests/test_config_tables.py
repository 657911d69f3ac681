"""[servers.NAME] and [workloads.NAME]: validated into dataclasses; every mistake is one
error naming benchdoc.toml, the line and the key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchdoc.config import load_config
from benchdoc.config.tables import (
    DEFAULT_READY_URL,
    CommandWorkload,
    LoadgenWorkload,
    server_spec,
    workload_config,
)
from benchdoc.errors import ConfigError
from benchdoc.workloads.spec import Timeouts


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "benchdoc.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


def test_server_defaults_and_values(tmp_path: Path) -> None:
    config = load(tmp_path, """
[servers.sglang]
argv = ["python", "-m", "sglang.launch_server", "--port", "{port}", "--model-path", "{model}"]
model = "meta-llama/Llama-3.1-8B-Instruct"
env = { NCCL_ALGO = "Tree", OMP_NUM_THREADS = 8 }
ready_timeout = 900
shutdown_grace = 20
""")
    spec = server_spec(config, "sglang")
    assert spec.argv[:3] == ("python", "-m", "sglang.launch_server")
    assert spec.ready_url == DEFAULT_READY_URL
    assert spec.ready_timeout_s == 900.0 and spec.shutdown_grace_s == 20.0
    assert spec.env == {"NCCL_ALGO": "Tree", "OMP_NUM_THREADS": "8"}
    assert spec.port is None and spec.shell is False and spec.model == "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize(
    ("table", "needle", "message"),
    [
        ('argv = ["srv"]\nready_timout = 5', "ready_timout", "unknown key 'ready_timout' (did you mean 'ready_timeout'?)"),
        ('argv = "srv --port {port}"', "argv", "expected a list of arguments"),
        ("argv = []", "argv", "expected a non-empty list of strings"),
        ('argv = ["srv"]\nport = 70000', "port", "expected a port number between 1 and 65535"),
        ('argv = ["srv"]\nready_timeout = -1', "ready_timeout", "expected a number of seconds > 0"),
        ('argv = ["srv"]\nshell = "yes"', "shell", "expected true or false"),
        ('argv = ["srv"]\nenv = { "BAD NAME" = "1" }', "env", "not a valid environment variable name"),
        ('ready_url = "http://x"', "[servers.s]", "missing 'argv'"),
    ],
)
def test_server_errors_name_file_line_and_key(tmp_path: Path, table: str, needle: str, message: str) -> None:
    text = f"[experiments.a]\n\n[servers.s]\n{table}\n"
    config = load(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        server_spec(config, "s")
    error = str(info.value)
    assert error.startswith(f"{config.path}:{line_of(text, needle)}: servers.s")
    assert message in error


def test_shell_server_takes_one_command_line(tmp_path: Path) -> None:
    config = load(tmp_path, '[servers.s]\nshell = true\nargv = "source env.sh && srv --port {port}"\n')
    assert server_spec(config, "s").argv == ("source env.sh && srv --port {port}",)


def test_loadgen_workload(tmp_path: Path) -> None:
    config = load(tmp_path, """
[workloads.chat]
api = "openai-chat"
concurrency = 8
requests = 200
input_tokens = 512
output_tokens = 256
warmup_requests = 4
percentiles = [95, 99.9]
timeouts = { first_token_s = 30, idle_s = 10 }
api_key_env = "OPENAI_API_KEY"
""")
    workload = workload_config(config, "chat")
    assert isinstance(workload, LoadgenWorkload)
    assert workload.settings["concurrency"] == 8 and workload.settings["percentiles"] == (95.0, 99.9)
    assert workload.settings["timeouts"] == Timeouts(first_token_s=30.0, idle_s=10.0)
    assert workload.warmup_requests == 4 and workload.api_key_env == "OPENAI_API_KEY"


@pytest.mark.parametrize(
    ("table", "needle", "message"),
    [
        ("concurency = 4", "concurency", "unknown key 'concurency' (did you mean 'concurrency'?)"),
        ('requests = "many"', "requests", "expected a whole number, got 'many'"),
        ("ignore_eos = 1", "ignore_eos", "expected true or false, got 1"),
        ("concurrency = 2\nrate = 5.0", "[workloads.w]", "give either concurrency (closed loop) or rate"),
        ('api = "grpc"', "[workloads.w]", "api must be one of"),
        ("timeouts = { idle = 3 }", "timeouts", "unknown key 'idle' (did you mean 'idle_s'?)"),
        ('kind = "comand"', "kind", "did you mean 'command'?"),
        ('api_key_env = "sk-123"', "api_key_env", "expected the name of an environment variable"),
        ('rate = [1, "fast"]', "rate", "expected a list of numbers like [1, 2, 4, 8], got 'fast'"),
        ("rate = []", "rate", "expected at least one level, like rate = [1, 2, 4, 8]"),
        ("rate = [0, 2]", "rate", "a rate level must be > 0 (got 0.0)"),
        ("concurrency = [1, 2.5]", "concurrency", "a concurrency level is a whole number (got 2.5)"),
        ("concurrency = [8, 8]", "concurrency", "the level 8 is given twice"),
        ("requests = 5\nrate = [1, 2]\nconcurrency = 4", "rate", "sweep either rate or concurrency"),
        ("concurrency = [1, 8]\nmax_concurrency = 4", "[workloads.w]", "max_concurrency applies to an open loop"),
        ("find_capacity = true", "find_capacity", "a capacity search needs the workload's slo"),
        ('slo = "ttft_ms:200"\nfind_capacity = { traget = 0.9 }', "find_capacity",
         "unknown key 'traget' (did you mean 'target'?)"),
        ('slo = "ttft_ms:200"\nfind_capacity = { target = 1.5 }', "find_capacity", "within (0, 1], got 1.5"),
        ('slo = "ttft_ms:200"\nfind_capacity = true\nrate = [1, 2]', "rate",
         "a capacity search chooses the rates itself: give no rate"),
        ('headers = { "X-A" = 1 }', "headers", "expected a table of strings"),
        ('headers = "X-A: 1"', "headers", "expected a table, got 'X-A: 1'"),
        ("concurrency = 2\nramp_up_s = 5", "[workloads.w]", "ramp_up_s applies to an open loop at a rate"),
    ],
)
def test_loadgen_errors(tmp_path: Path, table: str, needle: str, message: str) -> None:
    text = f"[workloads.w]\n{table}\n"
    config = load(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        workload_config(config, "w")
    assert str(info.value).startswith(f"{config.path}:{line_of(text, needle)}: workloads.w")
    assert message in str(info.value)


def test_a_sweep_and_a_capacity_search_are_read_from_the_workload(tmp_path: Path) -> None:
    config = load(tmp_path, "[workloads.rates]\nrate = [1, 2.5, 8]\nrequests = 20\nmax_concurrency = 16\n"
                  "[workloads.streams]\nconcurrency = [1, 8, 32]\n"
                  '[workloads.search]\nslo = "ttft_ms:200"\nrequests = 50\nfind_capacity = { target = 0.95, start_rate = 2 }\n')
    rates = workload_config(config, "rates")
    assert isinstance(rates, LoadgenWorkload)
    assert [(level.kind, level.value) for level in rates.levels] == [("rate", 1.0), ("rate", 2.5), ("rate", 8.0)]
    assert "rate" not in rates.settings and rates.settings["max_concurrency"] == 16 and rates.capacity is None
    streams = workload_config(config, "streams")
    assert isinstance(streams, LoadgenWorkload) and [level.label for level in streams.levels] == [
        "concurrency=1", "concurrency=8", "concurrency=32"]
    search = workload_config(config, "search")
    assert isinstance(search, LoadgenWorkload) and search.levels == ()
    assert search.capacity is not None and (search.capacity.target, search.capacity.start_rate) == (0.95, 2.0)
    assert search.capacity.precision == 0.05 and search.capacity.time_budget_s == 600.0


def test_command_workload_readers(tmp_path: Path) -> None:
    config = load(tmp_path, """
[workloads.by-json]
kind = "command"
argv = ["bench", "--url", "{url}", "--out", "{output}"]
json = { output_tok_s = "results[0].throughput" }
timeout = 120

[workloads.by-regex]
kind = "command"
argv = ["bench", "{url}"]
regex = { output_tok_s = 'throughput: ([0-9.]+)' }

[workloads.by-format]
kind = "command"
argv = ["python", "-m", "sglang.bench_serving", "--output-file", "{output}"]
format = "sglang"
warmup = 1
""")
    by_json = workload_config(config, "by-json")
    assert isinstance(by_json, CommandWorkload)
    assert by_json.reader.kind == "json" and by_json.reader.fields == {"output_tok_s": "results[0].throughput"}
    assert by_json.timeout_s == 120.0 and by_json.uses_output_file
    by_regex = workload_config(config, "by-regex")
    assert isinstance(by_regex, CommandWorkload) and by_regex.reader.kind == "regex" and not by_regex.uses_output_file
    by_format = workload_config(config, "by-format")
    assert isinstance(by_format, CommandWorkload)
    assert by_format.reader.format == "sglang-serving"  # the alias resolved
    assert by_format.output_suffix == ".jsonl" and by_format.warmup == 1


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('argv = ["b"]', "needs exactly one way to read its results"),
        ('argv = ["b"]\njson = { x = "a" }\nregex = { x = "(1)" }', "found json, regex"),
        ('argv = ["b"]\nregex = { x = "no group" }', "needs exactly one group (the number), it has 0"),
        ('argv = ["b"]\nregex = { x = "(unclosed" }', "invalid regular expression"),
        ('argv = ["b"]\njson = { x = "a..b" }', "invalid JSON path 'a..b'"),
        ('argv = ["b"]\nformat = "vlm"', "unknown format 'vlm' (did you mean 'vllm-serve'?)"),
        ('argv = ["b"]\nformat = "vllm"\nwarmup = -1', "expected a whole number of runs >= 0"),
        ('argv = ["b"]\nformat = "vllm"\nstdout = true', "unknown key 'stdout'"),
    ],
)
def test_command_errors(tmp_path: Path, table: str, message: str) -> None:
    config = load(tmp_path, f'[workloads.w]\nkind = "command"\n{table}\n')
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        workload_config(config, "w")
    assert re.match(rf"{re.escape(str(config.path))}:\d+: workloads\.w", str(info.value))


def test_unknown_table_suggests_the_close_one(tmp_path: Path) -> None:
    config = load(tmp_path, '[servers.sglang]\nargv = ["s"]\n')
    with pytest.raises(ConfigError, match=r"no \[servers.sglan\] table \(did you mean 'sglang'\?\)"):
        server_spec(config, "sglan")


def test_loadgen_accepts_continuous_usage(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from benchdoc.config import parse_config
    from benchdoc.config.tables import workload_config

    config = parse_config('[workloads.w]\nkind = "loadgen"\ncontinuous_usage = false\n', tmp_path / "benchdoc.toml")
    assert workload_config(config, "w").settings["continuous_usage"] is False


def test_loadgen_prompts_and_slo_from_the_project(tmp_path: Path) -> None:
    config = load(tmp_path, """
[workloads.chat]
dataset = "data/sharegpt.json"
tokenizer = "models/llama"
truncate_prompts = true
input_tokens = 256
shared_prefix_groups = 4
shared_prefix_tokens = 512
slo = { ttft_ms = 200, tpot_ms = 50 }

[workloads.text]
slo = "e2e_ms:900"
""")
    chat = workload_config(config, "chat")
    assert isinstance(chat, LoadgenWorkload)
    assert chat.settings["dataset"] == str(tmp_path / "data" / "sharegpt.json")
    assert chat.settings["tokenizer"] == str(tmp_path / "models" / "llama")
    assert chat.settings["slo"] == (("ttft_ms", 200.0), ("tpot_ms", 50.0))
    assert chat.settings["shared_prefix_groups"] == 4 and chat.settings["truncate_prompts"] is True
    text = workload_config(config, "text")
    assert isinstance(text, LoadgenWorkload) and text.settings["slo"] == (("e2e_ms", 900.0),)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('slo = { ttft = 200 }', "SLO metric must be one of ttft_ms, tpot_ms, e2e_ms (got 'ttft')"),
        ('slo = "ttft_ms=200"', "should look like ttft_ms:200"),
        ('slo = { tpot_ms = "fast" }', "tpot_ms: expected a number of milliseconds"),
        ('slo = 5', "expected a table like { ttft_ms = 200, tpot_ms = 50 }"),
        ('shared_prefix_tokens = 5', "shared_prefix_tokens needs shared_prefix_groups >= 1"),
        ('truncate_prompts = "yes"', "expected true or false"),
    ],
)
def test_loadgen_prompt_and_slo_mistakes_name_the_line(tmp_path: Path, table: str, message: str) -> None:
    text = f"[workloads.w]\n{table}\n"
    config = load(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        workload_config(config, "w")
    assert message in str(caught.value)
    assert re.search(r"benchdoc\.toml:[12]: ", str(caught.value))


def test_loadgen_extras_arrivals_and_filters_from_the_project(tmp_path: Path) -> None:
    config = load(tmp_path, """
[workloads.w]
rate = 4
ramp_up_s = 10
headers = { "X-Tenant" = "team-a" }
extra_body = { top_p = 0.9, chat_template_kwargs = { enable_thinking = false } }
dataset = "data/sharegpt.json"
dataset_min_tokens = 4
dataset_max_input = 1024
dataset_max_total = 2048

[workloads.replay]
trace = "traces/day.jsonl"
""")
    settings = workload_config(config, "w").settings
    assert settings["headers"] == (("X-Tenant", "team-a"),) and settings["ramp_up_s"] == 10
    assert json.loads(settings["extra_body"]) == {"top_p": 0.9, "chat_template_kwargs": {"enable_thinking": False}}
    assert (settings["dataset_min_tokens"], settings["dataset_max_input"], settings["dataset_max_total"]) == (4, 1024, 2048)
    assert workload_config(config, "replay").settings["trace"] == str(tmp_path / "traces/day.jsonl")
