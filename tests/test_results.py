"""results.py: statuses, pooling, corrected comparisons, before/after, environment differences."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG

from benchdoc.config import parse_config
from benchdoc.ledger.metadata import ClientVerdict, RunMetadata
from benchdoc.ledger.models import RunRecord, Sample
from benchdoc.results import Pooling, compute_results
from benchdoc.results.words import verdict_text
from benchdoc.stats import adjust_pvalues, compare

T0 = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)


class Runs:
    """Builds RunRecords the way the ledger returns them."""

    def __init__(self) -> None:
        self.runs: list[RunRecord] = []

    def add(self, experiment: str, values: list[float] | None = None, *, metric: str = "output_tok_s",
            failed: str | None = None, host: str = "gpu-a", env: dict | None = None, day: int = 0) -> None:
        run_id = len(self.runs) + 1
        environment = {"host": {"hostname": host}, **(env or {})}
        self.runs.append(
            RunRecord(
                id=run_id, experiment=experiment, outcome="failed" if failed else "ok",
                started_at=T0 + timedelta(days=day, minutes=run_id), finished_at=T0 + timedelta(days=day, minutes=run_id + 1),
                failure_reason=failed, failure_log_line=None, command=None, host=host, git_commit=None, git_dirty=None,
                environment=environment, note=None, source="record", metadata=RunMetadata(),
                samples=tuple(Sample(metric, v, i, i) for i, v in enumerate(values or [])),
            )
        )


@pytest.fixture
def config():  # type: ignore[no-untyped-def]
    return parse_config(STORY_CONFIG, Path("benchdoc.toml"))


BASE = [92.6, 92.4, 92.9, 92.5, 92.7]
NEW = [96.1, 95.8, 96.4, 96.0, 96.3]


def test_the_story_statuses(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", [89.5])
    runs.add("eagle3", [54.1])
    runs.add("baseline", BASE, day=1)
    runs.add("eagle3-cuda13", NEW, day=1)
    runs.add("nccl-tree", failed="CUDA graph incompatible", day=1)
    results = compute_results(config, runs.runs)
    assert results["baseline"].status == "Reference" and results["baseline"].value("output_tok_s") == 92.6
    assert results["eagle3"].status == "Superseded"
    new = results["eagle3-cuda13"]
    assert new.status == "Works"
    comparison = new.comparisons["output_tok_s"]
    assert round(comparison.delta_pct, 1) == 3.8
    change = new.changes["output_tok_s"]
    assert (change.old, change.new, round(change.delta_pct, 1)) == (54.1, 96.1, 77.6)
    assert results["nccl-tree"].status == "Failed" and results["nccl-tree"].reason == "CUDA graph incompatible"
    untested = results["nccl-fewer-channels"]
    assert untested.status == "Untested" and untested.reason == "OOM (wrong mem-fraction, could retry)"


def test_slower_and_no_difference_and_too_few_runs(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", BASE)
    runs.add("eagle3-cuda13", [54.1, 54.3, 53.9, 54.0, 54.2])
    runs.add("nccl-tree", [92.5, 92.8, 92.4, 92.6, 92.7])
    runs.add("nccl-fewer-channels", [93.0])
    results = compute_results(config, runs.runs)
    assert results["eagle3-cuda13"].status == "Slower"
    # "No difference" because equivalence within the 1% margin is shown, not for want of significance.
    assert results["nccl-tree"].status == "No difference"
    assert results["nccl-tree"].comparisons["output_tok_s"].verdict == "equivalent"
    too_few = results["nccl-fewer-channels"]
    assert too_few.status == "Measured" and "need >= 2 server starts each (has 1 and 5)" in (too_few.reason or "")


def test_lower_is_better_metric_reads_through_direction(tmp_path: Path) -> None:
    config = parse_config(
        '[metrics.ttft_ms]\nunit = "ms"\ndirection = "lower"\nprimary = true\n'
        '[experiments.base]\nrole = "reference"\n[experiments.fast]\ncompare_to = "base"\n',
        tmp_path / "benchdoc.toml",
    )
    runs = Runs()
    runs.add("base", [50.0, 51.0, 49.5, 50.5, 50.2], metric="ttft_ms")
    runs.add("fast", [40.0, 40.5, 39.8, 40.2, 40.1], metric="ttft_ms")
    result = compute_results(config, runs.runs)["fast"]
    assert result.status == "Works"
    assert result.comparisons["ttft_ms"].delta_pct < 0
    assert verdict_text(result.comparisons["ttft_ms"], config.metric_or_default("ttft_ms")).endswith("faster")


def test_holm_correction_spans_the_whole_project(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", BASE)
    runs.add("eagle3", NEW)
    runs.add("nccl-tree", [92.9, 93.1, 92.8, 93.0, 93.2])
    results = compute_results(config, runs.runs)
    raw = [compare(v, BASE, equivalence_margin=0.01).p_value for v in (NEW, [92.9, 93.1, 92.8, 93.0, 93.2])]
    expected = adjust_pvalues(raw, "holm")
    got = [results[n].comparisons["output_tok_s"].p_adjusted for n in ("eagle3", "nccl-tree")]
    assert got == pytest.approx(expected)
    assert results.correction_note("output_tok_s") == "Holm-Bonferroni (family-wise error rate) correction across 2 comparisons"


def test_a_single_comparison_is_marked_as_corrected_nowhere(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", BASE)
    runs.add("eagle3", NEW)
    results = compute_results(config, runs.runs)
    comparison = results["eagle3"].comparisons["output_tok_s"]
    assert results.correction_note("output_tok_s") is None
    assert comparison.correction is None and comparison.p_label == "" and comparison.p_used == comparison.p_value
    pair = results.compare("eagle3")
    assert pair.note == "a single comparison: no correction applies" and pair.comparison is comparison


def test_pooling_modes(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", [90.0], day=0)
    runs.add("baseline", [91.0], day=1)
    runs.add("baseline", failed="OOM", day=2)
    assert compute_results(config, runs.runs)["baseline"].summaries == {}
    assert compute_results(config, runs.runs)["baseline"].status == "Failed"
    assert compute_results(config, runs.runs, pooling=Pooling("runs", count=1))["baseline"].values("output_tok_s") == [91.0]
    assert sorted(compute_results(config, runs.runs, pooling=Pooling("all"))["baseline"].values("output_tok_s")) == [90.0, 91.0]
    since = compute_results(config, runs.runs, pooling=Pooling("since", since=T0 + timedelta(days=1)))
    assert since["baseline"].values("output_tok_s") == [91.0]


def test_environment_diff_and_machine_warning(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", BASE, host="gpu-a", env={"gpu": {"cuda": "12.8"}, "packages": {"torch": "2.5.1"}})
    runs.add("eagle3", NEW, host="gpu-b", env={"gpu": {"cuda": "13.0.1"}, "packages": {"torch": "2.5.1"}})
    result = compute_results(config, runs.runs)["eagle3"]
    texts = [d.text() for d in result.environment_diff]
    assert "CUDA 12.8 -> 13.0.1" in texts
    assert not any("torch" in t for t in texts)
    assert any("mixes runs from different machines (gpu-a, gpu-b)" in w for w in result.warnings)


def test_ledger_only_experiments_are_shown_not_lost(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("old-experiment", [1.0])
    results = compute_results(config, runs.runs)
    assert results["old-experiment"].status == "Measured"


def test_a_metric_with_a_zero_baseline_is_not_compared(config) -> None:  # type: ignore[no-untyped-def]
    runs = Runs()
    runs.add("baseline", [0.0, 0.0, 0.0, 0.0, 0.0], metric="error_rate")
    runs.add("eagle3-cuda13", [0.0, 0.0, 0.0, 0.0, 0.0], metric="error_rate")
    result = compute_results(config, runs.runs, all_metrics=True)["eagle3-cuda13"]
    assert "error_rate" in result.summaries and "error_rate" not in result.comparisons
    # By default only the declared metrics are summarised.
    assert "error_rate" not in compute_results(config, runs.runs)["eagle3-cuda13"].summaries


def test_client_bound_runs_are_warned_about() -> None:
    from dataclasses import replace

    from benchdoc.ledger.metadata import RunMetadata

    runs = Runs()
    runs.add("baseline", [92.6, 92.4, 92.9])
    runs.add("eagle3", [96.1, 95.8, 96.4])
    bound = RunMetadata(client=ClientVerdict(True, reasons=("its event loop lagged 4.00 ms (p99)",)))
    runs.runs[1] = replace(runs.runs[1], metadata=bound)
    results = compute_results(parse_config(STORY_CONFIG, Path("benchdoc.toml")), runs.runs)
    (warning,) = results["eagle3"].warnings
    assert warning.startswith("eagle3: the load generator was the bottleneck (client-bound) in 1 of 1 pooled runs")
    assert "its event loop lagged 4.00 ms (p99)" in warning
    assert results["baseline"].warnings == ()
