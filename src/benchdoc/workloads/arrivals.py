"""When the requests of an open-loop workload are due: seeded Poisson or gamma arrivals."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator


def arrival_gaps(rate: float, burstiness: float = 1.0, seed: int = 0) -> Iterator[float]:
    """Endless seeded gaps (seconds) between arrivals at ``rate`` requests per second.

    Gaps follow a gamma distribution of shape ``burstiness`` and mean ``1/rate``:
    burstiness 1 is a Poisson process (exponential gaps), below 1 burstier, above 1 more
    regular. The same seed always gives the same gaps.
    """
    if not rate > 0:
        raise ValueError(f"rate must be > 0 requests/s (got {rate})")
    if not burstiness > 0:
        raise ValueError(f"burstiness must be > 0 (got {burstiness})")
    rng = random.Random(seed)
    if burstiness == 1.0:
        while True:
            yield rng.expovariate(rate)
    scale = 1.0 / (rate * burstiness)
    while True:
        yield rng.gammavariate(burstiness, scale)


def arrival_times(
    rate: float,
    count: int | None = None,
    duration_s: float | None = None,
    burstiness: float = 1.0,
    seed: int = 0,
    ramp_up_s: float | None = None,
) -> list[float]:
    """Due times (seconds from the start) of ``count`` arrivals, or of every arrival
    before ``duration_s``. The first request is due at 0; the gaps follow.

    The schedule is not rescaled to make its total span exactly ``count / rate``: the
    process is what it says, and its realised rate is visible in ``request_s``.
    """
    return list(iter_arrival_times(rate, count, duration_s, burstiness, seed, ramp_up_s))


def iter_arrival_times(
    rate: float,
    count: int | None = None,
    duration_s: float | None = None,
    burstiness: float = 1.0,
    seed: int = 0,
    ramp_up_s: float | None = None,
) -> Iterator[float]:
    """The due times of :func:`arrival_times`, one at a time: a schedule of a billion
    arrivals costs no memory until they are sent.

    With ``ramp_up_s`` the rate climbs linearly from 0 to ``rate`` over that many seconds,
    then stays: the steady schedule's times are mapped through the inverse of the ramp's
    cumulative rate (so a Poisson process stays Poisson, now with that rising rate)."""
    if (count is None) == (duration_s is None):
        raise ValueError("give exactly one of count and duration_s")
    if count is not None and count < 0:
        raise ValueError(f"count must be >= 0 (got {count})")
    gaps = arrival_gaps(rate, burstiness, seed)
    steady = 0.0
    sent = 0
    while True:
        now = ramped(steady, ramp_up_s) if ramp_up_s else steady
        if not ((count is not None and sent < count) or (duration_s is not None and now < duration_s)):
            return
        yield now
        sent += 1
        steady += next(gaps)


def ramped(steady_s: float, ramp_up_s: float) -> float:
    """When an arrival due at ``steady_s`` at the full rate is due under a linear ramp of
    ``ramp_up_s`` seconds: the rate r(t) = rate * t / ramp_up_s integrates to
    rate * t^2 / (2 ramp_up_s) until the ramp ends, at rate * ramp_up_s / 2."""
    if steady_s < ramp_up_s / 2:
        return math.sqrt(2.0 * ramp_up_s * steady_s)
    return steady_s + ramp_up_s / 2
