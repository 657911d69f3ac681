"""The experiment-log story as a real ledger, for chart and report tests.

Baseline 89.5 then 92.6 tok/s; EAGLE-3 54.1, superseded by EAGLE-3 on CUDA 13 at
96.1; NCCL Tree failed (CUDA graph incompatible); NCCL fewer channels never ran.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from tests.conftest import STORY_CONFIG

from benchdoc.config import Config, parse_config
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.results import ResultSet, build_results

T0 = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
BASELINE_OLD = [89.1, 89.5, 89.9, 89.4, 89.6, 89.7]
BASELINE = [92.6, 92.4, 92.9, 92.5, 92.7, 92.8]
EAGLE3_OLD = [54.1, 53.9, 54.3, 54.0, 54.2, 54.1]
EAGLE3_NEW = [96.1, 95.8, 96.4, 96.0, 96.3, 96.2]
TTFT = [41.0, 40.5, 41.2, 40.8, 41.1, 40.9]
CUDA_OLD = {"gpu": {"models": ["NVIDIA H100 80GB HBM3"], "driver": "570.86", "cuda": "12.8"}, "packages": {"torch": "2.7.1", "sglang": "0.4.9"}}
CUDA_NEW = {"gpu": {"models": ["NVIDIA H100 80GB HBM3"], "driver": "580.65", "cuda": "13.0.1"}, "packages": {"torch": "2.9.0", "sglang": "0.5.2"}}


def story_config(extra: str = "", path: Path = Path("benchdoc.toml")) -> Config:
    return parse_config(STORY_CONFIG + extra, path)


def _run(experiment: str, values: list[float], minutes: int, env: dict, *, ttft: list[float] | None = None,
         metadata: RunMetadata | None = None) -> NewRun:
    samples = [Sample("output_tok_s", v, i, i) for i, v in enumerate(values)]
    samples += [Sample("ttft_ms_p50", v, i, i) for i, v in enumerate(ttft or [])]
    start = T0 + timedelta(minutes=minutes)
    return NewRun(
        experiment=experiment, samples=samples, started_at=start, finished_at=start + timedelta(minutes=5),
        host="gpu-a", environment={"host": {"hostname": "gpu-a"}, **env}, metadata=metadata or RunMetadata(),
    )


def record_story(ledger: Ledger, *, metadata: RunMetadata | None = None, log_path: Path | None = None) -> None:
    """Record the story's runs; ``metadata`` goes on every successful run."""
    ledger.record_run(_run("baseline", BASELINE_OLD, 0, CUDA_OLD, metadata=metadata))
    ledger.record_run(_run("eagle3", EAGLE3_OLD, 10, CUDA_OLD, metadata=metadata))
    ledger.record_run(_run("baseline", BASELINE, 60 * 24, CUDA_NEW, ttft=TTFT, metadata=metadata))
    ledger.record_run(_run("eagle3-cuda13", EAGLE3_NEW, 60 * 24 + 10, {**CUDA_NEW, "env_vars": {"SGLANG_ENABLE_FUSION": "1"}},
                           ttft=TTFT, metadata=metadata))
    failed_meta = RunMetadata(log_path=str(log_path) if log_path else None)
    start = T0 + timedelta(days=1, minutes=20)
    ledger.record_run(NewRun(
        experiment="nccl-tree", outcome="failed", started_at=start, finished_at=start + timedelta(minutes=1),
        failure_reason="CUDA graph incompatible",
        failure_log_line="RuntimeError: NCCL Tree algorithm is not supported with CUDA graph capture",
        host="gpu-a", environment={"host": {"hostname": "gpu-a"}, **CUDA_NEW, "env_vars": {"NCCL_ALGO": "Tree"}},
        metadata=failed_meta,
    ))


def story_results(tmp_path: Path, *, extra_config: str = "", metadata: RunMetadata | None = None,
                  log_path: Path | None = None) -> ResultSet:
    config = story_config(extra_config, tmp_path / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{tmp_path}/l.db") as ledger:
        record_story(ledger, metadata=metadata, log_path=log_path)
        return build_results(config, ledger)
