"""`benchdoc sim` as a real subprocess: help, start-up line, clean shutdown, and faults."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest


def _start(tmp_path: Path, *options: str) -> tuple[subprocess.Popen[str], str]:
    """Start the simulator on a free port and return it with its URL, read from its log."""
    process = subprocess.Popen(
        [sys.executable, "-m", "benchdoc", "sim", "--port", "0", *options],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"listening on (http://127\.0\.0\.1:\d+)$", line.strip())
        if found:
            assert line.startswith("benchdoc simulator (not real hardware) listening on")
            return process, found.group(1)
    process.kill()
    raise AssertionError(f"no listening line; exit {process.wait()}")


def _post(url: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def test_help_says_it_is_a_simulator(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "benchdoc", "sim", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0
    assert "not real hardware" in done.stdout
    for option in ("--ttft-ms", "--step-ms", "--noise-cv", "--seed", "--draft-steps", "--accept-prob",
                   "--fail-start", "--ready-delay", "--die-after-requests", "--stall-after-tokens", "--error-rate"):
        assert option in done.stdout


def test_serves_and_shuts_down_cleanly_on_sigterm(tmp_path: Path) -> None:
    process, url = _start(tmp_path, "--ttft-ms", "2", "--step-ms", "1", "--model", "m1")
    try:
        body = _post(url + "/v1/completions", {"model": "m1", "prompt": "a b", "max_tokens": 3})
        assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0
    assert "shut down" in stderr


def test_fail_start_prints_a_traceback_and_exits_nonzero(tmp_path: Path) -> None:
    message = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    done = subprocess.run([sys.executable, "-m", "benchdoc", "sim", "--port", "0", "--fail-start", message],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert "Traceback (most recent call last):" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == message
    assert "listening" not in done.stderr


def test_dies_abruptly_after_n_requests(tmp_path: Path) -> None:
    process, url = _start(tmp_path, "--ttft-ms", "1", "--step-ms", "0.5", "--die-after-requests", "2")
    try:
        assert _post(url + "/generate", {"text": "x", "sampling_params": {"max_new_tokens": 2}})["text"]
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            _post(url + "/generate", {"text": "x", "sampling_params": {"max_new_tokens": 2}})
        _, stderr = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 1
    assert "fatal: RuntimeError: CUDA error: an illegal memory access" in stderr


def test_bad_settings_are_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "benchdoc", "sim", "--accept-prob", "1.5"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "benchdoc: error: invalid simulator settings: accept_prob must be within [0, 1] (got 1.5)"
    )


def test_port_in_use_is_reported(tmp_path: Path) -> None:
    process, url = _start(tmp_path)
    port = url.rsplit(":", 1)[1]
    try:
        done = subprocess.run([sys.executable, "-m", "benchdoc", "sim", "--port", port],
                              cwd=tmp_path, capture_output=True, text=True, timeout=30)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert done.returncode == 1
    assert done.stderr.startswith(f"benchdoc: error: cannot listen on 127.0.0.1:{port}:")
