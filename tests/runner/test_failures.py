"""Failure reasons read from server logs, with the line that says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.runner.failures import (
    FailurePattern,
    explain_failure,
    last_exception_line,
    read_log_tail,
    setup_problem,
    signal_reason,
    user_patterns,
)

# Log excerpts shaped like what SGLang, vLLM, PyTorch and NCCL print.
CASES = [
    (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB",
        "CUDA out of memory",
    ),
    ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "not enough GPU memory for the KV cache"),
    (
        "Exception: Capture cuda graph failed: CUDA error: operation not permitted when stream is capturing",
        "CUDA graph capture failed",
    ),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "illegal memory access"),
    (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details)",
        "NCCL error",
    ),
    ("triton.compiler.errors.CompilationError: at 12:4: def _fwd_kernel(", "JIT compilation failed"),
    ("nvcc fatal   : Unsupported gpu architecture 'compute_120'", "JIT compilation failed"),
    ("OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use",
     "address already in use"),
    ("ModuleNotFoundError: No module named 'flashinfer'", "missing module 'flashinfer'"),
    ("ImportError: cannot import name 'Foo' from 'vllm.model_executor' (/site-packages/vllm/__init__.py)",
     "import error: cannot import name 'Foo' from 'vllm.model_executor'"),
    ("Fatal Python error: Segmentation fault", "segmentation fault"),
    ("RuntimeError: Found no NVIDIA driver on your system.", "no usable CUDA GPU"),
]


@pytest.mark.parametrize(("line", "reason"), CASES)
def test_builtin_reasons_keep_their_line(line: str, reason: str) -> None:
    log = f"[2026-01-01 10:00:00] Loading weights\n[2026-01-01 10:00:05] Traceback (most recent call last):\n{line}\n"
    found = explain_failure(log, returncode=1, fallback="exited with code 1")
    assert found.reason == reason
    assert found.log_line == line


def test_the_most_specific_reason_wins_over_its_consequences() -> None:
    log = "\n".join([
        "rank 1: NCCL error: remote process exited or there was a network error",  # a consequence, printed first
        "rank 0: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB",
    ])
    assert explain_failure(log, fallback="x").reason == "CUDA out of memory"


def test_user_patterns_come_first_and_can_quote_groups() -> None:
    patterns = user_patterns([
        {"pattern": r"speculative (\w+) is not supported with (\w+)", "reason": "EAGLE incompatible with {2}"},
    ])
    log = "ValueError: speculative EAGLE3 is not supported with fp8\ntorch.OutOfMemoryError: CUDA out of memory."
    found = explain_failure(log, fallback="x", patterns=patterns)
    assert found.reason == "EAGLE incompatible with fp8"
    assert found.log_line == "ValueError: speculative EAGLE3 is not supported with fp8"
    assert explain_failure("CUDA out of memory", fallback="x", patterns=patterns).reason == "CUDA out of memory"
    assert FailurePattern("x", "y").compiled().pattern == "x"


@pytest.mark.parametrize(
    ("code", "reason"),
    [(-9, "killed by SIGKILL (OOM killer?)"), (137, "killed by SIGKILL (OOM killer?)"), (-11, "killed by SIGSEGV"),
     (-15, "killed by SIGTERM"), (1, None), (0, None), (None, None)],
)
def test_signal_reasons(code: int | None, reason: str | None) -> None:
    assert signal_reason(code) == reason


def test_a_kill_without_a_known_log_line_says_so_with_no_evidence_line() -> None:
    found = explain_failure("INFO: loading shard 3/4\nINFO: loading shard 4/4\n", returncode=-9, fallback="exited")
    assert found.reason == "killed by SIGKILL (OOM killer?)"
    assert found.log_line is None  # an ordinary line is not the evidence of a kill
    said = explain_failure("INFO: loading\nKilled\nINFO: bye\n", returncode=137, fallback="exited")
    assert said.log_line == "Killed"


def test_an_ordinary_last_line_is_never_the_evidence() -> None:
    found = explain_failure("INFO: starting\nLlama.generate: 1 prefix-match hit\n", returncode=1, fallback="exited 1")
    assert found.reason == "exited 1" and found.log_line is None


def test_fallback_keeps_the_last_error_looking_line() -> None:
    log = "INFO: starting\nValueError: unknown argument --speculative-num-stepz\nINFO: shutting down\n"
    found = explain_failure(log, returncode=2, fallback="server exited with code 2 before becoming ready")
    assert found.reason == "server exited with code 2 before becoming ready"
    assert found.log_line == "ValueError: unknown argument --speculative-num-stepz"
    assert explain_failure("", fallback="readiness timeout").log_line is None


def test_long_lines_are_clipped() -> None:
    found = explain_failure("CUDA out of memory " + "x" * 2000, fallback="x")
    assert len(found.log_line or "") == 500 and found.log_line.endswith("…")  # type: ignore[union-attr]


def test_log_tail_reads_only_the_end(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_bytes(b"early line\n" * 1000 + b"torch.OutOfMemoryError: CUDA out of memory\n")
    tail = read_log_tail(log, limit=200)
    assert tail.endswith("CUDA out of memory\n") and len(tail) <= 200 and not tail.startswith("ly line")
    assert read_log_tail(tmp_path / "missing.log") == ""


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("loading\nValueError: Model path does not exist: /x.gguf\nshutting down", "ValueError: Model path does not exist: /x.gguf"),
        ("[rank0] torch.distributed.DistBackendError: NCCL timeout\n", "[rank0] torch.distributed.DistBackendError: NCCL timeout"),
        ("terminate called after throwing an instance of 'c10::Error'\n  what():  boom", "terminate called after throwing an instance of 'c10::Error'"),
        ("worker 3\nSegmentation fault (core dumped)\n", "Segmentation fault (core dumped)"),
        ("KeyError: 'model'\nRuntimeError\n", "RuntimeError"),
        ("Traceback (most recent call last):\n  raise ValueError(\"x\")\nERROR something else\n", None),
    ],
)
def test_the_cause_is_the_last_exception_line(log: str, cause: str | None) -> None:
    assert last_exception_line(log) == cause


def test_an_unnamed_failure_keeps_its_cause() -> None:
    log = "loading\nValueError: Model path does not exist: /x.gguf\nshutting down\n"
    found = explain_failure(log, returncode=1, fallback="server exited with code 1 before becoming ready")
    assert found.reason == "server exited with code 1 before becoming ready"
    assert found.cause == found.log_line == "ValueError: Model path does not exist: /x.gguf"
    killed = explain_failure(log, returncode=-9, fallback="exited")
    assert (killed.reason, killed.cause) == ("killed by SIGKILL (OOM killer?)", "ValueError: Model path does not exist: /x.gguf")


def test_a_known_reason_needs_no_cause() -> None:
    found = explain_failure("torch.OutOfMemoryError: CUDA out of memory.\n", returncode=1, fallback="exited")
    assert (found.reason, found.cause) == ("CUDA out of memory", None)


@pytest.mark.parametrize(
    ("log", "code", "expected"),
    [
        ("sh: 1: sglang-serve: not found\n", 127, "the server's program was not found (exit code 127)"),
        ("sh: 1: ./serve.sh: Permission denied\n", 126, "the server's program is not executable (exit code 126)"),
        ("usage: vllm serve [-h]\nvllm serve: error: unrecognized arguments: --tp-sze 2\n", 2,
         "the server's command line was refused: vllm serve: error: unrecognized arguments: --tp-sze 2"),
        ("/usr/bin/python3: No module named sglang.launch_servr\n", 1,
         "the server's command line was refused: /usr/bin/python3: No module named sglang.launch_servr"),
    ],
)
def test_setup_problems(log: str, code: int, expected: str) -> None:
    found = setup_problem(log, code)
    assert found is not None and found.setup and found.reason == expected


def test_a_missing_dependency_is_a_failure_not_a_setup_problem() -> None:
    assert setup_problem("ModuleNotFoundError: No module named 'flash_attn'\n", 1) is None
    assert setup_problem("ValueError: bad model\n", 1) is None


def test_a_sigkilled_server_is_not_evidenced_by_its_last_ordinary_line(tmp_path: Path) -> None:
    """A real process that logs an ordinary line and is then killed with SIGKILL."""
    import os
    import sys

    from benchdoc.runner.failures import read_log_tail
    from benchdoc.runner.process import ManagedProcess

    script = ("import os, signal, sys; print('Llama.generate: 1 prefix-match hit, remaining 12 prompt tokens to eval');"
              "sys.stdout.flush(); os.kill(os.getpid(), signal.SIGKILL)")
    log = tmp_path / "server.log"
    with ManagedProcess([sys.executable, "-c", script], cwd=tmp_path, env=dict(os.environ), stdout_path=log,
                        grace_s=2) as process:
        code = process.wait(20)
    assert code == -9 and "prefix-match hit" in log.read_text()
    found = explain_failure(read_log_tail(log), returncode=code, fallback="server exited")
    assert found.reason == "killed by SIGKILL (OOM killer?)" and found.log_line is None and found.cause is None
