"""The log text of the simulator's injected failures, shaped like a real server's.

A failed start reads like an engine that ran out of GPU memory while loading, so that
failure-reason extraction can be exercised on it; every text still says it comes from
the simulator.
"""

from __future__ import annotations

import time

from benchdoc.sim.config import SimConfig

DEFAULT_START_FAILURE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.19 GiB of which 1.06 GiB is free. Of the allocated memory 76.32 GiB is allocated "
    "by PyTorch, and 0.61 GiB is reserved by PyTorch but unallocated."
)

# What the ready log line says just before the URL; a parent process waits for it.
READY_MARK = "listening on "


def _stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


def startup_lines(config: SimConfig, url: str) -> list[str]:
    """What the server logs once it listens."""
    speculation = (
        f"speculative decoding: {config.draft_steps} draft steps, accept_prob={config.accept_prob}"
        if config.speculative
        else "speculative decoding: off"
    )
    lines = [
        f"[{_stamp()}] benchdoc simulator: model={config.model} ttft_ms={_ttft(config)} "
        f"step_ms={config.step_ms} noise_cv={config.noise_cv} seed={config.seed}",
        f"[{_stamp()}] benchdoc simulator: {speculation}; max_running={config.max_running}",
    ]
    if config.ready_delay_s:
        lines.append(f"[{_stamp()}] benchdoc simulator: ready in {config.ready_delay_s} s (/health answers 503 until then)")
    lines.append(f"benchdoc simulator (not real hardware) {READY_MARK}{url}")
    return lines


def _ttft(config: SimConfig) -> str:
    if config.prefill_per_token_ms is not None:
        return f"{config.prefill_overhead_ms}+n_input*{config.prefill_per_token_ms}"
    return str(config.ttft_ms)


def start_failure_log(config: SimConfig) -> str:
    """The log of a start that fails while loading the model, ending in the configured error."""
    message = config.fail_start or DEFAULT_START_FAILURE
    final = message if ":" in message.split(" ", 1)[0] else f"RuntimeError: {message}"
    stamp = _stamp()
    return "\n".join(
        [
            f"[{stamp}] benchdoc simulator (not real hardware): starting model={config.model}",
            f"[{stamp}] Load weight begin. avail mem=78.50 GB (simulated)",
            f"[{stamp}] Loading safetensors checkpoint shards: 100% 4/4 (simulated)",
            f"[{stamp}] Scheduler hit an exception: Traceback (most recent call last):",
            '  File "benchdoc_sim/engine.py", line 212, in run_scheduler_process',
            "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)",
            '  File "benchdoc_sim/engine.py", line 154, in __init__',
            "    self.init_memory_pool()",
            '  File "benchdoc_sim/engine.py", line 97, in init_memory_pool',
            "    self.kv_cache = allocate_kv_cache(self.max_total_tokens)",
            final,
            "",
        ]
    )


def fatal_line(requests_started: int) -> str:
    """What the server logs as it crashes on purpose (die-after-requests)."""
    return (
        f"[{_stamp()}] benchdoc simulator: fatal: RuntimeError: CUDA error: an illegal memory access "
        f"was encountered (injected after {requests_started} requests); exiting"
    )
