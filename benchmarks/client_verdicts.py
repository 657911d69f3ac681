"""benchdoc's verdict on its own client, on asyncio and on uvloop, for a saturated and an idle client.

Two simulators in their own processes pinned to one core, one streaming its tokens as fast
as it can and one pacing them 10 ms apart (no prefill time); benchdoc's client here, pinned
to the other core, every setting at its default but the event loop:

- **saturated**: 64 streams of the zero-latency simulator (384 requests of 256 tokens):
  every read brings a whole answer to parse, and the loop always has work;
- **idle**: one stream of the paced simulator (3 requests): a chunk every 10 ms.

It prints each run's verdict (``ClientLoad.sentence``) as ``bench -v`` shows it, with the
load average around the runs.

    python benchmarks/client_verdicts.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

CASES = (("saturated", 0.0, 64, 384), ("idle", 10.0, 1, 3))


def main() -> int:
    import vs_sglang
    from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload

    client_core, server_core = vs_sglang.cores()
    load = [os.getloadavg()[0]]
    bound: dict[tuple[str, str], bool] = {}
    with vs_sglang.simulator(0.0, server_core) as zero, vs_sglang.simulator(10.0, server_core) as paced:
        if client_core is not None:
            os.sched_setaffinity(0, {client_core})
        for name, step_ms, streams, requests in CASES:
            for event_loop in ("asyncio", "uvloop"):
                result = run_workload(WorkloadSpec(url=paced if step_ms else zero, concurrency=streams, requests=requests,
                                                   input_tokens=16, output_tokens=256, metrics_url="",
                                                   event_loop=event_loop,
                                                   timeouts=Timeouts(connect_s=30, first_token_s=120, idle_s=60)))
                client = result.client
                if result.failures or client is None:
                    print(f"{name} on {event_loop}: {len(result.failures)} requests failed", file=sys.stderr)
                    return 1
                bound[(name, event_loop)] = client.bound
                print(f"{name}, {streams} stream{'s' if streams > 1 else ''}, {result.provenance['event_loop']}: "
                      f"{client.sentence()}")
                load.append(os.getloadavg()[0])
    print(f"load average {min(load):.2f} to {max(load):.2f}")
    right = all(bound[("saturated", e)] and not bound[("idle", e)] for e in ("asyncio", "uvloop"))
    print("verdicts as expected (saturated flagged, idle not) on both loops" if right else "a verdict is not as expected")
    return 0 if right else 1


if __name__ == "__main__":
    raise SystemExit(main())
