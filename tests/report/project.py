"""A mid-sized project as a real ledger, for the report's layout tests and its page-height figures.

Thirty experiments with six declared metrics: a reference, twelve configurations compared with it (three with five
runs of history, the rest with one), three that failed with long reasons and log lines,
two never run, and two load sweeps (``serve-a`` and ``serve-b``, a parent each) of five
rate levels, each level recorded as ``EXP@rate=R`` with its TTFT and TPOT percentiles.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchdoc.config import parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.results import ResultSet, build_results

T0 = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
RATES = (1, 2, 4, 8, 16)
SWEEPS = ("serve-a", "serve-b")
COMPARED = 12
WITH_HISTORY = 3
FAILED = {
    "nccl-tree": ("CUDA graph incompatible: NCCL Tree algorithm cannot be captured into a CUDA graph when "
                  "all-reduce fusion is on", "RuntimeError: NCCL Tree algorithm is not supported with CUDA graph capture"),
    "mem-090": ("CUDA out of memory while allocating the KV cache (mem-fraction-static 0.90 leaves 1.2 GiB for "
                "activations)", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
    "fp8-kv": ("server exited with code 1 before it was ready: FP8 KV cache needs compute capability 8.9",
               "ValueError: fp8_e4m3 KV cache is not supported on this GPU"),
}
UNTESTED = {"tp4": "needs four GPUs: waits for the second node", "dp2": "OOM (wrong mem-fraction, could retry)"}

METRICS = """\
[metrics.output_tok_s]
label = "tok/s"
unit = "tok/s"
direction = "higher"
digits = 1
primary = true

[metrics.ttft_ms_p50]
label = "TTFT p50"
unit = "ms"
direction = "lower"
digits = 1

[metrics.ttft_ms_p99]
label = "TTFT p99"
unit = "ms"
direction = "lower"
digits = 1

[metrics.tpot_ms_p50]
label = "TPOT p50"
unit = "ms"
direction = "lower"
digits = 2

[metrics.tpot_ms_p99]
label = "TPOT p99"
unit = "ms"
direction = "lower"
digits = 2

[metrics.request_s]
label = "req/s"
unit = "req/s"
direction = "higher"
digits = 2
"""
# Six declared metrics, every one measured by the plain experiments: the widest table.
LATENCIES = {"ttft_ms_p50": 40.0, "ttft_ms_p99": 95.0, "tpot_ms_p50": 12.5, "tpot_ms_p99": 19.0, "request_s": 3.2}


def project_config_text() -> str:
    parts = [METRICS, '[experiments.baseline]\nlabel = "Baseline (no spec)"\nrole = "reference"\n']
    for i in range(COMPARED):
        parts.append(f'[experiments.cfg-{i:02d}]\nlabel = "Configuration {i:02d} (cuda-graph-max-bs {8 * (i + 1)})"\n'
                     'compare_to = "baseline"\n')
    for name in FAILED:
        parts.append(f'[experiments.{name}]\nlabel = "{name.upper()} variant"\ncompare_to = "baseline"\n')
    for name, notes in UNTESTED.items():
        parts.append(f'[experiments.{name}]\nlabel = "{name.upper()} layout"\ncompare_to = "baseline"\nnotes = "{notes}"\n')
    for name in SWEEPS:
        parts.append(f'[experiments.{name}]\nlabel = "Server {name[-1].upper()} load sweep"\n')
    return "\n".join(parts)


def _ok(experiment: str, minutes: int, samples: list[Sample]) -> NewRun:
    start = T0 + timedelta(minutes=minutes)
    return NewRun(experiment=experiment, samples=samples, started_at=start, finished_at=start + timedelta(minutes=3),
                  host="gpu-a", environment={"host": {"hostname": "gpu-a"}}, source="run")


def _tok(values: list[float]) -> list[Sample]:
    samples = [Sample("output_tok_s", v, i, i) for i, v in enumerate(values)]
    return samples + [Sample(m, base * (1 + 0.002 * i), i, i) for m, base in LATENCIES.items() for i in range(len(values))]


def record_project(ledger: Ledger) -> None:
    noise = [0.0, 0.3, -0.2, 0.4, -0.1, 0.2]
    ledger.record_run(_ok("baseline", 0, _tok([90 + n for n in noise])))
    for i in range(COMPARED):
        centre = 84 + i
        runs = 5 if i < WITH_HISTORY else 1
        for r in range(runs):
            ledger.record_run(_ok(f"cfg-{i:02d}", 10 + 60 * r + i, _tok([centre + r * 0.5 + n for n in noise])))
    for j, (name, (reason, line)) in enumerate(FAILED.items()):
        start = T0 + timedelta(minutes=400 + j)
        ledger.record_run(NewRun(experiment=name, outcome="failed", started_at=start, finished_at=start + timedelta(minutes=1),
                                 failure_reason=reason, failure_log_line=line, host="gpu-a", source="run"))
    for s, sweep in enumerate(SWEEPS):
        for k, rate in enumerate(RATES):
            throughput = min(rate * 60.0, 420.0 + 80 * s)
            queueing = max(0.0, rate * 60.0 - throughput) / 10
            samples = []
            for i in range(3):
                samples += [Sample("output_tok_s", throughput * (1 + 0.01 * i), i),
                            Sample("ttft_ms_p50", 40 + 5 * k + queueing + i, i),
                            Sample("ttft_ms_p99", 80 + 12 * k + 3 * queueing + i, i),
                            Sample("tpot_ms_p50", 12 + 1.5 * k + i * 0.1, i),
                            Sample("tpot_ms_p99", 20 + 3 * k + i * 0.1, i)]
            ledger.record_run(_ok(f"{sweep}@rate={rate}", 500 + 10 * s + k, samples))


def project_results(folder: Path) -> ResultSet:
    """The project's results, read from a fresh SQLite ledger in ``folder``."""
    config = parse_config(project_config_text(), folder / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{folder}/project.db") as ledger:
        record_project(ledger)
        return build_results(config, ledger)
