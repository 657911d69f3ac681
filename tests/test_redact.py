"""Secret redaction: secrets never survive, ordinary benchmark values are never touched."""

from __future__ import annotations

import json
import time

import pytest

from benchdoc.redact import MARKER, is_secret_name, redact_argv, redact_env, redact_obj, redact_text

OPENAI_KEY = "sk-test-4f9aQ27bXcD81eFgH3iJ"
HF_TOKEN = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm12"
DB_PASSWORD = "s3cretpw"
DB_URL = f"postgresql://bench:{DB_PASSWORD}@db/ledger"
CLI_KEY = "plainclikey77"  # no recognisable shape: only its flag gives it away
ALL_SECRETS = (OPENAI_KEY, HF_TOKEN, DB_PASSWORD, CLI_KEY)

ORDINARY_VALUES = (
    "meta-llama/Llama-3.1-8B",
    "/models/Qwen2.5-7B-Instruct",
    "./results/run-2024-05-01.json",
    "96.1",
    "0,1",
    "Tree",
    "http://127.0.0.1:30000/v1/chat/completions",
    "NCCL_ALGO=Tree",
    "CUDA_VISIBLE_DEVICES=0,1",
    "--speculative-num-steps 2",
    "--max-tokens 128",
    "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 2 --mem-fraction-static 0.85",
    "EAGLE-3 is 3.8% faster than the baseline (96.1 vs 92.6 tok/s)",
    "a723fb3338d769fa9cf3018048b2a7bc8133e605",
)


def test_marker_is_three_stars() -> None:
    assert MARKER == "***"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (DB_URL, "postgresql://bench:***@db/ledger"),
        ("postgresql+psycopg://u:p@ss@db:5432/x?sslmode=require", "postgresql+psycopg://u:***@db:5432/x?sslmode=require"),
        ("https://h/v1?api_key=abc123&model=m", "https://h/v1?api_key=***&model=m"),
        ("https://h/cb?access_token=abc&state=1&token=def", "https://h/cb?access_token=***&state=1&token=***"),
        ("https://h/login?user=me&password=hunter2", "https://h/login?user=me&password=***"),
        ("Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer ***"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic ***"),
        ("curl -H 'X-Api-Key: abc123' http://127.0.0.1:1/v1", "curl -H 'X-Api-Key: ***' http://127.0.0.1:1/v1"),
        ("Cookie: sessionid=abc; csrftoken=def", "Cookie: ***"),
        ("token is Bearer abcdefghijkl", "token is Bearer ***"),
        (f"export OPENAI_API_KEY={OPENAI_KEY}", "export OPENAI_API_KEY=***"),
        (f"key {OPENAI_KEY} end", "key sk-*** end"),
        (f"login with {HF_TOKEN}", "login with hf_***"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123 and github_pat_11ABCDEFG0123456789_abcdefg", "ghp_*** and github_pat_***"),
        ("slack xoxb-1234567890-abcdefghij", "slack xoxb-***"),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws AKIA***"),
        ("gcp AIzaSyA1234567890abcdefghijklmnopqrstuv", "gcp AIza***"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM", "jwt eyJ***"),
        ("serve --api-key abc123 --port 30000", "serve --api-key *** --port 30000"),
        ("serve --token=abc123 --hf-token 'quoted value'", "serve --token=*** --hf-token '***'"),
        ("ServerArgs(model_path='m', api_key='abc', port=1, hf_token=None)", "ServerArgs(model_path='m', api_key='***', port=1, hf_token=None)"),
        ('{"api_key": "abc", "max_tokens": 128, "eos_token_id": 2}', '{"api_key": "***", "max_tokens": 128, "eos_token_id": 2}'),
        ("model: llama\npassword:  hunter2\n", "model: llama\npassword:  ***\n"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----"),
    ],
)
def test_redact_text_replaces_secret_and_keeps_context(text: str, expected: str) -> None:
    assert redact_text(text) == expected
    assert redact_text(expected) == expected  # idempotent


@pytest.mark.parametrize("value", ORDINARY_VALUES)
def test_ordinary_values_are_untouched_everywhere(value: str) -> None:
    assert redact_text(value) == value
    assert redact_argv(value.split()) == value.split()
    assert redact_env({"NCCL_ALGO": value, "CUDA_VISIBLE_DEVICES": value}) == {"NCCL_ALGO": value, "CUDA_VISIBLE_DEVICES": value}
    assert redact_obj({"model": value, "max_tokens": 128, "args": [value, "--port", "1"]}) == {
        "model": value,
        "max_tokens": 128,
        "args": [value, "--port", "1"],
    }


def test_a_value_merely_containing_the_marker_is_still_hidden() -> None:
    assert redact_obj({"password": "ab***cd"}) == {"password": "***"}
    assert redact_text("password=ab***cd") == "password=***"
    assert redact_argv(["--api-key", "ab***cd"]) == ["--api-key", "***"]


def test_redaction_is_idempotent() -> None:
    text = f"{DB_URL} --api-key {CLI_KEY} HF_TOKEN={HF_TOKEN} Authorization: Bearer {OPENAI_KEY}"
    once = redact_text(text)
    assert redact_text(once) == once
    assert not any(secret in once for secret in ALL_SECRETS)


@pytest.mark.parametrize(
    "name",
    ["OPENAI_API_KEY", "HF_TOKEN", "VLLM_API_KEY", "PGPASSWORD", "DB_PASSWD", "AWS_SECRET_ACCESS_KEY",
     "GOOGLE_APPLICATION_CREDENTIALS", "apiKey", "X-Api-Key", "--hf-token", "auth", "SESSION_COOKIE",
     "private_key", "SENTRY_DSN", "OPENAI_API_KEY2"],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["NCCL_ALGO", "CUDA_VISIBLE_DEVICES", "MONKEY_PATCH", "max_tokens", "max_new_tokens", "output_tokens",
     "eos_token_id", "tokenizer_path", "--speculative-token-map", "AWS_ACCESS_KEY_ID", "HF_TOKEN_PATH",
     "SSH_AUTH_SOCK", "--disable-auth", "sort_key", "public_key", "--speculative-num-steps", "PWD",
     "output_token_source", "input_token_source", "chunk_token_source"],
)  # fmt: skip
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_redact_env_by_name_and_by_shape() -> None:
    environment = {
        "OPENAI_API_KEY": OPENAI_KEY,
        "HF_TOKEN": HF_TOKEN,
        "SGLANG_DB": DB_URL,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "VLLM_API_KEY": "",
        "NCCL_ALGO": "Tree",
    }
    assert redact_env(environment) == {
        "OPENAI_API_KEY": "***",
        "HF_TOKEN": "***",
        "SGLANG_DB": "postgresql://bench:***@db/ledger",
        "AWS_ACCESS_KEY_ID": "AKIA***",
        "VLLM_API_KEY": "",  # unset stays visibly unset
        "NCCL_ALGO": "Tree",
    }
    assert environment["OPENAI_API_KEY"] == OPENAI_KEY  # the input is not modified


def test_redact_argv() -> None:
    argv = [
        "env", f"HF_TOKEN={HF_TOKEN}", "python", "-m", "sglang.launch_server",
        "--model-path", "meta-llama/Llama-3.1-8B", "--api-key", CLI_KEY, "--speculative-num-steps", "2",
        f"--db-url={DB_URL}", "--password=p,w;x", "--auth-token", "--port", "30000", "--disable-auth", "model.gguf",
        "-H", f"Authorization: Bearer {OPENAI_KEY}",
    ]  # fmt: skip
    assert redact_argv(argv) == [
        "env", "HF_TOKEN=***", "python", "-m", "sglang.launch_server",
        "--model-path", "meta-llama/Llama-3.1-8B", "--api-key", "***", "--speculative-num-steps", "2",
        "--db-url=postgresql://bench:***@db/ledger", "--password=***", "--auth-token", "--port", "30000",
        "--disable-auth", "model.gguf", "-H", "Authorization: Bearer ***",
    ]  # fmt: skip


def test_redact_obj_leaves_no_secret_in_json() -> None:
    data = {
        "env": {"OPENAI_API_KEY": OPENAI_KEY, "HF_TOKEN": HF_TOKEN, "NCCL_ALGO": "Tree"},
        "ledger": {"url": DB_URL},
        "command": ["python", "-m", "vllm.entrypoints.openai.api_server", "--api-key", CLI_KEY],
        "command_line": f"vllm serve m --api-key {CLI_KEY}",
        "headers": {"Authorization": f"Bearer {OPENAI_KEY}", "Content-Type": "application/json"},
        "credentials": {"user": "bench", "password": DB_PASSWORD, "ids": [1, 2], "enabled": True},
        "runs": [{"samples": [96.1, 95.8], "max_tokens": 128, "note": f"used {HF_TOKEN}"}],
        "pair": ("--token", CLI_KEY),
    }
    redacted = redact_obj(data)
    dumped = json.dumps(redacted)
    for secret in ALL_SECRETS:
        assert secret not in dumped
    assert redacted["env"]["NCCL_ALGO"] == "Tree"
    assert redacted["headers"] == {"Authorization": "***", "Content-Type": "application/json"}
    assert redacted["credentials"] == {"user": "***", "password": "***", "ids": [1, 2], "enabled": True}
    assert redacted["runs"] == [{"samples": [96.1, 95.8], "max_tokens": 128, "note": "used hf_***"}]
    assert redacted["pair"] == ["--token", "***"]
    assert data["env"]["HF_TOKEN"] == HF_TOKEN  # the input is not modified


@pytest.mark.parametrize("unit", ["a-", "a.", "a:", "a=", "'a':", "--a ", "x", "http://a@"])
def test_long_pathological_text_takes_linear_time(unit: str) -> None:
    text = unit * (400_000 // len(unit))
    started = time.process_time()
    redact_text(text)
    # Backtracking once made 400 kB of "a-a-a-..." take over a minute; linear is milliseconds.
    # CPU time, not wall time: a loaded machine stretches the wall clock (4 s seen) but not this.
    assert time.process_time() - started < 3.0


def test_numbers_under_a_secret_looking_name_are_data_not_secrets() -> None:
    # llmperf's statistics: "token" in the name, a number in the value.
    stats = {"results_inter_token_latency_s_stddev": 0.001626, "results_request_output_throughput_token_per_s_stddev": 16.9,
             "api_key": "plainclikey77", "token": {"value": "abc", "n": 3}}
    assert redact_obj(stats) == {
        "results_inter_token_latency_s_stddev": 0.001626,
        "results_request_output_throughput_token_per_s_stddev": 16.9,
        "api_key": "***",
        "token": {"value": "***", "n": 3},
    }


def test_a_note_starting_with_token_keeps_its_text() -> None:
    note = "token: the tokenizer cut 3 prompts short; rerun with --max-tokens 256"
    assert redact_text(note) == note
    assert redact_text("token: abc123secret") == "token: ***"  # one word after the name is still a value
    assert redact_text("password: 'two words'") == "password: '***'"


def test_numbers_under_token_names_are_data_not_secrets() -> None:
    data = {"results_inter_token_latency_s_mean": 0.0119, "num_speculative_token": 4, "token": "abc", "pin_code": 1234}
    assert redact_obj(data) == {"results_inter_token_latency_s_mean": 0.0119, "num_speculative_token": 4, "token": "***", "pin_code": 1234}
    assert redact_obj({"password": 123456, "db_password": "123456"}) == {"password": "***", "db_password": "***"}
    assert redact_text('{"inter_token_latency_ms": 12.5, "password": 1234}') == '{"inter_token_latency_ms": 12.5, "password": ***}'
    assert redact_argv(["serve", "--num-speculative-token", "4", "--api-key", "123"]) == ["serve", "--num-speculative-token", "4", "--api-key", "***"]
    assert redact_env({"TOKEN_BUDGET": "512", "PGPASSWORD": "123456"}) == {"TOKEN_BUDGET": "512", "PGPASSWORD": "***"}


@pytest.mark.parametrize("name", ["DEPLOY_CRED", "GITHUB_PAT", "DB_PW", "SIGNING_KEYS", "apiCreds"])
def test_more_secret_name_endings(name: str) -> None:
    assert is_secret_name(name)
    assert redact_env({name: "v4lue"}) == {name: MARKER}
    assert redact_text(f"{name}=v4lue") == f"{name}={MARKER}"


def test_short_p_flag_hides_a_password_but_not_a_port() -> None:
    assert redact_argv(["mysql", "-u", "root", "-p", "hunter2"]) == ["mysql", "-u", "root", "-p", MARKER]
    assert redact_argv(["docker", "run", "-p", "8080:80", "img"]) == ["docker", "run", "-p", "8080:80", "img"]
    assert redact_argv(["llama-bench", "-p", "512"]) == ["llama-bench", "-p", "512"]


def test_random_looking_values_are_hidden_but_names_and_hashes_are_not() -> None:
    from benchdoc.redact import looks_random

    assert redact_env({"MY_THING": "xK9mP2qR7vT4wZ8nB3cF6hJ1"}) == {"MY_THING": MARKER}
    for ordinary in ("nvidia/Llama-3.3-70B-Instruct-FP8", "a723fb3338d769fa9cf3018048b2a7bc8133e605",
                     "550e8400-e29b-41d4-a716-446655440000", "expandable_segments:True", "/models/Qwen2.5-7B"):
        assert not looks_random(ordinary), ordinary


def test_json_lists_under_token_named_keys_stay_json() -> None:
    text = '{\n  "e2e_per_token_ms_mean": [\n    6.12\n  ],\n  "refresh_token": {"a": 1}\n}'
    assert json.loads(redact_text(text)) == json.loads(text)
