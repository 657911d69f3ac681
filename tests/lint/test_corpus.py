"""benchmarks/lint_corpus.py on the labelled corpus: the figures meet the targets, and the labels are sound."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "lint_corpus.py"
CORPUS = ROOT / "tests" / "lint_corpus"
UNSEEN = ROOT / "tests" / "lint_corpus_unseen"


def test_precision_and_recall_meet_the_targets() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert figures["planted"] >= 40 and len(figures["cases"]) >= 4
    assert figures["precision"] >= 0.95, figures
    assert figures["recall"] >= 0.90, figures
    assert figures["true_positives"] + figures["missed"] == figures["planted"]


def test_every_case_is_complete_and_its_labels_point_at_their_lines() -> None:
    cases = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    assert {c.name for c in cases} >= {"speculative-decoding", "nccl-tuning", "quantization", "cuda-upgrade"}
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import lint_corpus
    finally:
        sys.path.remove(str(SCRIPT.parent))
    for case in cases:
        assert (case / "benchdoc.toml").is_file() and (case / "runs.toml").is_file(), case
        assert lint_corpus.read_expected(case), case
        assert lint_corpus.check_snippets(case) == []


def test_the_unseen_half_is_scored_apart_and_its_labels_point_at_their_lines() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import lint_corpus
    finally:
        sys.path.remove(str(SCRIPT.parent))
    unseen = lint_corpus.cases_of(UNSEEN)
    assert len(unseen) >= 2 and not {c.name for c in unseen} & {c.name for c in lint_corpus.cases_of(CORPUS)}
    for case in unseen:
        assert lint_corpus.read_expected(case), case
        assert lint_corpus.check_snippets(case) == []
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True, text=True, timeout=120)
    figures = json.loads(proc.stdout)
    # Its figures are reported whatever they are (README), never held to a bar a rule could be tuned to.
    assert figures["planted_unseen"] == sum(len(lint_corpus.read_expected(c)) for c in unseen)
    assert set(figures["unseen_cases"]) == {c.name for c in unseen}
    assert 0.0 <= figures["precision_unseen"] <= 1.0 and 0.0 <= figures["recall_unseen"] <= 1.0


def test_a_ten_thousand_line_log_lints_in_about_the_time_a_sync_plan_takes() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", "--speed"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    speed = json.loads(proc.stdout)["speed"]
    assert speed["lines"] >= 10_000
    # Measured near 1.3 on an idle machine; the bound is loose because the machine is shared.
    assert speed["lint_over_sync"] < 3.0, speed
