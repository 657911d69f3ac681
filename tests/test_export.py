"""export: a run's columns are defined once; flat rows hold one sample each."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from pathlib import Path

from benchdoc.export import FLAT_FIELDS, RUN_FIELDS, flat_rows, render_rows
from benchdoc.ledger import Ledger, NewRun, RunMetadata, Sample

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def _runs(tmp_path: Path) -> list:
    with Ledger.open(f"sqlite:///{tmp_path / 'l.db'}") as ledger:
        ledger.record_run(NewRun(experiment="a", samples=[Sample("x", 1.5, 0), Sample("x", 2.5, 1)], started_at=T0,
                                 metadata=RunMetadata(log_path="logs/a.log")))
        ledger.record_run(NewRun(experiment="b", outcome="failed", failure_reason="CUDA out of memory", started_at=T0))
        return ledger.runs()


def test_the_run_columns_are_the_export_columns(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    assert all(tuple(run.columns()) == RUN_FIELDS for run in runs)
    nested = runs[0].to_json()
    assert set(RUN_FIELDS) < set(nested) and nested["metadata"]["version"] >= 2


def test_flat_rows_one_per_sample_and_one_for_a_failure(tmp_path: Path) -> None:
    rows = flat_rows(_runs(tmp_path))
    assert [(r["experiment"], r["metric"], r["repetition"], r["value"]) for r in rows] == [
        ("a", "x", 0, 1.5), ("a", "x", 1, 2.5), ("b", None, None, None),
    ]
    assert rows[2]["failure_reason"] == "CUDA out of memory" and rows[2]["outcome"] == "failed"
    table = list(csv.DictReader(io.StringIO(render_rows(rows, "csv"))))
    assert tuple(table[0]) == FLAT_FIELDS and table[2]["metric"] == "" and table[1]["value"] == "2.5"
    assert [json.loads(line)["run_id"] for line in render_rows(rows, "jsonl").splitlines()] == [1, 1, 2]
    assert json.loads(render_rows(rows, "json")) == rows
