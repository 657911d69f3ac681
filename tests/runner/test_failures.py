"""Failure reasons read from server logs, with the line that says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.runner.failures import (
    FailurePattern,
    explain_failure,
    read_log_tail,
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


def test_a_kill_without_a_known_log_line_says_so() -> None:
    found = explain_failure("INFO: loading shard 3/4\nINFO: loading shard 4/4\n", returncode=-9, fallback="exited")
    assert found.reason == "killed by SIGKILL (OOM killer?)"
    assert found.log_line == "INFO: loading shard 4/4"


def test_fallback_keeps_the_last_error_looking_line() -> None:
    log = "INFO: starting\nValueError: unknown argument --speculative-num-stepz\nINFO: shutting down\n"
    found = explain_failure(log, returncode=2, fallback="server exited with code 2 before becoming ready")
    assert found.reason == "server exited with code 2 before becoming ready"
    assert found.log_line == "ValueError: unknown argument --speculative-num-stepz"
    assert explain_failure("", fallback="readiness timeout").log_line is None


def test_long_lines_are_clipped() -> None:
    found = explain_failure("CUDA out of memory " + "x" * 2000, fallback="x")
    assert len(found.log_line or "") == 500 and found.log_line.endswith("...")  # type: ignore[union-attr]


def test_log_tail_reads_only_the_end(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_bytes(b"early line\n" * 1000 + b"torch.OutOfMemoryError: CUDA out of memory\n")
    tail = read_log_tail(log, limit=200)
    assert tail.endswith("CUDA out of memory\n") and len(tail) <= 200 and not tail.startswith("ly line")
    assert read_log_tail(tmp_path / "missing.log") == ""
