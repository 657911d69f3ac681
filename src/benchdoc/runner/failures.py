"""Why a configuration failed, in a few words, with the log line that says so.

A server that never becomes ready, exits, or breaks the workload leaves its reason in
its log: CUDA out of memory, an NCCL error, a failed CUDA graph capture, a compile
error... :func:`explain_failure` finds it. The project's own patterns
(``[failures] patterns``) are tried first, then the built-in ones in order of
specificity, then what the exit status says (killed by a signal), then the fallback the
caller gives (readiness timeout, exit code). Within one pattern, the first matching line
wins: later lines are usually the consequences (other ranks dying, shutdown noise).

When no known pattern matches, the reason says how the failure showed ("server exited
with code 1 before becoming ready") and the *cause* is the log's last exception line
(``ValueError: Model path does not exist: /x.gguf``): what to show a reader.

A server whose program cannot start at all (not found, not executable, a typo in its
argv) is a setup error (:func:`setup_problem`): the run measured nothing about the
configuration.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchdoc.untrusted import safe_line

# How much of a log is searched: its end holds the crash, and a server can log gigabytes.
LOG_TAIL_BYTES = 4 * 1024 * 1024
MAX_LOG_LINE_CHARS = 500


@dataclass(frozen=True)
class FailurePattern:
    """A regular expression over log lines and the short reason it stands for.

    ``reason`` may use ``{1}``, ``{2}``... for the pattern's groups (e.g. the name of
    the missing module).
    """

    pattern: str
    reason: str

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


@dataclass(frozen=True)
class FailureReason:
    """What went wrong (``reason``), the log line it was read from, the cause read from the
    log when no known pattern named it, and whether it is benchdoc's setup error."""

    reason: str
    log_line: str | None = None
    cause: str | None = None
    setup: bool = False  # the program could not start as configured: outcome "error", not "failed"

    def __post_init__(self) -> None:
        """Log text is untrusted: each field is one line without control characters or secrets."""
        for name in ("reason", "log_line", "cause"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, safe_line(value))


# Most specific first: a CUDA error raised while capturing a graph is a capture failure,
# and an out-of-memory during capture is an out-of-memory.
BUILTIN_PATTERNS: tuple[FailurePattern, ...] = (
    FailurePattern(r"CUDA out of memory|torch\.(cuda\.)?OutOfMemoryError|cudaErrorMemoryAllocation|"
                   r"CUBLAS_STATUS_ALLOC_FAILED|CUDA error: out of memory", "CUDA out of memory"),
    FailurePattern(r"(?i)not enough memory|no available memory for the cache blocks|"
                   r"insufficient memory for (the )?kv cache", "not enough GPU memory for the KV cache"),
    FailurePattern(r"(?i)(capture|capturing) cuda ?graph failed|cuda ?graph capture failed|"
                   r"operation not permitted when stream is capturing|cudaErrorStreamCapture\w*|"
                   r"stream capture (is )?invalidated|CUDA graph.*(is )?(not supported|incompatible)",
                   "CUDA graph capture failed"),
    FailurePattern(r"illegal memory access|cudaErrorIllegalAddress", "illegal memory access"),
    FailurePattern(r"NCCL error|ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidArgument|"
                   r"ncclInvalidUsage|ncclRemoteError|NCCL (WARN|INFO).*(timeout|Timeout)|"
                   r"ProcessGroupNCCL.*(timed out|Timeout)", "NCCL error"),
    FailurePattern(r"triton\.compiler\.errors\.\w+|CompilationError|nvcc fatal|nvcc.*error|"
                   r"ninja: build stopped|error: command '[^']*nvcc' failed|"
                   r"torch\._(inductor|dynamo)\.exc\.\w+|JIT compil\w+ (failed|error)",
                   "JIT compilation failed"),
    FailurePattern(r"[Aa]ddress already in use|EADDRINUSE|\[Errno 98\]", "address already in use"),
    FailurePattern(r"ModuleNotFoundError: No module named '([^']+)'", "missing module '{1}'"),
    FailurePattern(r"ImportError: ([^(]{1,120})", "import error: {1}"),
    FailurePattern(r"Segmentation fault|SIGSEGV", "segmentation fault"),
    FailurePattern(r"CUDA error: (.{1,80}?)(\s*$|\. )", "CUDA error: {1}"),
    FailurePattern(r"(?i)no cuda gpus are available|cuda driver version is insufficient|"
                   r"CUDA_ERROR_NO_DEVICE|Found no NVIDIA driver", "no usable CUDA GPU"),
)

# A line that looks like the final error of a traceback or log, for the fallback.
_ERROR_LINE = re.compile(r"\b[A-Z]\w*(Error|Exception)\b|\b(FATAL|Fatal|fatal|ERROR|CRITICAL)\b")
# A line about a process being killed (the kernel's OOM killer, a shell's report, a signal).
_KILL_LINE = re.compile(r"(?i)\bkilled\b|\bSIG(KILL|TERM|SEGV|ABRT|BUS)\b|out of memory|oom[- ]kill|signal \d+")
# What a shell prints when it cannot find or run a program.
_SHELL_LINE = re.compile(r"(?i)not found|no such file|permission denied|cannot execute|exec format error")
# An exception line: Python's "SomeError: ..." / "SomeException: ..." (dotted names too),
# RuntimeError, C++'s "terminate called after throwing", a segfault, a CUDA error.
_EXCEPTION_LINE = re.compile(
    r"\b(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)(?::|$)|\bRuntimeError\b|terminate called after|"
    r"Segmentation fault|\bCUDA error\b|\bcuda\w*Error\w*"
)
# A command line the program refused: argparse's usage errors, a missing module or script.
_ARGV_TYPO = re.compile(
    r"error: (?:unrecognized arguments|argument [^:]+: invalid choice|the following arguments are required|"
    r"argument [^:]+: expected)|^\S*python[\d.]*: (?:No module named \S+|can't open file)"
)


def user_patterns(raw: Iterable[dict[str, str]]) -> tuple[FailurePattern, ...]:
    """The ``[failures] patterns`` of benchdoc.toml (already validated by the config)."""
    return tuple(FailurePattern(item["pattern"], item["reason"]) for item in raw)


def read_log_tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    """The last ``limit`` bytes of a log as text ('' when it cannot be read)."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            data = handle.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        text = text.split("\n", 1)[-1]  # the first line is probably cut
    return text


def signal_reason(returncode: int | None) -> str | None:
    """'killed by SIGKILL (OOM killer?)' for an exit by signal (or the shell's 128+9)."""
    if returncode is None:
        return None
    number = -returncode if returncode < 0 else (9 if returncode == 137 else None)
    if number is None:
        return None
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return f"killed by {name} (OOM killer?)" if number == signal.SIGKILL else f"killed by {name}"


def match_patterns(text: str, patterns: Sequence[FailurePattern]) -> FailureReason | None:
    """The first pattern (in order) matching any line of ``text``, with its first matching line."""
    lines = text.splitlines()
    for item in patterns:
        compiled = item.compiled()
        for line in lines:
            found = compiled.search(line)
            if found:
                return FailureReason(_reason_text(item.reason, found), _clip(line))
    return None


def explain_failure(
    log_text: str,
    *,
    returncode: int | None = None,
    fallback: str,
    patterns: Sequence[FailurePattern] = (),
) -> FailureReason:
    """The reason a run failed: the user's patterns, the built-in ones, the exit signal,
    then ``fallback`` (e.g. 'exited with code 1 before becoming ready') with the last line
    that looks like an error."""
    found = known_reason(log_text, patterns)
    if found is not None:
        return found
    cause = last_exception_line(log_text)
    by_signal = signal_reason(returncode)
    if by_signal is not None:
        # A process killed by a signal often says nothing: only a line about the kill is evidence.
        return FailureReason(by_signal, cause or _last_matching_line(log_text, _KILL_LINE), cause)
    return FailureReason(fallback, cause or _last_error_line(log_text), cause)


def last_exception_line(log_text: str) -> str | None:
    """The last line of ``log_text`` that states an exception (see _EXCEPTION_LINE), clipped."""
    for line in reversed(log_text.splitlines()):
        if _EXCEPTION_LINE.search(line):
            return _clip(line.strip())
    return None


def setup_problem(log_text: str, returncode: int | None) -> FailureReason | None:
    """The setup error, when a server that exited before becoming ready never ran as
    configured: its shell found no such program (127) or could not execute it (126), or
    the program refused its command line (a usage error, a missing module or script)."""
    if returncode == 127:
        return FailureReason("the server's program was not found (exit code 127)",
                             _last_matching_line(log_text, _SHELL_LINE), setup=True)
    if returncode == 126:
        return FailureReason("the server's program is not executable (exit code 126)",
                             _last_matching_line(log_text, _SHELL_LINE), setup=True)
    for line in log_text.splitlines():
        if _ARGV_TYPO.search(line.strip()):
            return FailureReason(
                f"the server's command line was refused: {_clip(line.strip())}", _clip(line), setup=True
            )
    return None


def _reason_text(template: str, found: re.Match[str]) -> str:
    def group(match: re.Match[str]) -> str:
        index = int(match.group(1))
        if index > (found.re.groups or 0):
            return match.group(0)
        return (found.group(index) or "").strip()

    return re.sub(r"\{(\d+)\}", group, template).strip()


def _last_error_line(text: str) -> str | None:
    """The last line that looks like an error; None rather than an ordinary line."""
    return _last_matching_line(text, _ERROR_LINE)


def _last_matching_line(text: str, pattern: re.Pattern[str]) -> str | None:
    for line in reversed(text.splitlines()):
        if line.strip() and pattern.search(line):
            return _clip(line)
    return None


def _clip(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_LOG_LINE_CHARS else line[: MAX_LOG_LINE_CHARS - 1] + "…"


def known_reason(log_text: str, patterns: Sequence[FailurePattern] = ()) -> FailureReason | None:
    """A recognised failure in ``log_text`` (the user's patterns, then the built-in ones), if any."""
    return match_patterns(log_text, (*patterns, *BUILTIN_PATTERNS))
