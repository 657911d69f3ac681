"""Where the client's TTFT error goes when every stream sends at once: per-request stamps on both sides.

The simulator runs in its own process pinned to one core (tokens paced 10 ms apart, no
prefill time); benchdoc's client, every setting at its default, runs here pinned to the
other, N streams of one request each, all due at the same instant. Every request's stamps
are set on one clock (``time.perf_counter``, system-wide):

- **launch**: from the start of the phase to the request's send stamp (its ``queue_ms``:
  the time the client took to send the requests before it);
- **B, send**: from the send stamp to the moment its bytes were handed to the socket
  (``send_delay_ms``);
- **C, to the server**: from there to the simulator's arrival stamp (the kernel's receive
  stamp of the bytes, on Linux);
- the simulator's own TTFT, from its arrival stamp to the start of its first token's write;
- **E, read**: from that write to the client's stamp of the read that brought the token.

The client's TTFT less the simulator's is B + C + E. The client's stamps are taken as its
reader hands them over (its ``stream`` is wrapped to keep the absolute send stamp, and the
stream decoder to keep the simulator's raw stamps): nothing in its path changes.

    python benchmarks/ttft_error.py                     # 1, 64 and 256 streams, 3 repeats
    python benchmarks/ttft_error.py --streams 256 --repeats 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

PARTS = ("launch_ms", "send_ms", "to_server_ms", "server_ttft_ms", "read_ms", "ttft_error_ms")


def _instrument() -> dict[int, tuple[float, Any, Any]]:
    """Keep each request's absolute send stamp and the simulator's raw stamps."""
    from benchdoc.workloads import lean_reader, protocols

    kept: dict[int, tuple[float, Any, Any]] = {}
    keep_stamps = protocols.StreamDecoder._server_stamps
    stream = lean_reader.LeanReader.stream

    def server_stamps(self: Any, stamps: Any) -> None:
        self.raw_server_stamps = stamps
        keep_stamps(self, stamps)

    async def kept_stream(self: Any, body: bytes, record: Any, decoder: Any, watch: Any, t_send: float,
                          hard_deadline: float) -> None:
        try:
            await stream(self, body, record, decoder, watch, t_send, hard_deadline)
        finally:
            kept[record.index] = (t_send, record, decoder)

    protocols.StreamDecoder._server_stamps = server_stamps  # type: ignore[method-assign]
    lean_reader.LeanReader.stream = kept_stream  # type: ignore[method-assign]
    return kept


def one_burst(url: str, streams: int, kept: dict[int, tuple[float, Any, Any]]) -> dict[str, float]:
    """The mean of each part over the requests of one burst."""
    from benchdoc.workloads import Timeouts, WorkloadSpec, run_workload

    kept.clear()
    result = run_workload(WorkloadSpec(url=url, concurrency=streams, requests=streams, input_tokens=16,
                                       output_tokens=256, metrics_url="",
                                       timeouts=Timeouts(connect_s=30, first_token_s=120, idle_s=60)))
    if result.failures or result.provenance.get("http_client") != "lean (httptools)":
        raise RuntimeError(f"failures {len(result.failures)}, reader {result.provenance.get('http_client')}")
    parts: dict[str, list[float]] = {name: [] for name in PARTS}
    for t_send, record, decoder in kept.values():
        stamps = getattr(decoder, "raw_server_stamps", None)
        if not record.ok or not isinstance(stamps, dict) or record.send_delay_ms is None:
            continue
        written = t_send + record.send_delay_ms / 1000.0
        read = t_send + record.chunk_ms[0] / 1000.0
        parts["launch_ms"].append(record.queue_ms or 0.0)
        parts["send_ms"].append(record.send_delay_ms)
        parts["to_server_ms"].append((stamps["arrived_s"] - written) * 1000.0)
        parts["server_ttft_ms"].append(stamps["ttft_ms"])
        parts["read_ms"].append((read - stamps["first_token_s"]) * 1000.0)
        parts["ttft_error_ms"].append(record.chunk_ms[0] - stamps["ttft_ms"])
    return {name: statistics.fmean(values) for name, values in parts.items() if values}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", default="1,64,256", help="stream counts (default 1,64,256)")
    parser.add_argument("--repeats", type=int, default=3, help="bursts of each stream count (default 3)")
    parser.add_argument("--json", action="store_true", help="print the medians over the repeats as JSON")
    args = parser.parse_args()
    import vs_sglang

    client_core, server_core = vs_sglang.cores()
    kept = _instrument()
    found: dict[str, float] = {}
    load = [os.getloadavg()[0]]
    with vs_sglang.simulator(10.0, server_core) as url:
        if client_core is not None:
            os.sched_setaffinity(0, {client_core})
        for streams in (int(s) for s in args.streams.split(",")):
            bursts = [one_burst(url, streams, kept) for _ in range(args.repeats)]
            for name in PARTS:
                found[f"{name}_{streams}"] = round(statistics.median(b[name] for b in bursts), 3)
            load.append(os.getloadavg()[0])
    if args.json:
        print(json.dumps(found))
        return 0
    print(f"medians over {args.repeats} bursts of the per-request means, ms; load average "
          f"{min(load):.2f} to {max(load):.2f}")
    print(f"{'streams':>7} " + " ".join(f"{name.removesuffix('_ms'):>14}" for name in PARTS))
    for streams in (int(s) for s in args.streams.split(",")):
        print(f"{streams:>7} " + " ".join(f"{found[f'{name}_{streams}']:>14.2f}" for name in PARTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
