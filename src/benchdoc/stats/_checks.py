"""Input checks shared by the statistics functions: one clear error per bad input."""

from __future__ import annotations

import math
from collections.abc import Iterable

from benchdoc.errors import UsageError

DIRECTIONS: tuple[str, ...] = ("higher", "lower")


def as_values(values: Iterable[float], what: str) -> list[float]:
    """The samples as plain Python floats; reject an empty sample or a non-finite value."""
    result: list[float] = []
    for position, value in enumerate(values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"{what}: value {value!r} at position {position} is not a number") from None
        if not math.isfinite(number):
            raise UsageError(f"{what}: value {value!r} at position {position} is not a finite number")
        result.append(number)
    if not result:
        raise UsageError(f"{what}: no samples")
    return result


def check_level(confidence: float) -> float:
    """A confidence level strictly between 0 and 1."""
    if not 0.0 < confidence < 1.0:
        raise UsageError(f"confidence must be between 0 and 1 (exclusive), got {confidence!r}")
    return float(confidence)


def check_alpha(alpha: float) -> float:
    """A significance level strictly between 0 and 1."""
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"alpha must be between 0 and 1 (exclusive), got {alpha!r}")
    return float(alpha)


def check_direction(direction: str) -> str:
    """'higher' (throughput: more is better) or 'lower' (latency: less is better)."""
    if direction not in DIRECTIONS:
        raise UsageError(f"direction must be 'higher' or 'lower', got {direction!r}")
    return direction


def check_margin(margin: float | None) -> float | None:
    """An equivalence margin as a fraction (0.01 is ±1%), or None for no equivalence test."""
    if margin is None:
        return None
    if not 0.0 < margin < 1.0:
        raise UsageError(f"equivalence margin must be a fraction between 0 and 1 (0.01 is ±1%), got {margin!r}")
    return float(margin)


def percent(level: float) -> str:
    """0.95 -> '95%', 0.999 -> '99.9%'."""
    return f"{level * 100:g}%"
