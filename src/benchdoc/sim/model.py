"""The latency model: when each output token is released, and what a request should cost.

Pure functions over a `SimConfig` and a per-request random stream. The server turns the
durations drawn here into absolute deadlines; `expected` gives the noise-free values a
measurement of one unqueued request should reproduce.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from benchdoc.sim.config import SimConfig


@dataclass(frozen=True)
class Expected:
    """Noise-free model values for one request that did not queue and ran alone.

    Without speculation they are exact. With speculation the number of decode steps is
    random, so ``e2e_ms``, ``tpot_ms`` and ``itl_ms`` are exact *expectations* (the last
    step's truncation at the output length included) and ``accept_length`` is the
    model's mean tokens per verify step, 1 + E[accepted drafts].
    """

    input_tokens: int
    output_tokens: int
    ttft_ms: float
    step_ms: float  # one decode step, verify cost included when speculating
    tpot_ms: float  # (e2e - ttft) / (output_tokens - 1); 0 for a single token
    itl_ms: float  # mean gap per output token after the first (same as tpot_ms)
    e2e_ms: float
    decode_steps: float  # (expected) number of decode steps after the first token
    accept_length: float  # 1.0 without speculation


@dataclass(frozen=True)
class Step:
    """One decode step: how many tokens it releases at once and what it cost."""

    tokens: int
    drafted: int  # draft tokens proposed (0 without speculation)
    accepted: int  # draft tokens accepted, before truncation to the output length
    duration_ms: float


def prefill_ms(config: SimConfig, input_tokens: int) -> float:
    """Time to first token, noise-free."""
    if config.prefill_per_token_ms is not None:
        return config.prefill_overhead_ms + input_tokens * config.prefill_per_token_ms
    return config.ttft_ms


def base_step_ms(config: SimConfig) -> float:
    """One decode step at a load of one running request, noise-free."""
    return config.step_ms + (config.verify_ms if config.speculative else 0.0)


def load_factor(config: SimConfig, running: int) -> float:
    """How much slower a step is with `running` requests in the batch (capped at max_running)."""
    batch = max(1, min(running, config.max_running))
    return 1.0 + config.load_slope * (batch - 1)


def accept_length(config: SimConfig) -> float:
    """Mean tokens released per verify step: 1 + sum_{j=1..k} p^j."""
    p = config.accept_prob
    return 1.0 + sum(p**j for j in range(1, config.draft_steps + 1))


def expected(config: SimConfig, input_tokens: int, output_tokens: int) -> Expected:
    """The model's noise-free values for one request with no queueing and no other load."""
    if output_tokens < 1:
        raise ValueError(f"output_tokens must be >= 1 (got {output_tokens})")
    if input_tokens < 0:
        raise ValueError(f"input_tokens must be >= 0 (got {input_tokens})")
    ttft = prefill_ms(config, input_tokens)
    step = base_step_ms(config)
    remaining = output_tokens - 1
    if config.speculative:
        steps = _expected_steps(config.draft_steps, config.accept_prob, remaining)
    else:
        steps = float(remaining)
    decode = steps * step
    per_token = decode / remaining if remaining else 0.0
    return Expected(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        ttft_ms=ttft,
        step_ms=step,
        tpot_ms=per_token,
        itl_ms=per_token,
        e2e_ms=ttft + decode,
        decode_steps=steps,
        accept_length=accept_length(config),
    )


def _expected_steps(draft_steps: int, accept_prob: float, tokens: int) -> float:
    """E[number of speculative steps needed to release `tokens` tokens].

    A step releases 1 + A tokens (A = accepted drafts, truncated at what remains), so
    E[steps(m)] = 1 + sum_a P(A = a) * E[steps(m - 1 - a)], with E[steps(m <= 0)] = 0.
    """
    return _steps_table(draft_steps, accept_prob, tokens)[tokens]


@lru_cache(maxsize=64)
def _steps_table(draft_steps: int, accept_prob: float, tokens: int) -> tuple[float, ...]:
    p = accept_prob
    probabilities = [p**a * (1.0 - p) for a in range(draft_steps)] + [p**draft_steps]
    table = [0.0] * (tokens + 1)
    for m in range(1, tokens + 1):
        table[m] = 1.0 + sum(
            prob * table[max(0, m - 1 - a)] for a, prob in enumerate(probabilities)
        )
    return tuple(table)


def request_rng(config: SimConfig, request_index: int) -> random.Random:
    """The random stream of the `request_index`-th request (0-based, in arrival order).

    One stream per request keeps every request's draws the same for a seed, however the
    requests interleave in time.
    """
    return random.Random(f"benchdoc-sim/{config.seed}/{request_index}")


def noise(config: SimConfig, rng: random.Random) -> float:
    """A multiplier with mean 1 and the configured CV (log-normal, so always positive)."""
    if config.noise_cv <= 0.0:
        return 1.0
    sigma = math.sqrt(math.log1p(config.noise_cv**2))
    return rng.lognormvariate(-0.5 * sigma * sigma, sigma)


def draw_prefill_ms(config: SimConfig, rng: random.Random, input_tokens: int) -> float:
    return prefill_ms(config, input_tokens) * noise(config, rng)


def draw_step(config: SimConfig, rng: random.Random, running: int, remaining: int) -> Step:
    """Draw one decode step for a request with `remaining` tokens still to release."""
    accepted = 0
    if config.speculative:
        # Drafts are verified in order; the first rejection ends the accepted run.
        while accepted < config.draft_steps and rng.random() < config.accept_prob:
            accepted += 1
    duration = base_step_ms(config) * load_factor(config, running) * noise(config, rng)
    return Step(
        tokens=min(1 + accepted, remaining),
        drafted=config.draft_steps,
        accepted=accepted,
        duration_ms=duration,
    )
