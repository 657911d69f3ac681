"""Open-loop arrival schedules: seeded, with the asked-for rate and burstiness."""

from __future__ import annotations

import statistics

import pytest

from benchdoc.workloads.arrivals import arrival_times


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:])]


def test_same_seed_same_schedule_other_seed_other_schedule() -> None:
    assert arrival_times(10, count=50, seed=1) == arrival_times(10, count=50, seed=1)
    assert arrival_times(10, count=50, seed=1) != arrival_times(10, count=50, seed=2)


def test_poisson_has_the_rate_and_a_cv_of_one() -> None:
    g = gaps(arrival_times(20.0, count=20_000, seed=0))
    assert statistics.fmean(g) == pytest.approx(1 / 20, rel=0.03)
    assert statistics.stdev(g) / statistics.fmean(g) == pytest.approx(1.0, rel=0.05)


def test_burstiness_sets_the_gamma_shape() -> None:
    # Gamma of shape k: CV = 1/sqrt(k); the mean stays 1/rate.
    bursty = gaps(arrival_times(20.0, count=20_000, burstiness=0.25, seed=0))
    regular = gaps(arrival_times(20.0, count=20_000, burstiness=4.0, seed=0))
    for g, cv in ((bursty, 2.0), (regular, 0.5)):
        assert statistics.fmean(g) == pytest.approx(1 / 20, rel=0.05)
        assert statistics.stdev(g) / statistics.fmean(g) == pytest.approx(cv, rel=0.08)


def test_count_and_duration_bounds() -> None:
    assert len(arrival_times(5, count=7)) == 7
    times = arrival_times(100, duration_s=2.0, seed=3)
    assert times[0] == 0.0 and all(t < 2.0 for t in times)
    assert 150 < len(times) < 250
    with pytest.raises(ValueError):
        arrival_times(5, count=3, duration_s=1.0)
    with pytest.raises(ValueError):
        arrival_times(0, count=3)


def test_a_huge_schedule_is_produced_lazily() -> None:
    from itertools import islice

    from benchdoc.workloads.arrivals import iter_arrival_times

    first = list(islice(iter_arrival_times(1e9, duration_s=3600.0, seed=3), 5))  # 3.6e12 arrivals, none built
    assert first[0] == 0.0 and first == sorted(first) and first[-1] < 1e-6
    assert list(iter_arrival_times(10, count=50, seed=1)) == arrival_times(10, count=50, seed=1)
