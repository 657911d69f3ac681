"""Load sweeps and the capacity search: one workload run at several load levels.

``run_sweep`` runs each level of ``--rate 1,2,4,8`` or ``--concurrency 1,8,32`` in turn.
``find_capacity`` searches the highest request rate whose SLO attainment stays at or
above a target while the server delivers the rate offered: doubling the rate until a
level misses, then bisecting between the last level that met the target and the first
that did not, within a time budget. The answer has a resolution: the highest rate seen
to pass and the lowest seen to fail. A level whose achieved request rate falls short of
``DELIVERED_SHARE`` of the rate offered misses, so a capacity is never more than
1 / ``DELIVERED_SHARE`` times a rate the server achieved. A level that missed while the
client was the bottleneck says nothing of the server: the search stops there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from benchdoc.errors import UsageError
from benchdoc.naming import LoadLevel

if TYPE_CHECKING:
    from benchdoc.workloads.result import WorkloadResult
    from benchdoc.workloads.spec import WorkloadSpec

Runner = Callable[["WorkloadSpec"], "WorkloadResult"]
DEFAULT_TARGET = 0.99
# A level meets the target only when the server completed at least this share of the rate offered.
DELIVERED_SHARE = 0.8


def at_level(spec: WorkloadSpec, level: LoadLevel) -> WorkloadSpec:
    """``spec`` driven at ``level``: an open loop at that rate, or a closed loop of that size."""
    if level.kind == "rate":
        return replace(spec, rate=level.value, concurrency=None)
    return replace(spec, concurrency=int(level.value), rate=None, max_concurrency=None)


@dataclass(frozen=True)
class SweepPoint:
    level: LoadLevel
    result: WorkloadResult


def run_sweep(
    spec: WorkloadSpec,
    levels: tuple[LoadLevel, ...],
    run: Runner | None = None,
    on_level: Callable[[SweepPoint], None] | None = None,
) -> list[SweepPoint]:
    """Run ``spec`` at each level in turn; ``on_level`` hears each as it ends."""
    run = run or _default_runner()
    points = []
    for level in levels:
        point = SweepPoint(level, run(at_level(spec, level)))
        points.append(point)
        if on_level is not None:
            on_level(point)
    return points


@dataclass(frozen=True)
class CapacityStep:
    """One level tried by the search: its rate, SLO attainment, achieved rate, whether it
    met the target, and why not (or why it says nothing, for a client-bound miss)."""

    rate: float
    attainment: float
    passed: bool
    result: WorkloadResult
    achieved_req_s: float = 0.0
    why: str = ""
    client_bound: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"rate": self.rate, "slo_attainment": self.attainment, "achieved_req_s": self.achieved_req_s,
                "met_target": self.passed, "why": self.why or None, "client_bound": self.client_bound}


def judge_level(rate: float, result: WorkloadResult, target: float) -> CapacityStep:
    """Whether a level at ``rate`` met the target: SLO attainment, a run not aborted, and
    the rate delivered (successful requests over the measured duration)."""
    metrics = result.metrics
    attainment = metrics.get("slo_attainment", 0.0)
    achieved = metrics.get("request_s", 0.0)
    client_bound = bool(result.client is not None and result.client.bound)
    why = ""
    if result.aborted:
        why = f"aborted: {result.aborted}"
    elif achieved < DELIVERED_SHARE * rate:
        why = f"achieved {achieved:.3g} req/s, short of {DELIVERED_SHARE:.0%} of the {rate:.3g} offered"
        e2e = metrics.get("e2e_ms_p50")
        if e2e is not None and result.duration_s > 0 and e2e / 1000.0 > 0.25 * result.duration_s:
            why += (f" (a level of {result.duration_s:.3g} s is short beside its e2e latency p50 of "
                    f"{e2e / 1000.0:.3g} s: give each level more requests or a longer --duration)")
    elif attainment < target:
        why = f"SLO attainment {attainment:.3f} below {target:g}"
    return CapacityStep(rate, attainment, not why, result, achieved, why, client_bound)


@dataclass
class Capacity:
    """The search's answer: ``low`` is the highest rate that met the target (None when even
    the first level missed), ``high`` the lowest that missed (None when none did: then the
    capacity was not found, only that it is above ``low``)."""

    target: float
    low: float | None = None
    high: float | None = None
    steps: list[CapacityStep] = field(default_factory=list)
    stopped: str = ""

    @property
    def found(self) -> bool:
        """Whether the search has both a rate that met the target and one that missed."""
        return self.low is not None and self.high is not None

    @property
    def capacity_req_s(self) -> float | None:
        return self.low if self.found else None

    @property
    def achieved_max_req_s(self) -> float | None:
        """The highest request rate any level achieved."""
        return max((s.achieved_req_s for s in self.steps), default=None)

    @property
    def relative_width(self) -> float | None:
        """(high - low) / low: the search's resolution, relative to its answer."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / self.low

    def to_dict(self) -> dict[str, Any]:
        """What a run records of the search (its metadata's ``capacity``)."""
        return {
            "capacity_req_s": self.capacity_req_s,
            "resolution": [self.low, self.high],
            "achieved_max_req_s": self.achieved_max_req_s,
            "target": self.target,
            "stopped": self.stopped,
            "sentence": self.sentence(),
            "levels": [s.to_dict() for s in self.steps],
        }

    def metrics(self) -> dict[str, float]:
        """``capacity_req_s`` and ``capacity_high_req_s`` when the search found the capacity."""
        if not self.found:
            return {}
        assert self.low is not None and self.high is not None
        return {"capacity_req_s": float(self.low), "capacity_high_req_s": float(self.high)}

    def sentence(self) -> str:
        target = f"SLO attainment >= {self.target:g}"
        if self.low is None:
            return f"capacity: no rate tried kept {target} ({self.stopped})"
        if self.high is None:
            return (f"capacity: not found below the achieved maximum of {self.achieved_max_req_s or 0:.3g} req/s; "
                    f"every level tried up to {self.low:.3g} req/s kept {target} ({self.stopped})")
        return (f"capacity: {self.low:.3g} req/s with {target} (resolution: between {self.low:.3g} and "
                f"{self.high:.3g} req/s; {self.stopped})")


def find_capacity(
    spec: WorkloadSpec,
    *,
    target: float = DEFAULT_TARGET,
    start_rate: float = 1.0,
    growth: float = 2.0,
    precision: float = 0.05,
    budget_s: float = 600.0,
    max_rate: float = 1e6,
    run: Runner | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_step: Callable[[CapacityStep], None] | None = None,
) -> Capacity:
    """Search the highest rate at which ``spec`` keeps SLO attainment >= ``target``.

    Stepwise (``start_rate`` x ``growth`` each level) until a level misses, then bisection
    until the resolution is within ``precision`` of its low end. A level is not started when
    its expected length would overrun ``budget_s``. Each level runs ``spec`` as given
    (its ``requests`` or ``duration_s``) at the level's rate.
    """
    _check_search(spec, target, start_rate, growth, precision, budget_s)
    run = run or _default_runner()
    capacity = Capacity(target=target)
    started = clock()

    def try_rate(rate: float) -> bool | None:
        if clock() - started + _expected_s(spec, rate) > budget_s:
            capacity.stopped = f"time budget ({budget_s:g} s) reached"
            return None
        step = judge_level(rate, run(replace(spec, rate=rate, concurrency=None)), target)
        capacity.steps.append(step)
        if on_step is not None:
            on_step(step)
        if step.passed:
            capacity.low = rate if capacity.low is None else max(capacity.low, rate)
        elif step.client_bound:
            capacity.stopped = (f"the client was the bottleneck at {rate:.3g} req/s ({step.why}): "
                                "that level says nothing of the server")
            return None
        else:
            capacity.high = rate if capacity.high is None else min(capacity.high, rate)
        return step.passed

    rate = start_rate
    while capacity.high is None:
        if rate > max_rate:
            capacity.stopped = f"every rate up to {max_rate:g} req/s met the target"
            return capacity
        if try_rate(rate) is None:
            return capacity
        rate *= growth
    while True:
        low = capacity.low if capacity.low is not None else 0.0
        high = capacity.high
        assert high is not None
        if capacity.low is not None and (high - low) / low <= precision:
            capacity.stopped = f"resolution within {precision:.0%}"
            return capacity
        if capacity.low is None and high <= start_rate * precision:
            capacity.stopped = "even the lowest rate tried missed the target"
            return capacity
        if try_rate((low + high) / 2) is None:
            return capacity


def _check_search(spec: WorkloadSpec, target: float, start_rate: float, growth: float, precision: float,
                  budget_s: float) -> None:
    """A UsageError naming what makes the search impossible, if anything does."""
    if not spec.slo:
        raise UsageError("a capacity search needs an SLO (e.g. --slo ttft_ms:200,tpot_ms:50)")
    if not 0.0 < target <= 1.0:
        raise UsageError(f"the attainment target must be within (0, 1] (got {target})")
    if not (start_rate > 0 and growth > 1 and precision > 0 and budget_s > 0):
        raise UsageError("start rate and precision must be > 0, growth > 1, and the time budget > 0")


def _expected_s(spec: WorkloadSpec, rate: float) -> float:
    """About how long one level takes at ``rate``: its duration, or its requests / rate."""
    if spec.duration_s is not None:
        return spec.duration_s
    return (spec.requests or 100) / rate


def _default_runner() -> Runner:
    from benchdoc.workloads import run_workload

    return run_workload
