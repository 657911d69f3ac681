"""The latency model: exact expectations, the draws behind them, and their determinism."""

from __future__ import annotations

import math
import statistics

import pytest

from benchdoc.sim import SimConfig, expected
from benchdoc.sim.model import accept_length, draw_step, load_factor, noise, request_rng


def test_expected_without_speculation_is_ttft_plus_steps() -> None:
    config = SimConfig(ttft_ms=12.5, step_ms=0.75)
    values = expected(config, input_tokens=100, output_tokens=9)
    assert values.ttft_ms == 12.5
    assert values.step_ms == 0.75
    assert values.tpot_ms == 0.75 and values.itl_ms == 0.75
    assert values.e2e_ms == pytest.approx(12.5 + 8 * 0.75, abs=1e-12)
    assert values.decode_steps == 8
    assert values.accept_length == 1.0


def test_expected_single_token_has_no_decode() -> None:
    values = expected(SimConfig(ttft_ms=3.0, step_ms=2.0), input_tokens=1, output_tokens=1)
    assert values.e2e_ms == 3.0 and values.tpot_ms == 0.0 and values.decode_steps == 0


def test_per_token_prefill_replaces_constant_ttft() -> None:
    config = SimConfig(ttft_ms=99.0, prefill_overhead_ms=4.0, prefill_per_token_ms=0.125)
    assert expected(config, input_tokens=64, output_tokens=2).ttft_ms == 4.0 + 64 * 0.125


def test_accept_length_is_one_plus_geometric_sum() -> None:
    config = SimConfig(draft_steps=3, accept_prob=0.6)
    assert accept_length(config) == pytest.approx(1 + 0.6 + 0.36 + 0.216)
    assert expected(config, 1, 10).accept_length == pytest.approx(2.176)


@pytest.mark.parametrize(
    ("draft_steps", "accept_prob", "output_tokens", "steps"),
    [(3, 1.0, 11, 3), (3, 1.0, 9, 2), (2, 0.0, 9, 8)],  # always 4 per step (ceil 10/4); never a draft
)
def test_expected_steps_in_the_deterministic_corners(
    draft_steps: int, accept_prob: float, output_tokens: int, steps: int
) -> None:
    config = SimConfig(step_ms=1.0, verify_ms=0.5, draft_steps=draft_steps, accept_prob=accept_prob)
    values = expected(config, 1, output_tokens)
    assert values.decode_steps == pytest.approx(steps)
    assert values.step_ms == 1.5
    assert values.e2e_ms == pytest.approx(config.ttft_ms + steps * 1.5)


def test_long_run_draws_match_the_expected_accept_length() -> None:
    config = SimConfig(draft_steps=3, accept_prob=0.7, seed=7)
    rng = request_rng(config, 0)
    tokens = [draw_step(config, rng, running=1, remaining=10**9).tokens for _ in range(20000)]
    assert statistics.fmean(tokens) == pytest.approx(accept_length(config), rel=0.02)
    assert max(tokens) == 4 and min(tokens) == 1


def test_expected_steps_agree_with_simulated_truncated_runs() -> None:
    config = SimConfig(draft_steps=2, accept_prob=0.5, seed=3)
    runs = []
    for index in range(3000):
        rng = request_rng(config, index)
        released, steps = 1, 0
        while released < 6:
            released += draw_step(config, rng, 1, 6 - released).tokens
            steps += 1
        runs.append(steps)
    assert statistics.fmean(runs) == pytest.approx(expected(config, 1, 6).decode_steps, rel=0.03)


def test_step_time_grows_with_load_up_to_max_running() -> None:
    config = SimConfig(step_ms=2.0, load_slope=0.25, max_running=4)
    assert load_factor(config, 1) == 1.0
    assert load_factor(config, 3) == 1.5
    assert load_factor(config, 4) == load_factor(config, 40) == 1.75
    rng = request_rng(config, 0)
    assert draw_step(config, rng, running=3, remaining=5).duration_ms == pytest.approx(3.0)


def test_noise_has_mean_one_and_the_configured_cv() -> None:
    config = SimConfig(noise_cv=0.2, seed=11)
    rng = request_rng(config, 0)
    draws = [noise(config, rng) for _ in range(40000)]
    assert min(draws) > 0
    assert statistics.fmean(draws) == pytest.approx(1.0, abs=0.01)
    assert statistics.pstdev(draws) == pytest.approx(0.2, rel=0.05)


def test_noise_off_is_exactly_one() -> None:
    config = SimConfig(noise_cv=0.0)
    assert noise(config, request_rng(config, 0)) == 1.0


def test_draws_are_deterministic_per_seed_and_request() -> None:
    config = SimConfig(noise_cv=0.3, draft_steps=2, seed=5)

    def sequence(seed_config: SimConfig, index: int) -> list[tuple[int, float]]:
        rng = request_rng(seed_config, index)
        return [(s.tokens, s.duration_ms) for s in (draw_step(seed_config, rng, 1, 100) for _ in range(20))]

    assert sequence(config, 4) == sequence(config, 4)
    assert sequence(config, 4) != sequence(config, 5)
    assert sequence(config, 4) != sequence(SimConfig(noise_cv=0.3, draft_steps=2, seed=6), 4)


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"step_ms": -1.0}, "step_ms must be a finite number >= 0"),
        ({"ttft_ms": math.nan}, "ttft_ms must be a finite number"),
        ({"accept_prob": 1.5}, "accept_prob must be within [0, 1]"),
        ({"max_running": 0}, "max_running must be >= 1"),
        ({"die_after_requests": 0}, "die_after_requests must be >= 1"),
        ({"error_rate": -0.1}, "error_rate must be within [0, 1]"),
    ],
)
def test_invalid_settings_are_refused_with_the_field_named(settings: dict[str, float], fragment: str) -> None:
    with pytest.raises(ValueError, match="invalid simulator settings") as caught:
        SimConfig(**settings)  # type: ignore[arg-type]
    assert fragment in str(caught.value)


def test_expected_rejects_zero_output_tokens() -> None:
    with pytest.raises(ValueError, match="output_tokens"):
        expected(SimConfig(), 1, 0)
