"""The story as lint facts: a real SQLite ledger recorded in a temporary folder.

Baseline 89.5 tok/s on CUDA 12.8, then 92.6 on CUDA 13; EAGLE-3 54.1 on CUDA 12.8, superseded
by EAGLE-3 on CUDA 13 at 96.1 (+3.8% over the baseline); NCCL Tree failed; NCCL fewer
channels never ran.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG

from benchdoc.config import Config, parse_config
from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, facts_from_results, lint_text
from benchdoc.outcome import Outcome
from benchdoc.results import build_results

T0 = datetime(2026, 11, 2, 9, tzinfo=timezone.utc)
CUDA_OLD = {"gpu": {"driver": "570.86", "cuda": "12.8"}, "packages": {"sglang": "0.4.9"}}
CUDA_NEW = {"gpu": {"driver": "580.65", "cuda": "13.0.1"}, "packages": {"sglang": "0.5.2"}}
BASELINE_OLD = [89.3, 89.5, 89.6, 89.4, 89.7]
BASELINE = [92.6, 92.4, 92.9, 92.5, 92.7]
EAGLE3_OLD = [54.1, 53.9, 54.3, 54.0, 54.2]
EAGLE3_NEW = [96.1, 95.8, 96.4, 96.0, 96.3]
TTFT_BASELINE = [41.0, 40.5, 41.2, 40.8, 41.1]
TTFT_EAGLE3 = [43.5, 43.1, 43.9, 43.4, 43.6]


def run(experiment: str, at: datetime, environment: dict, **metrics: list[float]) -> NewRun:
    samples = [Sample(metric, value, i, i) for metric, values in metrics.items() for i, value in enumerate(values)]
    return NewRun(experiment=experiment, samples=samples, started_at=at, finished_at=at + timedelta(minutes=5),
                  host="gpu-a", environment=environment)


def record_story(ledger: Ledger) -> None:
    ledger.record_run(run("baseline", T0, CUDA_OLD, output_tok_s=BASELINE_OLD))
    ledger.record_run(run("eagle3", T0 + timedelta(hours=1), CUDA_OLD, output_tok_s=EAGLE3_OLD))
    later = T0 + timedelta(days=3)
    ledger.record_run(run("baseline", later, CUDA_NEW, output_tok_s=BASELINE, ttft_ms_p50=TTFT_BASELINE))
    ledger.record_run(run("eagle3-cuda13", later + timedelta(hours=1), CUDA_NEW, output_tok_s=EAGLE3_NEW,
                          ttft_ms_p50=TTFT_EAGLE3))
    failed_at = later + timedelta(hours=2)
    ledger.record_run(NewRun(experiment="nccl-tree", outcome="failed", started_at=failed_at,
                             finished_at=failed_at + timedelta(minutes=1), failure_reason="CUDA graph incompatible",
                             environment=CUDA_NEW))


def story_config(root: Path, extra: str = "") -> Config:
    return parse_config(STORY_CONFIG + extra, root / "benchdoc.toml")


def facts_of(root: Path, extra_config: str = "") -> LintFacts:
    config = story_config(root, extra_config)
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        record_story(ledger)
        return facts_from_results(build_results(config, ledger))


@pytest.fixture
def story_facts(tmp_path: Path) -> LintFacts:
    return facts_of(tmp_path)


def kinds(facts: LintFacts, text: str) -> list[tuple[int, str, str]]:
    """(line, kind, quoted text) of each finding in a text linted as log.md."""
    return [(f.line, f.kind, f.text) for f in lint_text(facts, text, "log.md")]


# Speculative decoding against a noisy baseline: spec3 measured 1583.6 tok/s (run #2), then
# 1402.5 (run #3); the baseline stays at 845.7 (run #1); ngram is too noisy to tell from it.
SPEC_CONFIG = """\
[metrics.output_tok_s]
label = "Output throughput"
unit = "tok/s"
direction = "higher"
digits = 1
primary = true

[experiments.baseline]
label = "Baseline"
role = "reference"

[experiments.spec3]
label = "Speculative decoding (3 draft steps)"
aliases = ["speculative decoding with 3 draft steps"]
compare_to = "baseline"

[experiments.ngram]
label = "N-gram speculation"
compare_to = "baseline"
"""
SPEC_RUNS = (
    ("baseline", [845.7, 845.1, 846.0, 845.5, 845.9]),
    ("spec3", [1583.6, 1583.0, 1584.1, 1583.3, 1583.9]),
    ("spec3", [1402.5, 1401.9, 1403.0, 1402.2, 1402.8]),
    ("ngram", [566.0, 1300.0, 610.0, 1100.0, 500.2]),  # -10.6% [-47.5%, +52.2%]: inconclusive
)


@pytest.fixture
def spec_facts(tmp_path: Path) -> LintFacts:
    config = parse_config(SPEC_CONFIG, tmp_path / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        for hours, (experiment, values) in enumerate(SPEC_RUNS):
            ledger.record_run(run(experiment, T0 + timedelta(hours=hours), {}, output_tok_s=values))
        return facts_from_results(build_results(config, ledger))


# One builder for the class tests' own small projects: a config's text and its runs, recorded
# in a real SQLite ledger, read back as lint facts.
def measured(experiment: str, at: datetime, starts: dict[str, Sequence[float]], host: str = "gpu-a") -> NewRun:
    """A successful run: each metric's values, one server start each (start i, repetition i)."""
    samples = [Sample(metric, value, i, i) for metric, values in starts.items() for i, value in enumerate(values)]
    return NewRun(experiment=experiment, samples=samples, started_at=at, finished_at=at + timedelta(minutes=5),
                  host=host, environment={})


def failed(experiment: str, at: datetime, reason: str, host: str = "gpu-a") -> NewRun:
    return NewRun(experiment=experiment, outcome=Outcome.FAILED, started_at=at, finished_at=at + timedelta(minutes=1),
                  failure_reason=reason, host=host, environment={})


def facts_from(root: Path, config_text: str, runs: Iterable[NewRun]) -> LintFacts:
    config = parse_config(config_text, root / "benchdoc.toml")
    with Ledger.open(f"sqlite:///{root / 'ledger.db'}") as ledger:
        for new_run in runs:
            ledger.record_run(new_run)
        return facts_from_results(build_results(config, ledger))


def spread(centre: float, per_start: float, offsets: Sequence[int] = (0, -2, 2, -1, 1)) -> list[float]:
    """Five starts around a centre, ``per_start`` of it apart (0.001: a tight result)."""
    return [centre * (1 + per_start * offset) for offset in offsets]
