"""Is the client the bottleneck? Its event loop's lag and its CPU share, measured during a run.

One event loop stamps every chunk. When it has more work than time, a chunk that arrived
waits for the loop before it is stamped, and every latency it feeds comes out late. A
timer set, already due, on a read (at most every 100 ms of reads: no wake-up of its own)
runs as late as a socket that became ready then is read; with the share of the time the
loop's thread ran or waited for a CPU, and the process's CPU time over the wall time,
this says whether the client kept up. A run is *client-bound* when the loop's lag is a noticeable part of the
smallest gaps being measured between reads, when the client's CPU was nearly all used, or when
requests' bytes left the client well after their send stamp (a delay every latency of
the request includes) compared with the smallest TTFT measured; the run says so, with
the figures, rather than reporting latencies its own clock bent.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from time import perf_counter
from typing import Any

# A lag sample at most this often, taken on a read (see LoopMonitor).
PROBE_INTERVAL_S = 0.1
# A run is client-bound when ...
CPU_SHARE_LIMIT = 0.9  # ... the client used more than this share of a core,
LAG_FRACTION = 0.25  # ... its loop's p99 lag exceeds this fraction of the smallest gaps measured,
SEND_DELAY_FRACTION = 0.1  # ... its send delay's p99 exceeds this fraction of the smallest TTFTs,
TTFT_ERROR_LIMIT_MS = 1.0  # ... or its TTFT exceeded the server's own by this much (mean),
# ... the lag and the send delay counting against the client when it used at least this
# share of a core; below it the loop was idle and the lateness came from a busy machine
# (other processes had the cores), which is noted but is not the client's saturation.
BUSY_SHARE = 0.5
# "The smallest gaps" and "the smallest TTFTs": this percentile of them (a robust minimum).
SMALL_GAP_PERCENTILE = 10.0


@dataclass(frozen=True)
class ClientLoad:
    """How loaded the client was during the measured phase.

    ``cpu_share``: CPU time of the client process(es) over their wall time (1.0 = one
    core fully used; per process when there are several workers, the largest).
    ``loop_busy_share``: the share of the wall time the event loop's thread ran or waited
    for a CPU, not waiting for events (None where it cannot be watched).
    ``lag_ms_*``: lateness of a timer set, already due, on a read. ``bound`` and
    ``reasons`` give the verdict.
    """

    cpu_share: float
    loop_busy_share: float | None
    lag_ms_mean: float
    lag_ms_p99: float
    lag_ms_max: float
    probes: int
    workers: int = 1
    send_delay_ms_p99: float | None = None
    smallest_gap_ms: float | None = None
    # The send delay's median and maximum, and the smallest TTFTs its p99 is weighed against.
    send_delay_ms_p50: float | None = None
    send_delay_ms_max: float | None = None
    smallest_ttft_ms: float | None = None
    # Mean and p99 of the client's TTFT less the server's own for the same requests, when
    # the server reports its stamps: the error the client's stamps carry.
    ttft_error_ms_mean: float | None = None
    ttft_error_ms_p99: float | None = None
    bound: bool = False
    reasons: tuple[str, ...] = field(default_factory=tuple)
    notes: tuple[str, ...] = field(default_factory=tuple)  # lateness not of the client's making

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["reasons"] = list(self.reasons)
        data["notes"] = list(self.notes)
        return data

    def headline(self) -> str:
        """The verdict in a few words: 'client kept up (CPU 7% of a core)', or 'CLIENT-BOUND: '
        and its first reason (``sentence`` gives every figure)."""
        if not self.bound:
            return f"client kept up (CPU {self.cpu_share * 100:.0f}% of a core)"
        more = f" (and {len(self.reasons) - 1} more)" if len(self.reasons) > 1 else ""
        first = self.reasons[0] if self.reasons else "the client was the bottleneck"
        return f"CLIENT-BOUND: {first}{more}; latencies include the client's own delay"

    def sentence(self) -> str:
        """One line for a summary."""
        busy = f", loop busy {self.loop_busy_share * 100:.0f}%" if self.loop_busy_share is not None else ""
        figures = (f"client CPU {self.cpu_share * 100:.0f}% of a core{busy}, event-loop lag p99 {self.lag_ms_p99:.2f} ms"
                   + (f" (max {self.lag_ms_max:.2f} ms)" if self.probes else ""))
        if self.send_delay_ms_p99 is not None:
            figures += f", send delay p99 {self.send_delay_ms_p99:.2f} ms (max {self.send_delay_ms_max or 0.0:.2f} ms)"
        if self.workers > 1:
            figures += f", {self.workers} worker processes"
        if self.ttft_error_ms_mean is not None:
            figures += f"; TTFT {self.ttft_error_ms_mean:+.2f} ms (mean) beside the server's own stamps"
        if not self.bound:
            note = f"; {'; '.join(self.notes)}" if self.notes else ""
            return f"client kept up: {figures}{note}"
        note = f"; {'; '.join(self.notes)}" if self.notes else ""
        return f"CLIENT-BOUND: {'; '.join(self.reasons)} — latencies include the client's own delay ({figures}){note}"


def _schedstat() -> tuple[float, float] | None:
    """(seconds this thread ran, seconds it waited runnable for a CPU), from Linux's
    /proc/thread-self/schedstat; None where the kernel does not keep them."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as f:
            ran, waited = f.read().split()[:2]
        return int(ran) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        return None


class LoopMonitor:
    """The client's event loop watched between start and stop, without waking it.

    **Lag**: the readers report each read (:meth:`note`); at most every ``interval_s`` of
    reads a timer already due is set on the loop, and how late it runs is how long a
    socket that became ready then waits before it is read. It adds no wake-up: the loop
    has just been woken by the read, and a due timer only keeps it from sleeping again.
    An idle client takes no samples and has nothing waiting.

    **Busy share**: the time the loop's thread ran or waited, runnable, for a CPU, over the
    wall time (Linux's per-thread scheduler statistics: any event loop). A loop with work
    pending is runnable however little CPU the machine gives it, while an idle loop sleeps
    in its poll: so this tells a saturated client from one that the machine starved.
    Where the kernel does not say (not Linux), asyncio's selector is timed instead, and on
    uvloop there the verdict falls back on the CPU share.
    """

    def __init__(self, interval_s: float = PROBE_INTERVAL_S) -> None:
        self.interval_s = interval_s
        self.lateness: list[float] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next = math.inf  # the read after which the next sample is taken (inf: stopped)
        self._cpu0 = 0.0
        self._wall0 = 0.0
        self._sched0: tuple[float, float] | None = None
        self.cpu_s = 0.0
        self.wall_s = 0.0
        self.busy_s: float | None = None  # None: how busy the loop was is not known here
        self.waited_s: float | None = None  # time in asyncio's selector, where it is timed
        self._selector: Any = None
        self._select: Any = None

    def note(self, now: float) -> None:
        """A read at ``now`` (``perf_counter``): a lag sample is due every ``interval_s``."""
        if now >= self._next:
            self._next = now + self.interval_s
            loop = self._loop
            assert loop is not None
            loop.call_at(loop.time(), self._probe, now)

    def _probe(self, at: float) -> None:
        self.lateness.append(perf_counter() - at)

    def _watch_selector(self, loop: asyncio.AbstractEventLoop) -> None:
        selector: Any = getattr(loop, "_selector", None)  # asyncio's selector loops; not uvloop
        select = getattr(selector, "select", None)
        if selector is None or select is None:
            return
        self.waited_s = 0.0
        clock = time.perf_counter

        def timed_select(timeout: float | None = None) -> Any:
            began = clock()
            try:
                return select(timeout)
            finally:
                self.waited_s = (self.waited_s or 0.0) + clock() - began

        self._selector, self._select = selector, select
        selector.select = timed_select

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._sched0 = _schedstat()
        if self._sched0 is None:
            self._watch_selector(self._loop)
        self._cpu0, self._wall0 = time.process_time(), time.perf_counter()
        self._next = self._wall0

    def stop(self) -> None:
        self._next = math.inf
        self.cpu_s = time.process_time() - self._cpu0
        self.wall_s = time.perf_counter() - self._wall0
        sched = _schedstat()
        if self._sched0 is not None and sched is not None:
            self.busy_s = (sched[0] - self._sched0[0]) + (sched[1] - self._sched0[1])
        if self._selector is not None:
            self._selector.select = self._select  # the loop's own method again
            self._selector = None
            if self.waited_s is not None:
                self.busy_s = max(0.0, self.wall_s - self.waited_s)

    def measure(self) -> tuple[float, float | None, list[float]]:
        """(CPU share, loop busy share or None, lateness values in ms) once stopped."""
        if self.wall_s <= 0:
            return 0.0, None, []
        busy = None if self.busy_s is None else min(1.0, max(0.0, self.busy_s / self.wall_s))
        return self.cpu_s / self.wall_s, busy, [max(0.0, v) * 1000.0 for v in self.lateness]


def assess(
    cpu_shares: Sequence[float],
    lag_ms: Sequence[float],
    chunk_gaps_ms: Sequence[float],
    send_delays_ms: Sequence[float] = (),
    workers: int = 1,
    busy_shares: Sequence[float] = (),
    ttft_errors_ms: Sequence[float] = (),
    ttfts_ms: Sequence[float] = (),
) -> ClientLoad:
    """The verdict over a run: the figures and, when client-bound, why (and, in ``notes``,
    lateness the client did not cause). ``send_delays_ms`` and ``ttfts_ms`` are those of
    the successful requests."""
    lags = sorted(lag_ms)
    share = max(cpu_shares) if cpu_shares else 0.0
    p99 = _percentile(lags, 99.0) if lags else 0.0
    # The gaps the loop's timing sets are those between reads: chunks that came in one read
    # share its stamp, and their gap of 0 is what the bytes say, whatever the loop's lag (a
    # server that writes many tokens at once sends nothing else). Lag that makes chunks share
    # reads stretches the gaps between the reads instead, and is weighed against those.
    gaps = sorted(g for g in chunk_gaps_ms if g > 0.0)
    smallest = _percentile(gaps, SMALL_GAP_PERCENTILE) if gaps else None
    delays = sorted(send_delays_ms)
    delay_p99 = _percentile(delays, 99.0) if delays else None
    ttfts = sorted(ttfts_ms)
    smallest_ttft = _percentile(ttfts, SMALL_GAP_PERCENTILE) if ttfts else None
    busy = max(busy_shares) if busy_shares else None
    errors = sorted(ttft_errors_ms)
    reasons: list[str] = []
    notes: list[str] = []
    working = busy if busy is not None else share
    late = reasons if working >= BUSY_SHARE else notes
    idle = "" if working >= BUSY_SHARE else (
        f" while the client's event loop was idle {(1 - working) * 100:.0f}% of the time (the machine's lateness, not the client's own work)"
    )
    if share > CPU_SHARE_LIMIT:
        reasons.append(f"the client used {share * 100:.0f}% of a core")
    elif busy is not None and busy > CPU_SHARE_LIMIT:
        reasons.append(f"the client's event loop was busy {busy * 100:.0f}% of the time")
    if smallest is not None and p99 > LAG_FRACTION * smallest:
        late.append(f"its event loop lagged {p99:.2f} ms (p99), more than {LAG_FRACTION:.0%} of the "
                    f"smallest chunk gaps measured between reads ({smallest:.2f} ms, p{SMALL_GAP_PERCENTILE:g}){idle}")
    if delay_p99 is not None and smallest_ttft is not None and delay_p99 > SEND_DELAY_FRACTION * smallest_ttft:
        late.append(f"requests' bytes left {delay_p99:.2f} ms (p99; max {delays[-1]:.2f} ms) after their send stamp, "
                    f"more than {SEND_DELAY_FRACTION:.0%} of the smallest TTFTs measured ({smallest_ttft:.2f} ms, "
                    f"p{SMALL_GAP_PERCENTILE:g}){idle}")
    error = math.fsum(errors) / len(errors) if errors else None
    if error is not None and error > TTFT_ERROR_LIMIT_MS:
        late.append(f"its TTFT exceeded the server's own stamps by {error:.2f} ms (mean){idle}")
    return ClientLoad(
        cpu_share=share,
        loop_busy_share=busy,
        lag_ms_mean=math.fsum(lags) / len(lags) if lags else 0.0,
        lag_ms_p99=p99,
        lag_ms_max=lags[-1] if lags else 0.0,
        probes=len(lags),
        workers=workers,
        send_delay_ms_p99=delay_p99,
        smallest_gap_ms=smallest,
        send_delay_ms_p50=_percentile(delays, 50.0) if delays else None,
        send_delay_ms_max=delays[-1] if delays else None,
        smallest_ttft_ms=smallest_ttft,
        bound=bool(reasons),
        reasons=tuple(reasons),
        notes=tuple(notes),
        ttft_error_ms_mean=error,
        ttft_error_ms_p99=_percentile(errors, 99.0) if errors else None,
    )


def _percentile(ordered: Sequence[float], pct: float) -> float:
    from benchdoc.workloads.aggregate import percentile

    return percentile(ordered, pct)


class SendStamp:
    """When a request's bytes were handed to the socket (set by the session's trace hooks)."""

    __slots__ = ("at",)

    def __init__(self) -> None:
        self.at: float | None = None


async def _on_request_sent(session: Any, context: Any, params: Any) -> None:
    written = context.trace_request_ctx
    if isinstance(written, SendStamp) and written.at is None:
        written.at = perf_counter()


def send_trace_config() -> Any:
    """aiohttp request tracing that sets a request's SendStamp (its ``trace_request_ctx``)."""
    import aiohttp  # the client's own engine; imported when a workload runs

    trace = aiohttp.TraceConfig()
    trace.on_request_headers_sent.append(_on_request_sent)
    trace.on_request_chunk_sent.append(_on_request_sent)
    return trace
