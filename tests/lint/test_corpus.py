"""benchmarks/lint_corpus.py on the labelled corpus: the figures meet the targets, and the labels are sound."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "lint_corpus.py"
CORPUS = ROOT / "tests" / "lint_corpus"
UNSEEN = ROOT / "tests" / "lint_corpus_unseen"

# Each test scores the whole corpus (33 logs, each with its own ledger) once or twice: seconds
# on an idle machine, minutes on a loaded one. These bounds only stop a hang.
pytestmark = pytest.mark.timeout(900)


def test_precision_and_recall_meet_the_targets() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True, text=True, timeout=600)
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


def test_the_held_out_folder_states_its_rule_and_its_cases_are_not_development_cases() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import lint_corpus
    finally:
        sys.path.remove(str(SCRIPT.parent))
    rule = (UNSEEN / "README.md").read_text(encoding="utf-8")
    assert "different hand" in rule and "never tuned on" in rule
    unseen = lint_corpus.cases_of(UNSEEN)
    assert not {c.name for c in unseen} & {c.name for c in lint_corpus.cases_of(CORPUS)}
    for case in unseen:
        assert lint_corpus.read_expected(case), case
        assert lint_corpus.check_snippets(case) == []


def one_case_corpus(folder: Path) -> Path:
    """A development half of one case: what these tests ask of the script does not need all of them."""
    shutil.copytree(CORPUS / "quantization", folder / "quantization")
    return folder


def test_an_empty_held_out_folder_scores_the_development_half_alone(tmp_path: Path) -> None:
    corpus = one_case_corpus(tmp_path / "development")
    held_out = tmp_path / "held-out"
    held_out.mkdir()
    (held_out / "README.md").write_text("no batch yet\n", encoding="utf-8")
    options = ["--corpus", str(corpus), "--unseen", str(held_out)]
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", *options],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert "precision_unseen" not in figures and "unseen_cases" not in figures
    assert figures["planted"] >= 4
    table = subprocess.run([sys.executable, str(SCRIPT), *options], capture_output=True, text=True, timeout=600)
    assert table.returncode == 0 and "development half" in table.stdout and "unseen half" not in table.stdout


def test_a_held_out_case_is_scored_apart_whatever_its_figures(tmp_path: Path) -> None:
    corpus = one_case_corpus(tmp_path / "development")
    held_out = tmp_path / "held-out"
    shutil.copytree(CORPUS / "quantization", held_out / "held-out-copy")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", "--corpus", str(corpus), "--unseen", str(held_out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    # Its figures are reported whatever they are (README), never held to a bar a rule could be tuned to.
    assert set(figures["unseen_cases"]) == {"held-out-copy"}
    assert figures["planted_unseen"] == figures["cases"]["quantization"]["planted"]
    assert 0.0 <= figures["precision_unseen"] <= 1.0 and 0.0 <= figures["recall_unseen"] <= 1.0


@pytest.mark.timing  # a ratio of two clocks: run alone, after the rest, so other tests' CPU does not bend it
def test_a_ten_thousand_line_log_lints_in_about_the_time_a_sync_plan_takes() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", "--speed"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    speed = json.loads(proc.stdout)["speed"]
    assert speed["lines"] >= 10_000
    # Measured near 1.3 when this bound was set; 2.7 to 2.9 on an idle machine since the rules of the
    # held-out rounds were added (their regex searches are about a quarter of the lint's time): a bound
    # this test is close to, kept so that the next slowdown is seen.
    assert speed["lint_over_sync"] < 3.0, speed


def test_no_fix_binds_a_value_of_another_metric_experiment_or_workload_setting(tmp_path: Path) -> None:
    """Every fix that binds a value region, in both halves, checked against the ledger it was made from."""
    from tests.lint.fixcheck import fix_problems

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import lint_corpus
    finally:
        sys.path.remove(str(SCRIPT.parent))
    from benchdoc.lint import lint_paths, markdown_files

    checked = 0
    for case in lint_corpus.cases_of(CORPUS) + lint_corpus.cases_of(UNSEEN):
        _, facts = lint_corpus.case_facts(case, tmp_path)
        findings = [f for document in lint_paths(facts, markdown_files([case])) for f in document.findings]
        problems, bound = fix_problems(facts, findings)
        assert problems == [], f"{case.name}: {problems}"
        checked += bound
    assert checked >= 40


def test_a_label_of_a_kind_the_lint_never_reports_is_refused_with_its_line(tmp_path: Path) -> None:
    """'claim' for 'stale-claim' would make every finding a false positive and every label a miss."""
    corpus = one_case_corpus(tmp_path / "development")
    held_out = tmp_path / "held-out"
    case = held_out / "mislabelled"
    shutil.copytree(CORPUS / "quantization", case)
    expected = case / "expected.txt"
    lines = expected.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line and not line.startswith("#"))
    lines[first] = lines[first].replace(" stale-", " ", 1)
    expected.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", "--corpus", str(corpus), "--unseen", str(held_out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert f"expected.txt:{first + 1}: unknown kind" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_fix_check_tells_a_workload_setting_by_its_unit() -> None:
    # "900 GB/s" is no duration_s = 900; "6 req/s" is rate = 6.
    from tests.lint.fixcheck import _setting_unit

    assert _setting_unit("rate") == "req/s" and _setting_unit("slo.ttft_ms") == "ms"
    assert _setting_unit("duration_s") == "s" and _setting_unit("input_tokens") == "tokens"
    assert _setting_unit("concurrency") == ""
