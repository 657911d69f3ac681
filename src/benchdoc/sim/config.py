"""The simulator's settings: its latency model and the faults it injects on demand."""

from __future__ import annotations

import math
from dataclasses import dataclass

# How a preempted stream ends: with data: [DONE], or by just ending the response body.
PREEMPT_DONE = "done"
PREEMPT_CLOSE = "close"
PREEMPT_MODES = (None, PREEMPT_DONE, PREEMPT_CLOSE)


@dataclass(frozen=True)
class SimConfig:
    """Everything that decides how the simulated server behaves.

    Times are in milliseconds and kept as floats, so sub-millisecond values are exact.
    The defaults describe a small, quick, noise-free server with no speculation and no
    faults.
    """

    model: str = "sim-llm"
    # Prefill: a constant TTFT, or overhead + n_input x per_token when per_token is set.
    ttft_ms: float = 20.0
    prefill_overhead_ms: float = 0.0
    prefill_per_token_ms: float | None = None
    # Decode: one step releases one token (or 1 + accepted drafts when speculating).
    step_ms: float = 5.0
    # Step time grows by this fraction per additional running request (up to max_running).
    load_slope: float = 0.0
    # Requests beyond this many running ones wait in a FIFO queue.
    max_running: int = 1024
    # Coefficient of variation of every simulated duration (0 = the exact model).
    noise_cv: float = 0.0
    seed: int = 0
    # Speculative decoding: draft tokens per step (0 = off), per-token acceptance
    # probability, and the extra cost a speculative step pays to verify its drafts.
    draft_steps: int = 0
    accept_prob: float = 0.7
    verify_ms: float = 0.0
    # Output length when a request does not set one, and the length at which the
    # simulated model "naturally" stops when the client does not force the length with
    # ignore_eos/min_tokens (None = it always runs to max_tokens).
    default_max_tokens: int = 128
    natural_output_tokens: int | None = None
    max_model_len: int = 32768
    # Faults.
    fail_start: str | None = None
    ready_delay_s: float = 0.0
    die_after_requests: int | None = None
    stall_after_tokens: int | None = None
    error_rate: float = 0.0
    # A newly arrived request preempts the oldest running stream, which then ends early
    # without a finish_reason: "done" ends it with [DONE], "close" just ends the body.
    preempt_on_arrival: str | None = None
    # False: a stream never carries usage, even when stream_options asks for it (as
    # llama-cpp-python's server); the client must count the tokens itself.
    stream_usage: bool = True

    def __post_init__(self) -> None:
        problems = list(_problems(self))
        if problems:
            raise ValueError("invalid simulator settings: " + "; ".join(problems))

    @property
    def speculative(self) -> bool:
        return self.draft_steps > 0


def _problems(config: SimConfig) -> list[str]:
    found: list[str] = []
    non_negative = {
        "ttft_ms": config.ttft_ms,
        "prefill_overhead_ms": config.prefill_overhead_ms,
        "step_ms": config.step_ms,
        "load_slope": config.load_slope,
        "noise_cv": config.noise_cv,
        "verify_ms": config.verify_ms,
        "ready_delay_s": config.ready_delay_s,
    }
    if config.prefill_per_token_ms is not None:
        non_negative["prefill_per_token_ms"] = config.prefill_per_token_ms
    for name, value in non_negative.items():
        if not math.isfinite(value) or value < 0:
            found.append(f"{name} must be a finite number >= 0 (got {value})")
    if not config.model or not config.model.strip():
        found.append("model must be a non-empty name")
    if config.max_running < 1:
        found.append(f"max_running must be >= 1 (got {config.max_running})")
    if config.draft_steps < 0:
        found.append(f"draft_steps must be >= 0 (got {config.draft_steps})")
    if not 0.0 <= config.accept_prob <= 1.0:
        found.append(f"accept_prob must be within [0, 1] (got {config.accept_prob})")
    if not 0.0 <= config.error_rate <= 1.0:
        found.append(f"error_rate must be within [0, 1] (got {config.error_rate})")
    if config.default_max_tokens < 1:
        found.append(f"default_max_tokens must be >= 1 (got {config.default_max_tokens})")
    if config.natural_output_tokens is not None and config.natural_output_tokens < 1:
        found.append(f"natural_output_tokens must be >= 1 (got {config.natural_output_tokens})")
    if config.max_model_len < 1:
        found.append(f"max_model_len must be >= 1 (got {config.max_model_len})")
    if config.die_after_requests is not None and config.die_after_requests < 1:
        found.append(f"die_after_requests must be >= 1 (got {config.die_after_requests})")
    if config.preempt_on_arrival not in PREEMPT_MODES:
        modes = ", ".join(repr(m) for m in PREEMPT_MODES if m)
        found.append(f"preempt_on_arrival must be one of {modes} (got {config.preempt_on_arrival!r})")
    if config.stall_after_tokens is not None and config.stall_after_tokens < 0:
        found.append(f"stall_after_tokens must be >= 0 (got {config.stall_after_tokens})")
    return found
